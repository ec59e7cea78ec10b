"""``wordarena serve`` and the servers it starts live and die together, and it reports READY only
for its own servers (issue 38, item 3): after a kill -9 of ``serve`` its lobby and match server
ran on (orphans, in sessions of their own), and a new ``serve`` on the same ports printed READY
because its readiness check reached the orphaned lobby while its own servers could not bind."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from e2e_helpers import ROOT, WORDARENA, alive, descendants, free_port
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from wordarena.clients.cli.serve_cmd import ForeignServer, check_own_match_server, wait_own_lobby

pytestmark = pytest.mark.slow


def _serve(data: Path, lobby: str, match: str) -> subprocess.Popen:
    with open(data / "serve.out", "w") as out:
        return subprocess.Popen(
            [*WORDARENA, "serve", "--data-dir", str(data), "--lobby-listen", lobby, "--match-listen",
             match, "--bot-delay", "0"], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)


def _ready_or_exit(proc: subprocess.Popen, data: Path, timeout: float = 120) -> str:
    """What ``serve`` printed once it printed READY or exited (whichever first)."""
    deadline = time.monotonic() + timeout
    while True:
        text = (data / "serve.out").read_text()
        if "READY" in text or proc.poll() is not None:
            return text
        assert time.monotonic() < deadline, f"serve neither became ready nor exited: {text}"
        time.sleep(0.2)


def _wait_gone(pids: set[int], timeout: float = 30) -> set[int]:
    """Those of ``pids`` still running after waiting up to ``timeout`` for them to end."""
    deadline = time.monotonic() + timeout
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive(pids)


def _stop(proc: subprocess.Popen, servers: set[int] | None = None) -> None:
    """Stop ``serve`` (gracefully: it stops its servers) and whatever of ``servers`` is left."""
    servers = (servers or set()) | descendants(proc.pid)
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for p in alive(servers):
        os.kill(p, signal.SIGKILL)


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().partition("=")[::2] for item in raw if b"=" in item)


def test_the_servers_end_when_serve_is_killed_with_sigkill(tmp_path: Path) -> None:
    lobby, match = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    proc = _serve(tmp_path, lobby, match)
    servers: set[int] = set()
    try:
        out = _ready_or_exit(proc, tmp_path)
        assert "READY" in out, out
        servers = descendants(proc.pid)
        commands = {(Path(f"/proc/{p}/cmdline").read_bytes()) for p in servers}
        assert any(b"services.lobby.main" in c for c in commands), commands
        assert any(b"services.match.main" in c for c in commands), commands
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        left = _wait_gone(servers)
        assert not left, f"serve's servers outlived it: {left}"
    finally:
        _stop(proc, servers)


@pytest.fixture
def foreign_server() -> Iterator[str]:
    """Another process's gRPC server (health: SERVING) on a loopback port: an earlier serve's
    orphan, say, or anything else."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(0)


@pytest.mark.parametrize("held", ["lobby", "match"])
def test_serve_on_a_port_another_server_holds_exits_with_a_clear_message_not_ready(
    tmp_path: Path, foreign_server: str, held: str
) -> None:
    lobby = foreign_server if held == "lobby" else f"127.0.0.1:{free_port()}"
    match = foreign_server if held == "match" else f"127.0.0.1:{free_port()}"
    proc = _serve(tmp_path, lobby, match)
    try:
        out = _ready_or_exit(proc, tmp_path)
        assert "READY" not in out, out
        assert proc.wait(timeout=30) != 0
        assert f"{foreign_server} (" in out and "is in use by another process" in out, out
        flag = "--lobby-listen" if held == "lobby" else "--match-listen"
        assert flag in out, out
    finally:
        _stop(proc)


def test_the_readiness_checks_accept_only_servers_that_know_this_runs_token(tmp_path: Path) -> None:
    """The check behind READY, against the servers of another serve: they answer, but not to a
    token they were not given (an address taken between the port check and the start)."""
    lobby, match = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    proc = _serve(tmp_path, lobby, match)
    try:
        out = _ready_or_exit(proc, tmp_path)
        assert "READY" in out, out
        with pytest.raises(ForeignServer):
            wait_own_lobby(lobby, "another-runs-token", timeout=20)
        with pytest.raises(ForeignServer):
            check_own_match_server(match, "another-runs-token")
        lobby_pid = next(p for p in descendants(proc.pid)
                         if b"services.lobby.main" in Path(f"/proc/{p}/cmdline").read_bytes())
        token = _environ(lobby_pid)["WORDARENA_SERVICE_TOKEN"]
        assert wait_own_lobby(lobby, token, timeout=20)
        check_own_match_server(match, token)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
