"""A player's tournament and running games from the terminal (issue 41, item 7), against a real
``wordarena serve``: ``play --tournament`` goes on from one game to the next until the tournament
ends, naming the tournament and round on the game screen, and ``matches --active`` shows a running
game's scores.

Expected values come from outside the CLI: the games from ``tournament show --json`` (the lobby's
own list), the scores from the player's ``state --json`` (the match server's view)."""

from __future__ import annotations

import re
from pathlib import Path

import pexpect
import pytest
from e2e_helpers import Served, cli, cli_json, legal_plays
from terminal import Terminal, wait_turn

pytestmark = pytest.mark.slow


def _my_game(served: Served, config: Path, tid: str, entrant: str, rnd: int) -> dict:
    """The player's game of round ``rnd`` in the lobby's tournament state."""
    st = cli_json(served, config, "tournament", "show", tid)
    (game,) = [g for g in st["games"] if g.get("round", 0) == rnd
               and entrant in (g["first_entrant_id"], g.get("second_entrant_id"))]
    return game


def test_play_tournament_goes_from_game_to_game_naming_the_round_until_it_ends(
        served: Served, tmp_path: Path) -> None:
    director, player = tmp_path / "dir.json", tmp_path / "player.json"
    cli(served, director, "login", "--name", "Rhoda")
    cli(served, player, "login", "--name", "Pia")
    tid = cli_json(served, director, "tournament", "create", "--name", "Two Rounds", "--rounds", "2",
                   "--method", "swiss")["tournament_id"]
    me = cli_json(served, player, "tournament", "join", tid)["entrant_id"]
    for _ in range(3):  # four entrants: no byes, a game for the player in each round
        cli(served, director, "tournament", "bot", tid, "--level", "1")
    screen = Terminal(served.env(player), "play", "--tournament", tid)
    try:
        screen.wait_for("Waiting for your game in tournament")
        cli(served, director, "tournament", "start", tid)
        seen = []
        for rnd in (1, 2):
            at = len(screen.text)
            title = screen.wait_for(rf"match (m_\w+) · tournament Two Rounds · round {rnd}\b", since=at)
            match_id = title.group(1)
            assert _my_game(served, player, tid, me, rnd)["match_id"] == match_id
            seen.append(match_id)
            screen.wait_for(r"your move > |waiting \(commands", since=at)
            screen.type("resign")
            screen.type("yes")
            # Before: the screen offered only "Enter or 'quit' to leave" and the shell came back
            # after the first game.
            screen.wait_for(r"game over — Enter for your next game, 'quit' to stop > ", since=at)
            screen.type("")
        screen.wait_for(rf"Tournament {tid} is over")
        screen.child.expect(pexpect.EOF, timeout=30)
        screen.child.close()
        assert screen.child.exitstatus == 0
        assert len(set(seen)) == 2
        st = cli_json(served, director, "tournament", "show", tid)
        assert st["tournament"]["status"] == "TOURNAMENT_STATUS_FINISHED"
        standings = {s["entrant_id"]: s for s in st["standings"][0]["standings"]}
        assert standings[me].get("losses") == 2  # both games were the player's, resigned
    finally:
        screen.close()


def test_play_tournament_stops_when_the_player_quits_after_a_game(served: Served, tmp_path: Path) -> None:
    director, player = tmp_path / "dir.json", tmp_path / "player.json"
    cli(served, director, "login", "--name", "Quinn")
    cli(served, player, "login", "--name", "Quill")
    tid = cli_json(served, director, "tournament", "create", "--name", "Short",
                   "--rounds", "2")["tournament_id"]
    cli(served, player, "tournament", "join", tid)
    for _ in range(3):
        cli(served, director, "tournament", "bot", tid, "--level", "1")
    cli(served, director, "tournament", "start", tid)
    screen = Terminal(served.env(player), "play", "--tournament", tid)
    try:
        screen.wait_for(r"tournament Short · round 1\b")
        screen.wait_for(r"your move > |waiting \(commands")
        screen.type("resign")
        screen.type("yes")
        screen.wait_for(r"Enter for your next game, 'quit' to stop > ")
        screen.type("quit")
        screen.child.expect(pexpect.EOF, timeout=30)
        screen.child.close()
        assert screen.child.exitstatus == 0
        assert "round 2" not in screen.text
    finally:
        screen.close()


def test_matches_active_shows_a_running_games_scores(served: Served, tmp_path: Path) -> None:
    me = tmp_path / "mona.json"
    cli(served, me, "login", "--name", "Mona")
    match_id = cli_json(served, me, "table", "create", "--ruleset", "classic", "--bot", "1",
                        "--wait")["match"]["match_id"]
    view = wait_turn(served, me, match_id)
    plays = legal_plays(view)
    assert plays, "the opening rack has a play"
    cli(served, me, "move", match_id, plays[0][1])
    view = wait_turn(served, me, match_id)  # the bot has answered
    seats = sorted(view["seats"], key=lambda s: s.get("index", 0))
    assert seats[0].get("score", 0) == plays[0][0] > 0
    expected = " vs ".join(f"{s['player']['display_name']} {s.get('score', 0)}" for s in seats)
    out = cli(served, me, "matches", "--active").stdout
    # Before: "Mona 0 vs <bot> 0" (the lobby hears of scores only when a game ends).
    (line,) = [ln for ln in out.splitlines() if ln.startswith(match_id)]
    assert re.fullmatch(rf"{match_id}  classic  your turn  {re.escape(expected)}", line), line
    listed = cli_json(served, me, "matches", "--active")["matches"]
    (mine,) = [m for m in listed if m["assignment"]["match_id"] == match_id]
    assert [s.get("score", 0) for s in mine["seats"]] == [s.get("score", 0) for s in seats]
