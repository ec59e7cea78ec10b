"""Word Tiles on the game screen (issue 41, item 6), in a pseudo-terminal against a real
``wordarena serve``: the player who must decide a pending play is asked about it by its word
(``accept or check BRANDS? >``), not left to read the tiles one by one, and a check that finds
the words good says that the checker lost the turn.

The play and its word come from outside the CLI: the test's own move generator on the mover's
``state --json`` (``e2e_helpers.legal_plays``), played by script as a separate process."""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_helpers import Served, cli, cli_json, legal_plays
from terminal import Terminal, state

pytestmark = pytest.mark.slow


def test_a_pending_play_is_asked_about_by_its_word_and_a_good_check_costs_the_checker_the_turn(
        served: Served, tmp_path: Path) -> None:
    ann, ben = tmp_path / "ann.json", tmp_path / "ben.json"
    cli(served, ann, "login", "--name", "Ann")
    cli(served, ben, "login", "--name", "Ben")
    table_id = cli_json(served, ann, "table", "create", "--ruleset", "wordtiles")["table_id"]
    match_id = cli_json(served, ben, "table", "join", table_id, "--wait")["match"]["match_id"]
    configs = {0: (ann, "Ann"), 1: (ben, "Ben")}
    view = state(served, ann, match_id)
    mover, mover_name = configs[view["to_move_seat"]]
    decider, decider_name = configs[1 - view["to_move_seat"]]
    mine = state(served, mover, match_id)
    plays = [(s, n) for s, n in legal_plays(mine) if n.split()[1].isupper()]  # no blank: one spelling
    assert plays, "the opening rack has a play"
    score, move = plays[0]
    word = move.split()[1]
    cli(served, mover, "move", match_id, move)

    screen = Terminal(served.env(decider), "play", "--match", match_id)
    try:
        # Before: the prompt said "your move >" and the log listed "H8 b + I8 r + …".
        screen.wait_for(rf"accept or check {word}\? > ")
        screen.wait_for(rf"Pending play by {mover_name}: {word} \({score} pts\): you must accept or check")
        screen.wait_for(rf"{mover_name} played {word} for {score} "
                        rf"\(pending: {decider_name} accepts or checks\)")
        at = screen.mark()
        screen.type("check")
        # Before: "Ben checked Ann's play: it held (24 pts)", nothing about the turn.
        screen.wait_for(rf"{decider_name} checked {mover_name}'s play: the words are good, it stands "
                        rf"\({score} pts\) and {decider_name} lost the turn", since=at)
        after = state(served, decider, match_id)
        assert after["to_move_seat"] != after["viewer_seat"], "the checker is not the one to move"
        screen.wait_for(r"waiting \(commands still work\) > ", since=at)
    finally:
        screen.close()
