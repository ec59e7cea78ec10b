"""A match server dies; another takes its match over and the lobby sends the players there.

Two match servers on one database and a lobby. Match server A (a real ``wordarena-match``
process, lease 1 s) gets the match; the reference CLI client (``clients.cli.client.Client``)
plays a turn there. A is killed with SIGKILL (its lease is not released). Match server B
(in-process) finds the expired lease, takes the match over from the event log, and reports the
new location to the lobby (``ReportMatchLocation`` through its lobby link). The lobby's
``LocateMatch`` and ``ListMyMatches`` then name B, and the client — whose remembered address is
A's, now dead — follows ``LocateMatch`` and plays on at B, where the bot answers.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from lobby_harness import eventually
from metric_samples import counted

from wordarena.clients.cli.client import Client, Config
from wordarena.services.common.config import Settings
from wordarena.services.lobby.main import build_lobby
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.match import metrics
from wordarena.services.match.main import MatchServer, parse_ready_line
from wordarena.services.match.main import start as start_match
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import lobby_pb2, lobby_pb2_grpc
from wordarena.v1 import match_pb2 as m

# the store is what this proves: on SQLite and PostgreSQL (tests/conftest.py)
pytestmark = pytest.mark.database

ROOT = Path(__file__).resolve().parents[3]
PASS = c.Move(pass_turn=c.PassMove())



def spawn_match_server(database_url: str, data_dir: Path, lobby_port: int, server_id: str,
                       lease: float) -> tuple[subprocess.Popen[str], int]:
    """A ``wordarena-match`` process reporting to the lobby; returns it and its port."""
    env = dict(os.environ)
    for k in ("WORDARENA_TOKEN_PUBLIC_KEY", "WORDARENA_TOKEN_PRIVATE_KEY", "WORDARENA_SERVICE_TOKEN",
              "WORDARENA_REQUIRE_KEYS", "WORDARENA_NO_MIGRATE"):
        env.pop(k, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "wordarena.services.match.main", "--listen", "127.0.0.1:0",
         "--advertise-address", "127.0.0.1:0", "--database-url", database_url, "--data-dir", str(data_dir),
         "--server-id", server_id, "--lease-seconds", str(lease), "--lobby", f"127.0.0.1:{lobby_port}",
         "--log-format", "json", "--log-level", "warning"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    ready = parse_ready_line(proc.stdout.readline())
    assert ready is not None, "match server did not start"
    return proc, ready[0]


async def start_in_process(database_url: str, data_dir: Path, lobby_port: int, server_id: str,
                           lease: float) -> MatchServer:
    settings = Settings(service="match", listen="127.0.0.1:0", advertise_address="127.0.0.1:0",
                        data_dir=data_dir, database_url=database_url, server_id=server_id,
                        shutdown_grace=0.5,
                        extra={"lobby": f"127.0.0.1:{lobby_port}", "lease_seconds": lease,
                               "report_retry_base": 0.05, "report_retry_max": 0.3})
    return await start_match(settings)


def _my_turn(client: Client, match_id: str, seat: int, timeout: float = 30.0) -> Any:
    """Wait (through the client, following moves) until it is ``seat``'s turn."""
    deadline = time.monotonic() + timeout
    while True:
        view = client.get_match(match_id)
        if view.to_move_seat == seat and view.status == m.MATCH_STATUS_IN_PROGRESS:
            return view
        assert time.monotonic() < deadline, "the bot did not move"
        time.sleep(0.05)


async def test_takeover_is_reported_and_the_client_follows(database_url: str, tmp_path: Path) -> None:
    settings = Settings(service="lobby", listen="127.0.0.1:0", database_url=database_url, data_dir=tmp_path)
    server, lobby, db = await build_lobby(settings, LobbyOptions(
        password_time_cost=1, password_memory_kib=1024, matchmaking_tick_s=0.05, heartbeat_interval_s=0.2))
    await lobby.start()
    lobby_port = await server.start()
    proc_a, port_a = spawn_match_server(database_url, tmp_path, lobby_port, "ms-a", lease=1.0)
    srv_b: MatchServer | None = None
    client = Client(f"127.0.0.1:{lobby_port}", config=Config(tmp_path / "cli.json"))
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{lobby_port}")
    stub = lobby_pb2_grpc.LobbyServiceStub(channel)
    try:
        await eventually(lambda: _healthy(lobby, 1), timeout=30)

        def open_and_play() -> tuple[str, int, int]:
            client.sign_in_guest("Tess")
            table = client.create_table(lobby_pb2.TableSettings(
                ruleset=c.RulesetRef(ruleset_id="classic", language="en"), seats=2,
                bots=[lobby_pb2.BotSeat(seat=1, bot_level=1)], start_policy=lobby_pb2.START_POLICY_HOST),
                seat=0)
            client.start_table(table.table_id)
            where = client.wait_for_match(table.table_id)
            assert where.address == f"127.0.0.1:{port_a}"
            _my_turn(client, where.match_id, where.seat)
            client.submit(where.match_id, PASS)
            seq = _my_turn(client, where.match_id, where.seat).last_seq  # the bot answered on A
            return where.match_id, where.seat, seq

        mid, seat, seq = await asyncio.to_thread(open_and_play)
        md = [("authorization", f"Bearer {client.profile.token}")]
        takeovers = counted(metrics.RECOVERIES, reason="takeover")

        # Server B joins; A dies without releasing its lease.
        srv_b = await start_in_process(database_url, tmp_path, lobby_port, "ms-b", lease=1.0)
        assert mid not in srv_b.manager.matches  # A's lease is alive: B leaves the match alone
        proc_a.send_signal(signal.SIGKILL)
        proc_a.wait(10)

        address_b = f"127.0.0.1:{srv_b.port}"

        async def located_at_b() -> bool:
            r = await stub.LocateMatch(lobby_pb2.LocateMatchRequest(match_id=mid), metadata=md)
            return r.assignment.address == address_b

        await eventually(located_at_b, timeout=30)
        assert mid in srv_b.manager.matches
        assert counted(metrics.RECOVERIES, reason="takeover") == takeovers + 1
        link = srv_b.link
        assert link is not None

        async def acknowledged() -> bool:  # the lobby answered before B forgets the report
            return mid not in link.locations

        await eventually(acknowledged, timeout=30)
        listed = await stub.ListMyMatches(lobby_pb2.ListMyMatchesRequest(
            state=lobby_pb2.MATCH_LIST_STATE_ACTIVE), metadata=md)
        assert [(s.assignment.match_id, s.assignment.address) for s in listed.matches] == [(mid, address_b)]

        def play_on() -> int:
            # The client still remembers A; A refuses connections, so it asks LocateMatch.
            assert client.profile.matches[mid] == f"127.0.0.1:{port_a}"
            client.submit(mid, PASS, expected_seq=seq)
            assert client.profile.matches[mid] == address_b
            return _my_turn(client, mid, seat).last_seq  # and the bot answers on B

        seq_b = await asyncio.to_thread(play_on)
        assert seq_b >= seq + 2
        assert srv_b.manager.matches[mid].seq == seq_b
    finally:
        client.close()
        await channel.close()
        if proc_a.poll() is None:
            proc_a.kill()
            proc_a.wait(10)
        if srv_b is not None:
            await srv_b.stop(0.2)
        await server.stop(0.2)
        db.close()


async def _healthy(lobby: Any, n: int) -> bool:
    return (await lobby.update_server_gauges())["healthy"] == n
