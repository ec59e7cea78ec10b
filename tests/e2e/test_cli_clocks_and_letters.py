"""The match screen in a pseudo-terminal shows each family's timing (Scrabble's game clock,
classic's per-turn deadline, a first-move deadline) and a preview with a blank's letter in lower
case, as the board shows it. The matches are made with a chosen seed on a match server of the
test's own (the lobby hands out random seeds); the CLI signs in at the ``served`` lobby, whose
token keys the test's match server shares."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pexpect
import pytest
from e2e_helpers import ROOT, Served, cli, cli_json, free_port, legal_plays, read_raw
from google.protobuf.duration_pb2 import Duration

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import control_pb2_grpc

pytestmark = pytest.mark.slow

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
TOKEN = "clock-test-service-token"


@pytest.fixture(scope="module")
def own_match_server(served: Served, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A match server of the test's own (no lobby link), sharing the lobby's token keys."""
    data = tmp_path_factory.mktemp("own-match")
    address = f"127.0.0.1:{free_port()}"
    env = dict(os.environ, WORDARENA_SERVICE_TOKEN=TOKEN)
    out = open(data / "match.out", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "-m", "wordarena.services.match.main", "--listen", address,
         "--data-dir", str(served.data_dir), "--database-url", f"sqlite:///{data / 'match.db'}",
         "--server-id", "clock-test"],
        cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        channel = grpc.insecure_channel(address)
        grpc.channel_ready_future(channel).result(timeout=60)
        channel.close()
        yield address
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        out.close()


def create_match(address: str, player_id: str, ruleset: str, seed: int,
                 clock: c.ClockSettings | None = None, first: tuple[str, str] | None = None,
                 no_show: Duration | None = None) -> str:
    """A match from ``seed`` of ``player_id`` as Tess against a level-1 bot, or after ``first``
    (player id, name) sitting at seat 0; ``no_show``: its first-move deadline."""
    match_id = "m_" + uuid.uuid4().hex[:10]
    tess = c.Player(player_id=player_id, display_name="Tess")
    seats = ([ctl.SeatAssignment(index=0, player=c.Player(player_id=first[0], display_name=first[1])),
              ctl.SeatAssignment(index=1, player=tess)] if first else
             [ctl.SeatAssignment(index=0, player=tess), ctl.SeatAssignment(index=1, bot_level=1)])
    with grpc.insecure_channel(address) as channel:
        control_pb2_grpc.MatchControlServiceStub(channel).CreateMatch(ctl.CreateMatchRequest(
            match_id=match_id, ruleset=c.RulesetRef(ruleset_id=ruleset), seed=seed, seats=seats,
            options=c.MatchOptions(clock=clock or c.ClockSettings(), no_show_timeout=no_show)),
            metadata=[("authorization", f"Bearer {TOKEN}")])
    return match_id


def sign_in(served: Served, config: Path, name: str = "Tess") -> str:
    """Sign in as ``name`` at the lobby; the player id."""
    cli(served, config, "login", "--name", name)
    return str(next(iter(json.loads(config.read_text())["profiles"].values()))["player_id"])


def remember(config: Path, address: str, *match_ids: str) -> None:
    """The config remembers where the test's matches are played (the lobby does not know)."""
    raw = json.loads(config.read_text())
    next(iter(raw["profiles"].values()))["matches"].update({mid: address for mid in match_ids})
    config.write_text(json.dumps(raw))


def screen_of(served: Served, config: Path, match_id: str) -> pexpect.spawn:
    child = pexpect.spawn(sys.executable, ["-m", "wordarena.clients.cli.main", "play", "--match",
                                           match_id], cwd=str(ROOT), env=served.env(config),
                          encoding="utf-8", timeout=60, dimensions=(60, 110))
    child.expect("your move > ", timeout=60)
    return child


def shown(child: pexpect.spawn, seconds: float = 1.0) -> str:
    return ANSI.sub("", read_raw(child, seconds))


def test_screen_shows_the_game_clock_the_turn_deadlines_and_a_blank_in_lower_case(
        served: Served, own_match_server: str, tmp_path: Path) -> None:
    config = tmp_path / "tess.json"
    player = sign_in(served, config)
    classic = create_match(own_match_server, player, "classic", seed=3,  # a blank on Tess's rack
                           clock=c.ClockSettings(idle_kick_after=Duration(seconds=2 * 86400)))
    scrabble = create_match(own_match_server, player, "scrabble", seed=4, no_show=Duration(seconds=600))
    remember(config, own_match_server, classic, scrabble)

    view = cli_json(served, config, "state", classic)
    play = next(notation for _, notation in legal_plays(view)
                if any(ch.islower() for ch in notation.split()[1]))
    child = screen_of(served, config, classic)
    try:
        screen = shown(child)
        assert re.search(r"⌛ turn due in [12]d \d\dh", screen), screen[-2000:]
        assert "⏱" not in screen  # classic: no game clock unless the table sets one
        child.sendline(f"preview {play}")
        child.expect("Preview: ", timeout=30)
        line = ANSI.sub("", child.readline())
        word = play.split()[1]  # as typed: the blank's letter in lower case
        assert line.startswith(f"{word} "), (play, line)
        child.sendline("quit")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close(force=True)

    child = screen_of(served, config, scrabble)
    try:
        screen = shown(child)
        assert re.search(r"▶ Tess.*⏱ 2[45]:\d\d", screen), screen[-2000:]
        assert re.search(r"Bot 1.*⏱ 25:00", screen), screen[-2000:]
        # the first-move deadline beside the seat to move, not the bot's
        due = r"▶ Tess.*⌛ first move due in (10:00|9:\d\d) — a no-show forfeits"
        assert re.search(due, screen), screen[-2000:]
        assert not re.search(r"Bot 1.*first move", screen), screen[-2000:]
        assert "turn due" not in screen  # scrabble: a game clock, no per-turn deadline
        child.sendline("quit")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close(force=True)


def test_screen_words_name_players_and_blanks_read_lower_case(
        served: Served, own_match_server: str, tmp_path: Path) -> None:
    """Issue 13's smaller wording items, each seen on the terminal: leaving the table menu says
    Bye (no error); "not your turn" names the player to move and is gone once the turn passes;
    strength calls the best play the best play; the log writes a blank in lower case; a
    resignation's GAME OVER names who resigned."""
    tess_config, uma_config = tmp_path / "tess.json", tmp_path / "uma.json"
    menu = pexpect.spawn(sys.executable, ["-m", "wordarena.clients.cli.main", "play", "--name",
                                          "Tessa"], cwd=str(ROOT), env=served.env(tess_config),
                         encoding="utf-8", timeout=60, dimensions=(60, 110))
    menu.expect("or x to leave", timeout=60)
    menu.sendline("x")
    menu.expect(pexpect.EOF, timeout=30)
    assert "Bye" in menu.before and "Error" not in menu.before, menu.before
    menu.close()

    tess = sign_in(served, tess_config, "Wren")  # seat named Tess; "Tess" signed in above
    uma = sign_in(served, uma_config, "Uma")
    match_id = create_match(own_match_server, tess, "classic", seed=2, first=(uma, "Uma"))
    remember(tess_config, own_match_server, match_id)
    remember(uma_config, own_match_server, match_id)
    child = pexpect.spawn(sys.executable, ["-m", "wordarena.clients.cli.main", "play", "--match",
                                           match_id], cwd=str(ROOT), env=served.env(tess_config),
                          encoding="utf-8", timeout=60, dimensions=(60, 110))
    try:
        child.expect("waiting \\(commands still work\\) > ", timeout=60)
        child.sendline("pass")
        child.expect("It is not your turn: Uma is to move", timeout=30)
        shown(child)
        cli(served, uma_config, "pass", match_id)
        child.expect("Uma passed", timeout=30)
        after = shown(child, 1.5)
        assert "not your turn" not in after, after[-2000:]

        view = cli_json(served, tess_config, "state", match_id)
        play = next(notation for _, notation in legal_plays(view)
                    if any(ch.islower() for ch in notation.split()[1]))
        best = legal_plays(view)[0][1]
        child.sendline(f"strength {best}")
        child.expect(r"; (tied for )?the best play", timeout=30)
        child.sendline(play)
        child.expect(re.escape(f"Tess: {play} for "), timeout=30)
        child.sendline("resign")  # asks first: a resignation is a loss
        child.expect(r"resign\? yes / no > ", timeout=30)
        child.sendline("yes")
        child.expect(r"GAME OVER \(Tess resigned\)", timeout=30)
        child.sendline("quit")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close(force=True)
