"""A match server speaks the contract's one ruleset vocabulary (common.proto, RulesetRef): the
match's ruleset id is the family id ("classic", as the lobby, tables and records say it), the
language is answered in lower case, whatever form the match was created with."""

from __future__ import annotations

import uuid

import pytest
from match_harness import SERVICE_TOKEN, Harness

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@pytest.mark.parametrize(
    "ref",
    [
        c.RulesetRef(ruleset_id="classic", language="en-GB", board_id="wordtiles"),
        c.RulesetRef(ruleset_id="classic", language="en-gb", board_id="wordtiles"),
        c.RulesetRef(ruleset_id="classic/en-gb/wordtiles"),  # the engine's id, still accepted
    ],
)
async def test_match_view_names_the_ruleset_by_family_language_and_board(harness: Harness,
                                                                         ref: c.RulesetRef) -> None:
    srv = await harness.start()
    mid = uuid.uuid4().hex[:12]
    seats = [ctl.SeatAssignment(index=i, player=c.Player(player_id=p, display_name=p.title()))
             for i, p in enumerate(("alice", "bob"))]
    await harness.control(srv).CreateMatch(
        ctl.CreateMatchRequest(match_id=mid, ruleset=ref, seats=seats, seed=1),
        metadata=[("authorization", f"Bearer {SERVICE_TOKEN}")],
    )
    view = await harness.player(srv, "alice").view(mid)
    assert (view.ruleset.ruleset_id, view.ruleset.language, view.ruleset.board_id) == (
        "classic", "en-gb", "wordtiles")
    assert view.ruleset.family == c.FAMILY_CLASSIC
    assert view.board.board_id == "wordtiles"
