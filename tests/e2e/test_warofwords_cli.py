"""A person plays War of Words against a bot on the terminal (``wordarena play`` in a
pseudo-terminal against a real ``wordarena serve``): they put an action tile on the board with
the CLI's notation (``8H WORD + A1 @bomb`` or ``A1 @bomb``), swap an action tile away
(``swap @fire``), read the legend, the combat log, the chat history and their record, try to
kick the bot (refused in plain words), see a hostile chat refused and markup shown as typed, and resign
("GAME OVER (Wanda resigned)"). A Pass and Play game on a known deal (``--deal-seed``) puts down
every action tile kind and moves a Rain and a Whirlwind (``C3>E5``)."""

from __future__ import annotations

import itertools
import json
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest
import wow_script
from e2e_helpers import ROOT, Served, best_move, cli, cli_json, serving
from e2e_helpers import read_raw as pump
from google.protobuf import json_format

from wordarena.clients.cli import actions, moves
from wordarena.clients.cli.client import Client, Config
from wordarena.v1 import common_pb2

pytestmark = pytest.mark.slow

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
HOSTILE = "hi \x1b]52;c;SGFja2Vk\x07 \x1b[2J \u202eevil\u202c zero\u200bwidth [red]x[/red]"
MARKUP = "zero [red]x[/red] wp"
UNPLACEABLE = {"@pirate", "@quicksand"}  # need Water / Sand, which the default board lacks


def rack_tokens(view: dict) -> list[str]:
    """The action tiles on the viewer's rack as tokens (``@bomb``)."""
    out = []
    for t in view.get("rack", {}).get("tiles", []):
        if t.get("action"):
            out.append(actions.token(common_pb2.ActionKind.Value(t["action"]), t.get("action_factor", 0)))
    return out


def letters_only(view: dict) -> dict:
    """The view with the rack's action tiles left out (the move oracle knows letters only)."""
    copy = dict(view)
    copy["rack"] = {"tiles": [t for t in view.get("rack", {}).get("tiles", []) if not t.get("action")]}
    return copy


def free_square(view: dict, avoid: set[tuple[int, int]]) -> str:
    """An empty square near a corner, not among ``avoid``."""
    board = json_format.ParseDict(view["board"], common_pb2.BoardView())
    taken = {(sq.square.row, sq.square.col) for sq in board.squares
             if sq.HasField("tile") or sq.scenery or sq.hidden}
    for r, c in ((0, 0), (0, 14), (14, 0), (14, 14), (1, 1), (13, 13), (0, 7), (14, 7)):
        if (r, c) not in taken | avoid:
            return f"{'ABCDEFGHIJKLMNO'[c]}{r + 1}"
    raise AssertionError("no free square")


def with_facing(token: str) -> str:
    return token + ":left" if token == "@blaster" else token


def test_a_war_of_words_player_places_and_swaps_action_tiles(served: Served, tmp_path: Path) -> None:
    config = tmp_path / "wanda.json"
    child = pexpect.spawn(sys.executable, ["-m", "wordarena.clients.cli.main", "play", "--bot", "1",
                                           "--ruleset", "warofwords", "--name", "Wanda"],
                          cwd=str(ROOT), env=served.env(config), encoding="utf-8", timeout=60,
                          dimensions=(70, 130))
    raw = ""

    def screen() -> str:
        return ANSI.sub("", raw)

    def wait_my_turn(match_id: str) -> dict:
        nonlocal raw
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            raw += pump(child)
            view = cli_json(served, config, "state", match_id)
            if view.get("status") == "MATCH_STATUS_FINISHED":
                pytest.fail(f"the game ended early:\n{screen()[-3000:]}")
            if view.get("to_move_seat") in view.get("controlled_seats", []):
                return view
        pytest.fail(f"never my turn:\n{screen()[-3000:]}")

    def send_turn(match_id: str, line: str, seq: int) -> bool:
        """Type a turn; True once the server took it (False when it was refused)."""
        nonlocal raw
        mark = len(raw)
        child.sendline(line)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            raw += pump(child)
            if int(cli_json(served, config, "state", match_id).get("last_seq", 0)) > seq:
                return True
            if "✗" in ANSI.sub("", raw[mark:]):
                raw += pump(child, 1.0)
                return int(cli_json(served, config, "state", match_id).get("last_seq", 0)) > seq
        return False

    try:
        child.expect(r"Match (m_\w+)", timeout=60)
        match_id = child.match.group(1)
        child.expect("your move > |waiting", timeout=60)
        placed = swapped = ""
        for _turn in range(40):
            if placed and swapped:
                break
            view = wait_my_turn(match_id)
            seq = int(view.get("last_seq", 0))
            tokens = rack_tokens(view)
            usable = [t for t in tokens if t not in UNPLACEABLE]
            word = best_move(letters_only(view))
            if not placed and usable:
                board = json_format.ParseDict(view["board"], common_pb2.BoardView())
                squares = ({(p.square.row, p.square.col) for p in moves.play_placements(board, word)}
                           if word else set())
                part = f"{free_square(view, squares)} {with_facing(usable[0])}"
                child.sendline(f"preview {part}")  # an action tile is previewed like any play
                child.expect("Preview: no word \\(action tiles only\\) = 0|Not legal", timeout=30)
                # A word and an action tile in one play; the action tile alone if that is refused.
                if (word and send_turn(match_id, f"{word} + {part}", seq)) or send_turn(match_id, part, seq):
                    placed = usable[0]
                else:
                    pytest.fail(f"{part!r} was refused:\n{screen()[-3000:]}")
            elif placed and not swapped and tokens:
                assert send_turn(match_id, f"swap {tokens[0]}", seq), screen()[-3000:]
                swapped = tokens[0]
            elif not send_turn(match_id, word or "pass", seq):
                assert send_turn(match_id, "pass", seq), screen()[-3000:]
        assert placed and swapped, f"no action tile came in 40 turns:\n{screen()[-3000:]}"
        raw += pump(child, 1.0)
        # The move log names the tile as it is typed; the swap too.
        assert placed.split(":")[0] in screen(), screen()[-3000:]
        assert f"({swapped})" in screen(), screen()[-3000:]  # "You swapped 1 tile (TOKEN)"

        # The legend explains the board's symbols; help shows the action-tile notation.
        child.sendline("legend")
        child.expect("Legend:", timeout=30)
        child.expect("a plain square", timeout=30)
        child.sendline("help")
        child.expect(re.escape("H8 @blaster:right"), timeout=30)
        # The combat log and the chat history; the player's record; a kick refused in words.
        child.sendline("log")
        child.expect("Combat log", timeout=30)
        child.sendline("bag")  # every kind named once, action tiles by their tokens
        child.expect(r"Unseen \(\d+; \d+ in the bag\): .*@\w+×\d", timeout=30)
        child.sendline("hindsight")
        child.expect(r"Your last turn: \d+ legal play", timeout=30)
        child.sendline("record")
        child.expect(r"Wanda \(p_", timeout=30)
        child.sendline("kick Bot 1")
        child.expect("✗", timeout=30)

        # A hostile chat (sent by the same player from a script) is refused by the server, its
        # refusal printed harmlessly; markup in an allowed chat is shown as typed, not applied.
        refused = cli(served, config, "chat", match_id, HOSTILE, check=False)
        assert refused.returncode == 2 and "control or format characters" in refused.stderr
        assert not any(ch in refused.stdout + refused.stderr for ch in ("\x1b", "\x07", "\u202e"))
        cli(served, config, "chat", match_id, MARKUP)
        mark = len(raw)
        deadline = time.monotonic() + 30
        while "zero" not in ANSI.sub("", raw[mark:]) and time.monotonic() < deadline:
            raw += pump(child)
        child.sendline("chat")
        child.expect("Chat", timeout=30)
        raw += pump(child, 1.0)
        shown = raw[mark:]
        assert "[red]x[/red]" in ANSI.sub("", shown)
        history = cli_json(served, config, "log", match_id, "--chat")
        assert [e["chat"]["text"] for e in history["events"] if "chat" in e] == [MARKUP]

        # Resigning ends the game, and the result says who resigned.
        seq = int(cli_json(served, config, "state", match_id).get("last_seq", 0))
        child.sendline("resign")
        child.sendline("yes")  # the screen asks to confirm
        for _ in range(100):
            raw += pump(child, 0.3)
            if "GAME OVER" in screen():
                break
        final = screen()[screen().rfind("GAME OVER"):]
        assert final.startswith("GAME OVER (Wanda resigned)"), screen()[-3000:]
        assert int(cli_json(served, config, "state", match_id)["last_seq"]) > seq
        child.sendline("quit")
        child.expect(pexpect.EOF, timeout=30)
    except (pexpect.TIMEOUT, pexpect.EOF) as exc:
        seen = screen() + ANSI.sub("", child.before or "")
        pytest.fail(f"{type(exc).__name__}; screen so far:\n{seen[-4000:]}")
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


@pytest.fixture(scope="module")
def served_dealt(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A ``wordarena serve`` whose matches deal from ``wow_script.DEAL_SEED`` (operator flag)."""
    yield from serving(tmp_path_factory.mktemp("dealt"), "--deal-seed", str(wow_script.DEAL_SEED))


def test_a_pass_and_play_war_of_words_game_uses_every_action_tile_kind(served_dealt: Served,
                                                                        tmp_path: Path) -> None:
    """A person plays both seats of a Pass and Play War of Words game on the Dune Sea in the
    terminal, typing the turns of ``wow_script.plan``: every action tile kind goes down (the
    Blaster with its facing, the Portal pair, Quicksand on Sand, the Pirate Ship on Water),
    a Rain and a Whirlwind are moved as part of a play (``C3>E5``, previewed first), and a move
    alone is refused in plain words. The stream of the match, read with the CLI, shows every
    ActionKind among the placements and both moves."""
    served = served_dealt
    script = wow_script.plan(wow_script.DEAL_SEED)
    assert script.done(), "the deal seed no longer gives every kind: pick another (wow_script)"
    config = tmp_path / "pat.json"
    child = pexpect.spawn(sys.executable, ["-m", "wordarena.clients.cli.main", "play", "--create",
                                           "--pass-and-play", "--seats", str(wow_script.SEATS),
                                           "--ruleset", "warofwords", "--board", wow_script.BOARD,
                                           "--name", "Pat"],
                          cwd=str(ROOT), env=served.env(config), encoding="utf-8", timeout=60,
                          dimensions=(70, 130))
    raw = ""

    def screen(since: int = 0) -> str:
        return ANSI.sub("", raw[since:])

    clients: list[Client] = []

    def last_seq(match_id: str) -> int:
        """The match's seq as Pat's client reads it (GetMatch through the client the CLI uses, in
        this process: polled after each line typed, a ``wordarena state`` process each time
        cost most of the test's time)."""
        if not clients:  # once the terminal has signed Pat in
            clients.append(Client(served.lobby, config=Config.load(config)))
        return int(clients[0].get_match(match_id).last_seq)

    def typed(match_id: str, line: str) -> bool:
        """Type a turn; True once the server took it, False when the screen shows a refusal."""
        nonlocal raw
        seq, mark = last_seq(match_id), len(raw)
        child.sendline(line)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            raw += pump(child)
            if last_seq(match_id) > seq:
                return True
            if "✗" in screen(mark):
                return False
        return False

    drawn = 0
    try:
        child.expect(r"Match (m_\w+)", timeout=60)
        match_id = child.match.group(1)
        for line, shifted in zip(script.lines, script.moved, strict=True):
            if shifted:
                move = line.split(" + ")[-1]
                # Moving alone is not a turn: refused, nothing changes.
                seq, mark = last_seq(match_id), len(raw)
                child.sendline(move)
                child.expect("alone is not a turn", timeout=30)
                raw += child.before + child.after + pump(child)
                assert last_seq(match_id) == seq
                # The play with its move is previewed like any play.
                child.sendline(f"preview {line}")
                child.expect("Preview: ", timeout=30)
                raw += child.before + pump(child)
                assert "Not legal" not in screen(mark), screen(mark)
            assert typed(match_id, line), f"{line!r} was refused:\n{screen()[-3000:]}"
            drawn += lasting_effects_are_drawn(served, config, match_id)
        raw += pump(child, 1.0)
        assert "@quicksand" in screen() and "@blaster" in screen()
        child.sendline("log")
        child.expect("Combat log", timeout=30)
        child.sendline("quit")
        child.expect(pexpect.EOF, timeout=30)
    except (pexpect.TIMEOUT, pexpect.EOF) as exc:
        seen = screen() + ANSI.sub("", child.before or "")
        pytest.fail(f"{type(exc).__name__}; screen so far:\n{seen[-4000:]}")
    finally:
        child.close(force=True)
        for client in clients:
            client.close()

    # What the server recorded, read back with the CLI's stream: every kind, both moves.
    out = cli(served, config, "stream", match_id, "--after", "0", "--idle", "3", "--json").stdout
    events = [json.loads(text) for text in out.splitlines() if text.strip()]
    plays = [ev["turn_played"] for ev in events if "turn_played" in ev]
    put = {p["action"] for play in plays for p in play.get("placements", []) if p.get("action")}
    every = {name for name in common_pb2.ActionKind.keys() if name != "ACTION_KIND_UNSPECIFIED"}  # noqa: SIM118
    assert put == every, sorted(every - put)
    moved = {mv["effect_id"].split("@")[0] for play in plays for mv in play.get("effect_moves", [])}
    assert moved == {"rain", "whirlwind"}
    # The CLI's move log writes the moves as they are typed (C3>E5).
    text = cli(served, config, "stream", match_id, "--after", "0", "--idle", "3").stdout
    typed_moves = [line.split(" + ")[-1] for line, shifted in zip(script.lines, script.moved, strict=True)
                   if shifted]
    assert all(f" + {move} for " in text for move in typed_moves), (typed_moves, text[-2000:])
    # Issue 41 items 1 and 4: the lasting effects were drawn where the board view put them, and
    # the log says what happened (before: "placed at H8", "moved at H7", "expired at J9",
    # "fire-spread", each line once per player whose score moved).
    assert drawn, "no lasting effect lay on the board during the scripted game"
    bare = re.compile(r"^\s*\d+ (clouds|[a-z-]+ at [A-O]\d+(: [+-]\d+)?|fire-spread.*|- for \d+)( \(.*\))?$")
    assert not [line for line in text.splitlines() if bare.match(line)], text[-3000:]
    for kind in ("moved", "ended"):
        assert re.search(rf"(Rain|Whirlwind|Fire|Medic|Poison|Quicksand|Black Hole)[^\n]* {kind}\b", text), \
            (kind, text[-3000:])
    logged = cli(served, config, "log", match_id, "--all", "--limit", "200").stdout.splitlines()
    said = [line.split("  ", 2)[-1].strip() for line in logged[1:]]
    assert all(a != b for a, b in itertools.pairwise(said)), logged


#: Effect names as docs/warofwords.md gives them (the test's own words, not the CLI's table).
TITLES = {"ACTION_KIND_FIRE": "Fire", "ACTION_KIND_RAIN": "Rain", "ACTION_KIND_WHIRLWIND": "Whirlwind",
          "ACTION_KIND_MEDIC": "Medic", "ACTION_KIND_POISON": "Poison", "ACTION_KIND_QUICKSAND": "Quicksand",
          "ACTION_KIND_BLACK_HOLE": "Black Hole", "ACTION_KIND_NUCLEAR_BOMB": "Nuclear Bomb",
          "ACTION_KIND_SHIELD": "Shield", "ACTION_KIND_SANDSTORM": "Sandstorm",
          "ACTION_KIND_LIGHTNING": "Lightning", "ACTION_KIND_PIRATE_SHIP": "Pirate Ship",
          "ACTION_KIND_PORTAL": "Portal", "ACTION_KIND_STAR": "Star", "ACTION_KIND_BOMB": "Bomb",
          "ACTION_KIND_BLASTER": "Blaster", "ACTION_KIND_LETTER_MULTIPLIER": "multiplier",
          "ACTION_KIND_WORD_MULTIPLIER": "multiplier"}


def lasting_effects_are_drawn(served: Served, config: Path, match_id: str) -> int:
    """Each effect ``state --json`` lists is drawn by ``state`` on its square (not a plain
    square) and named under the board with its square; the number of effects checked."""
    view = cli_json(served, config, "state", match_id)
    listed = view["board"].get("effects", [])
    if not listed:
        return 0
    text = ANSI.sub("", cli(served, config, "state", match_id).stdout)
    cols = "ABCDEFGHIJKLMNO"
    for eff in listed:
        row, col = eff["origin"].get("row", 0), eff["origin"].get("col", 0)
        name = f"{cols[col]}{row + 1}"
        # a board row is "NNN " and three characters a square (docs/cli.md, Board symbols)
        line = next(t for t in text.splitlines() if t.startswith(f"{row + 1:>3} "))
        cell = line[4 + 3 * col:7 + 3 * col].strip()
        named = re.search(rf"^\s*(\S+)\s+{TITLES[eff['action']]} at {name}\b", text, re.M)
        assert named, f"{eff['action']} at {name} not named under the board:\n{text}"
        # its symbol on its square, or the letter that lies there (on the effect's colour)
        assert cell == named.group(1) or (len(cell) == 1 and cell.isalpha()), \
            f"{eff['action']} at {name} drawn as {cell!r}:\n{text}"
    return len(listed)
