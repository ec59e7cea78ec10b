"""Orphan matches (finding 4), with a real lobby and match server processes: a lobby killed
while allocating leaves matches created on the match server that no lobby records (reproduced
here by calling CreateMatch as that lobby had, then never telling a player). The match server
aborts such a match once no seated player has called about it for ``--orphan-timeout`` seconds
(counted again from a restart's take-over), frees its capacity, and does not take it over
again after the next restart; a match whose player calls is kept."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from wordarena.services.common import auth
from wordarena.services.common.errors import detail
from wordarena.services.match.main import parse_ready_line
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import control_pb2_grpc, match_pb2_grpc
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m

# the store is what this proves: on SQLite and PostgreSQL (tests/conftest.py)
pytestmark = pytest.mark.database

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "orphan-secret"
SERVICE = [("authorization", f"Bearer {TOKEN}")]
ORPHAN_TIMEOUT = 3.0


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def lobby(tmp_path: Path) -> Iterator[str]:
    port = _free_port()
    env = _env(tmp_path) | {
        "WORDARENA_LISTEN": f"127.0.0.1:{port}",
        "WORDARENA_SERVER_ID": "lobby-o",
        "WORDARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'lobby.db'}",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "wordarena.services.lobby.main"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            grpc.channel_ready_future(ch).result(timeout=60)
        yield f"127.0.0.1:{port}"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)


def _env(tmp: Path) -> dict[str, str]:
    env = os.environ | {
        "WORDARENA_SERVICE_TOKEN": TOKEN,
        "WORDARENA_DATA_DIR": str(tmp),
        "WORDARENA_SHUTDOWN_GRACE": "1",
        "WORDARENA_LOG_FORMAT": "json",
    }
    for k in ("WORDARENA_TOKEN_PUBLIC_KEY", "WORDARENA_TOKEN_PRIVATE_KEY", "WORDARENA_REQUIRE_KEYS"):
        env.pop(k, None)
    return env


def _match_server(tmp: Path, lobby: str) -> tuple[subprocess.Popen[str], int]:
    env = _env(tmp) | {
        "WORDARENA_LISTEN": "127.0.0.1:0",
        "WORDARENA_SERVER_ID": "match-o",
        "WORDARENA_DATABASE_URL": f"sqlite:///{tmp / 'match.db'}",
        "WORDARENA_ORPHAN_TIMEOUT": str(ORPHAN_TIMEOUT),
        "WORDARENA_LOBBY": lobby,
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "wordarena.services.match.main"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    ready = parse_ready_line(proc.stdout.readline())
    assert ready is not None
    return proc, ready[0]


def _create(ch: grpc.Channel, match_id: str, players: tuple[str, str]) -> None:
    control_pb2_grpc.MatchControlServiceStub(ch).CreateMatch(
        ctl.CreateMatchRequest(
            match_id=match_id,
            ruleset=c.RulesetRef(ruleset_id="classic"),
            seed=7,
            seats=[
                ctl.SeatAssignment(index=i, player=c.Player(player_id=p, display_name=p.title()))
                for i, p in enumerate(players)
            ],
        ),
        metadata=SERVICE,
    )


def _active(ch: grpc.Channel) -> int:
    load = control_pb2_grpc.MatchControlServiceStub(ch).GetLoad(ctl.GetLoadRequest(), metadata=SERVICE)
    return load.load.active_matches


def test_a_match_no_player_comes_to_is_aborted_and_not_taken_over_again(tmp_path: Path, lobby: str) -> None:
    proc, port = _match_server(tmp_path, lobby)
    keys = auth.load_token_keys(tmp_path)
    md = {p: [("authorization", f"Bearer {keys.issue(p, p.title(), 600)}")] for p in ("alice", "carol")}
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            _create(ch, "orphan-1", ("alice", "bob"))  # the allocation the killed lobby never recorded
            _create(ch, "kept-1", ("carol", "dave"))  # a match its player comes to
            assert _active(ch) == 2
        # the match server restarts (kill -9) before the orphan's time is up: taken over again
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc, port = _match_server(tmp_path, lobby)
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            stub = match_pb2_grpc.MatchServiceStub(ch)
            deadline = time.monotonic() + 10 * ORPHAN_TIMEOUT
            while _active(ch) > 1 and time.monotonic() < deadline:
                stub.GetMatch(m.GetMatchRequest(match_id="kept-1"), metadata=md["carol"])
                time.sleep(0.3)
            assert _active(ch) == 1, "the orphan was never aborted"
            assert stub.GetMatch(m.GetMatchRequest(match_id="kept-1"), metadata=md["carol"]).match.match_id
            with pytest.raises(grpc.RpcError) as ei:
                stub.GetMatch(m.GetMatchRequest(match_id="orphan-1"), metadata=md["alice"])
            assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert detail(ei.value, e.RuleViolation).code == e.RULE_CODE_MATCH_ABORTED
        # after the next restart it is not taken over again: only the kept match runs
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
        proc, port = _match_server(tmp_path, lobby)
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            assert _active(ch) == 1
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=20)
