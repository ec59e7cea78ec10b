"""``wordarena preview`` in War of Words says what a play's action tiles will do — which letters
a Bomb destroys and what their owner loses, what the play comes to for each player — and the
combat log then tells the same happening with the same points; after a Nuclear Bomb the game
screen says the board is irradiated and the rack shows every letter at 1. Each command a
separate process against a real ``wordarena serve`` dealing a known deal (``--deal-seed``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_helpers import Served, cli, cli_json, serving

pytestmark = pytest.mark.slow

#: The engine's deal of this seed: the first seat E L S Z N U O and a Lightning, the second a
#: Bomb, a Nuclear Bomb and T E A N E (the test checks the racks the CLI shows).
DEAL_SEED = 764


@pytest.fixture(scope="module")
def served_764(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from serving(tmp_path_factory.mktemp("dealt764"), "--deal-seed", str(DEAL_SEED))


def _rack(served: Served, config: Path, match_id: str) -> list[dict]:
    return cli_json(served, config, "state", match_id)["rack"]["tiles"]


def test_preview_tells_what_a_bomb_destroys_and_the_log_agrees(served_764: Served, tmp_path: Path) -> None:
    served = served_764
    ann, ben = tmp_path / "ann.json", tmp_path / "ben.json"
    cli(served, ann, "login", "--name", "Ann")
    cli(served, ben, "login", "--name", "Ben")
    table = cli_json(served, ann, "table", "create", "--ruleset", "warofwords", "--board", "warofwords-field")
    match_id = cli_json(served, ben, "table", "join", table["table_id"], "--wait")["match"]["match_id"]
    first = cli_json(served, ann, "state", match_id)
    ann_first = first.get("to_move_seat", 0) == first.get("viewer_seat", 0)
    mover, bomber = (ann, ben) if ann_first else (ben, ann)
    mover_name, bomber_name = ("Ann", "Ben") if ann_first else ("Ben", "Ann")
    letters = sorted(t["letter"] for t in _rack(served, mover, match_id) if t.get("letter"))
    assert letters == sorted("ELSZNUO"), letters
    actions = {t.get("action") for t in _rack(served, bomber, match_id)}
    assert {"ACTION_KIND_BOMB", "ACTION_KIND_NUCLEAR_BOMB"} <= actions

    cli(served, mover, "move", match_id, "8H ZONES")
    preview = cli(served, bomber, "preview", match_id, "I8 @bomb").stdout
    # e.g. "Ben's Bomb at I8 destroyed the tiles on H8 I8 J8 (Ann -13)" and the sum per player
    said = re.search(rf"{bomber_name}'s Bomb at I8 destroyed the tiles on H8 I8 J8 "
                     rf"\({mover_name} (-\d+)\)", preview)
    assert said, preview
    assert f"In all: {mover_name} {said.group(1)}, {bomber_name} +0" in preview \
        or f"In all: {bomber_name} +0, {mover_name} {said.group(1)}" in preview, preview

    cli(served, bomber, "move", match_id, "I8 @bomb")
    log = cli(served, mover, "log", match_id).stdout
    assert said.group(0) in log, log

    # The Nuclear Bomb: then the screen says the board is irradiated and the rack shows 1s.
    cli(served, mover, "pass", match_id)
    preview = cli(served, bomber, "preview", match_id, "A1 @nuke").stdout
    assert "irradiated the board: every letter is worth 1 point" in preview, preview
    cli(served, bomber, "move", match_id, "A1 @nuke")
    values = {t.get("value", 0) for t in _rack(served, mover, match_id) if t.get("letter")}
    assert values == {1}, values
    screen = cli(served, mover, "state", match_id).stdout
    assert "The board is irradiated: every letter is worth 1 point" in screen, screen
    rack = next(line for line in screen.splitlines() if line.startswith("Rack:"))
    assert re.findall(r"[A-Z](\d+)", rack) and set(re.findall(r"[A-Z](\d+)", rack)) == {"1"}, rack
