"""What a new user reads (issue 41, item 9), each command a separate process (or the game screen
in a pseudo-terminal) against a real ``wordarena serve``: counts in the right number (``1 tile``,
``1 entry``), Hindsight in words and each opening play once (not at its four mirror positions),
no War of Words notation suggested in a classic game, and a resignation confirmed first.

The expected rows come from outside the CLI: the plays from the test's own move generator on the
player's ``state --json`` (``e2e_helpers.legal_plays``)."""

from __future__ import annotations

import re
from pathlib import Path

import pexpect
import pytest
from e2e_helpers import Served, cli, cli_json, legal_plays
from terminal import Terminal, state, wait_turn

pytestmark = pytest.mark.slow

ROW = re.compile(r"^\s*\d+\. (\S+(?: / \S+)*) (\S+)\s+(\d+)(?:  leave (.+))?$")


def classic_game(served: Served, config: Path, name: str) -> tuple[str, dict]:
    cli(served, config, "login", "--name", name)
    match_id = cli_json(served, config, "table", "create", "--ruleset", "classic", "--bot", "1",
                        "--wait")["match"]["match_id"]
    return match_id, wait_turn(served, config, match_id)


def test_hindsight_on_the_opening_lists_each_play_once_in_words(served: Served, tmp_path: Path) -> None:
    me = tmp_path / "hana.json"
    match_id, view = classic_game(served, me, "Hana")
    assert not any("tile" in sq for sq in view["board"].get("squares", [])), "the table's creator opens"
    opening = legal_plays(view)  # every opening play, by the test's own generator
    cli(served, me, "pass", match_id)
    out = cli(served, me, "hindsight", match_id, "--limit", "5").stdout.splitlines()
    # Before: "Turn at seq 2: 258 legal plays", then H4 ADORN, 8D ADORN, 8H ADORN, H8 ADORN on
    # rows of their own.
    assert out[0] == f"Your last turn: {len(opening)} legal plays"
    rows = [ROW.match(line) for line in out[1:]]
    assert rows and all(rows), out
    shown = [(m.group(2), int(m.group(3)), m.group(4)) for m in rows if m]
    assert len(shown) == len(set(shown)) and 1 <= len(shown) <= 5, out
    # Each row's positions are where the generator finds that word for that score (all those
    # Hindsight returned: a bingo's dozen ties may be more than the rows asked for); a blank's
    # letter may be written in lower case by either.
    def same(generated: str, shown_word: str) -> bool:  # a long word is cut to fit its column
        g, w = generated.upper(), shown_word.upper()
        return g == w or (w.endswith("...") and g.startswith(w[:-3]))

    for row in rows:
        assert row is not None
        listed = set(row.group(1).split(" / "))
        at = {n.split()[0] for s, n in opening if s == int(row.group(3)) and same(n.split()[1], row.group(2))}
        assert listed <= at, (out, row.group(0), at)
    # Without a blank the top word is one play at several places (the board's symmetry), shown
    # once; with one, the top rows are as many words (the blank as each letter), each once.
    if not any(t.get("is_blank") for t in view.get("rack", {}).get("tiles", [])):
        assert rows[0] and len(rows[0].group(1).split(" / ")) > 1, out


def test_counts_and_classic_notation_in_words(served: Served, tmp_path: Path) -> None:
    me = tmp_path / "cleo.json"
    match_id, view = classic_game(served, me, "Cleo")
    cli(served, me, "chat", match_id, "hello")
    assert "Chat (1 entry):" in cli(served, me, "log", match_id, "--chat").stdout  # was "(1 entries)"
    # A classic game is not told about action tiles: neither in a refusal of a play it cannot
    # read, nor by sending @bomb to the server.
    before = state(served, me, match_id)["last_seq"]
    garbled = cli(served, me, "move", match_id, "8H", check=False)
    assert garbled.returncode == 2 and "8H WORD" in garbled.stderr
    assert "@" not in garbled.stderr and "Rain" not in garbled.stderr, garbled.stderr
    bomb = cli(served, me, "move", match_id, "H8 @bomb", check=False)
    assert bomb.returncode == 2 and "War of Words only" in bomb.stderr, bomb.stderr
    assert state(served, me, match_id)["last_seq"] == before, "nothing was sent"
    # One tile swapped is "1 tile".
    letter = next(t.get("letter") or "?" for t in view["rack"]["tiles"])
    swapped = cli(served, me, "swap", match_id, letter).stdout
    assert re.search(r"Cleo swapped 1 tile\b(?!s)", swapped), swapped


def test_resign_is_confirmed_first_by_script_and_on_the_screen(served: Served, tmp_path: Path) -> None:
    me = tmp_path / "rex.json"
    match_id, _ = classic_game(served, me, "Rex")
    # A script that does not say --yes resigns nothing (before: the game was over at once).
    refused = cli(served, me, "resign", match_id, check=False)
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert cli(served, me, "move", match_id, "resign", check=False).returncode == 2
    assert "result" not in state(served, me, match_id)

    term = Terminal(served.env(me), "play", "--match", match_id)
    try:
        term.wait_for("your move > ")
        since = term.mark()
        term.type("help")  # classic: no action tiles in the help
        term.wait_for(r"refresh\s+redraw", since=since)
        help_text = term.text[since:]
        assert "@bomb" not in help_text and "C3>E5" not in help_text, help_text
        since = term.mark()
        term.type("resign")
        term.wait_for(r"resign\? yes / no > ", since=since)
        since = term.mark()
        term.type("no")
        term.wait_for(r"Not resigned: the game goes on", since=since)
        assert "result" not in state(served, me, match_id)
        since = term.mark()
        term.type("resign")
        term.wait_for(r"resign\? yes / no > ", since=since)
        term.type("yes")
        term.wait_for(r"GAME OVER \(Rex resigned\)", since=since)
        term.type("quit")
        term.child.expect(pexpect.EOF, timeout=20)
    finally:
        assert term.close() == 0
    assert state(served, me, match_id)["result"]
    # --yes resigns from a script (a second match: this one is over).
    other, _ = classic_game(served, tmp_path / "rex2.json", "Rexa")
    done = cli(served, tmp_path / "rex2.json", "resign", other, "--yes")
    assert "Rexa resigned" in done.stdout
