"""Bot think times in the lobby's stored table (JSON): kept across a save and load, per seat
and for the table; a table stored before they existed loads with none (the server's default)."""

from __future__ import annotations

import json

from wordarena.services.lobby.settings import validate_settings
from wordarena.services.lobby.store.tables import table_from_json, table_to_json
from wordarena.services.lobby.tables import Occupant, Table


def test_think_times_survive_the_store_and_old_tables_have_none() -> None:
    cfg = validate_settings(
        ruleset_id="scrabble", seats=3, bots=((1, 6), (2, 5)), bot_think_ms=1200, bot_think=((1, 800), (2, 0))
    )
    assert cfg.bot_think == ((1, 800),)
    t = Table.open("t1", cfg, Occupant("p1", "Pat"), 0, 0.0)
    assert [(o.bot_level, o.think_ms) for o in t.seats if o is not None and o.is_bot] == [(6, 800), (5, 0)]
    back = table_from_json("t1", table_to_json(t))
    assert back.config == cfg and back.config.bot_think_ms == 1200
    assert [o.think_ms for o in back.seats if o is not None] == [0, 800, 0]
    old = json.loads(table_to_json(t))
    del old["config"]["bot_think_ms"], old["config"]["bot_think"]
    for seat in old["seats"]:
        del seat["think_ms"]
    before = table_from_json("t1", json.dumps(old))
    assert before.config.bot_think_ms == 0 and before.config.bot_think == ()
    assert all(o.think_ms == 0 for o in before.seats if o is not None)
