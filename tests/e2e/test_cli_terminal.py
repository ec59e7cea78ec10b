"""The terminal commands a person uses besides ``play --bot``, each in a real pseudo-terminal
against a real ``wordarena serve``: ``watch`` (a spectator follows a running game), ``replay`` (a
GCG record stepped through with the keys), and two people meeting through ``play --quick`` and
through ``play --create`` / ``play --join``.

Expected values come from outside the CLI: the plays are found by the engine's generator on the
player's own ``state --json`` (``e2e_helpers.legal_plays``), and the replay's moves and running
totals are read straight from the ``.gcg`` file's lines.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pexpect
import pytest
from e2e_helpers import ROOT, Served, best_or_pass, cli, cli_json
from terminal import Terminal, state, wait_turn

pytestmark = pytest.mark.slow

RECORD = ROOT / "tests/unit/interchange/gcg/josh2.gcg"
COLS = "ABCDEFGHIJKLMNO"


def play_best(served: Served, config: Path, match_id: str, name: str) -> str:
    """The player's best play (by the test's own generator), or a pass when the rack has none,
    made by script; the regex the screens show for it."""
    view = wait_turn(served, config, match_id)
    move, shown = best_or_pass(view, name)
    if move == "pass":
        cli(served, config, "pass", match_id)
    else:
        cli(served, config, "move", match_id, move, "--expected-seq", str(view["last_seq"]))
    return shown


def test_a_spectator_watches_the_turns_of_a_running_game(served: Served, tmp_path: Path) -> None:
    alice, wendy = tmp_path / "alice.json", tmp_path / "wendy.json"
    cli(served, alice, "login", "--name", "Alice")
    match_id = cli_json(served, alice, "table", "create", "--ruleset", "classic", "--bot", "1",
                        "--wait")["match"]["match_id"]
    watch = Terminal(served.env(wendy), "watch", match_id, "--name", "Wendy")
    try:
        watch.wait_for(r"watching >")
        watch.wait_for(rf"match {match_id} · watching")
        since = watch.mark()
        # Alice's plays, made elsewhere, appear on the spectator's screen as they happen, each
        # with the score the generator gives it; so do the bot's turns in between.
        for _ in range(2):
            watch.wait_for(play_best(served, alice, match_id, "Alice"), since=since)
            watch.wait_for(r"Bot 1(: .+ for \d+| passed| swapped \d+ tiles)", since=since)
            since = watch.mark()
        # A spectator is shown no rack, and may not play.
        screen = watch.text[watch.text.rfind("watching >", 0, since):]
        assert "Rack:" not in screen
        after = watch.mark()
        watch.type("8H CAT")
        watch.wait_for(r"Spectators can only chat", since=after)
    finally:
        assert watch.close() == 0


def test_replay_steps_through_a_record_with_the_keys(tmp_path: Path) -> None:
    lines = RECORD.read_text().splitlines()
    moves = [(n, line) for n, line in enumerate(lines, 1) if line.startswith(">")]
    totals: list[dict[str, int]] = []
    running: dict[str, int] = {}
    for _, line in moves:
        nick = line[1:line.index(":")]
        running[nick] = int(line.split()[-1])
        totals.append(dict(running))

    def expect_step(i: int, since: int) -> None:
        number, line = moves[i]
        term.wait_for(rf"move {i + 1}/{len(moves)} \(line {number}\): {re.escape(line)}", since=since)
        shown = "   ".join(f"{nick} {score}" for nick, score in sorted(
            totals[i].items(), key=lambda kv: ["jvc", "Paula"].index(kv[0])))
        term.wait_for(re.escape(shown), since=since)

    # No server: replay works offline, from the file alone.
    env = dict(os.environ, WORDARENA_CONFIG=str(tmp_path / "c.json"), TERM="xterm-256color")
    term = Terminal(env, "replay", str(RECORD))
    try:
        expect_step(0, 0)
        # The first play, 8H DOWLY, lies on row 8 from H to L.
        row8 = term.wait_for(r"\n\s*8((?:\s+\S+){15})\s+8\b").group(1).split()
        assert row8[COLS.index("H"):COLS.index("L") + 1] == list("DOWLY")
        since = term.mark()
        term.type("")  # Enter: the next move
        expect_step(1, since)
        since = term.mark()
        term.type("b")  # back
        expect_step(0, since)
        since = term.mark()
        term.type("5")  # straight to move 5: Paula's 6F ZEK
        expect_step(4, since)
        row6 = term.wait_for(r"\n\s*6((?:\s+\S+){15})\s+6\b", since=since).group(1).split()
        assert row6[COLS.index("F"):COLS.index("H") + 1] == list("ZEK")
        term.type("q")
        term.child.expect(pexpect.EOF, timeout=20)
    finally:
        assert term.close() == 0


def _both_in_one_match(a: Terminal, b: Terminal) -> str:
    got_a = a.wait_for(r"Match (m_\w+)", timeout=120).group(1)
    got_b = b.wait_for(r"Match (m_\w+)", timeout=120).group(1)
    assert got_a == got_b, "the two players were put in different matches"
    return got_a


def _turns_cross_between(served: Served, players: dict[str, tuple[Path, Terminal]], match_id: str) -> None:
    """Two turns typed at the terminals: each play shows on the other player's screen, with the
    score the generator gives it."""
    for _ in range(2):
        view = None
        for name, (config, _term) in players.items():
            v = state(served, config, match_id)
            if v.get("to_move_seat") in v.get("controlled_seats", []):
                view, mover = v, name
        assert view is not None, "nobody to move"
        other = next(n for n in players if n != mover)
        since = players[other][1].mark()
        move, expected = best_or_pass(view, mover)
        typed_at = players[mover][1].mark()
        players[mover][1].type(move)
        try:
            players[other][1].wait_for(expected, since=since)
        except pytest.fail.Exception as exc:  # show what the mover's screen said too
            players[mover][1].pump(0.5)
            lines = [ln for ln in players[mover][1].text[typed_at:].splitlines()
                     if ln.strip() and not re.match(r"\s*(\d+ |A  B)", ln)]
            pytest.fail(f"{exc}\n{mover} typed {move!r}; {mover}'s screen since (board rows left out):\n"
                        + "\n".join(dict.fromkeys(lines)))
        after = state(served, players[other][0], match_id)
        assert after["to_move_seat"] in after["controlled_seats"]


def test_two_players_meet_through_quick_match_in_their_terminals(served: Served, tmp_path: Path) -> None:
    qa, qb = tmp_path / "quin.json", tmp_path / "quod.json"
    a = Terminal(served.env(qa), "play", "--quick", "--ruleset", "scrabble", "--name", "Quin",
                 "--bot-after", "600")
    b = None
    try:
        a.wait_for(r"Looking for opponents \(ticket \S+\)")
        b = Terminal(served.env(qb), "play", "--quick", "--ruleset", "scrabble", "--name", "Quod",
                     "--bot-after", "600")
        match_id = _both_in_one_match(a, b)
        view = state(served, qa, match_id)
        assert view["ruleset"]["ruleset_id"] == "scrabble"
        assert sorted(s["player"]["display_name"] for s in view["seats"]) == ["Quin", "Quod"]
        a.wait_for(r"your move > |waiting")
        b.wait_for(r"your move > |waiting")
        _turns_cross_between(served, {"Quin": (qa, a), "Quod": (qb, b)}, match_id)
    finally:
        assert a.close() == 0
        if b is not None:
            assert b.close() == 0


def test_two_players_meet_at_a_table_created_and_joined_in_their_terminals(served: Served,
                                                                           tmp_path: Path) -> None:
    ca, cb = tmp_path / "carol.json", tmp_path / "dave.json"
    a = Terminal(served.env(ca), "play", "--create", "--ruleset", "classic", "--name", "Carol")
    b = None
    try:
        table_id = a.wait_for(r"Others can join with: wordarena play --join (\S+)").group(1)
        b = Terminal(served.env(cb), "play", "--join", table_id, "--name", "Dave")
        match_id = _both_in_one_match(a, b)
        view = state(served, cb, match_id)
        assert [s["player"]["display_name"] for s in view["seats"]] == ["Carol", "Dave"]
        assert view["viewer_seat"] == 1
        a.wait_for(r"your move > |waiting")
        b.wait_for(r"your move > |waiting")
        _turns_cross_between(served, {"Carol": (ca, a), "Dave": (cb, b)}, match_id)
    finally:
        assert a.close() == 0
        if b is not None:
            assert b.close() == 0


def test_a_command_typed_before_the_screen_is_up_is_not_lost(served: Served, tmp_path: Path) -> None:
    """Keys typed while the client signs in and opens the match wait for the screen (switching
    the terminal to character input must not discard them)."""
    t = Terminal(served.env(tmp_path / "eve.json"), "play", "--bot", "1", "--ruleset", "classic",
                 "--name", "Eve")
    try:
        t.type("help")  # at once: the client is still starting
        t.wait_for(r"play across from H8")
    finally:
        assert t.close() == 0
