"""A match server that dies between a match's final commit and queueing its result, and never
comes back: nobody takes a finished match over, so another running match server's periodic sweep
queues the result and the lobby records it (once).

Found by tests/e2e/test_cluster_failover.py: a turn that ended a match was committed just before
its server was killed; only that server's restart (its start-up sweep) reported the result.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from lobby_harness import eventually

from wordarena.clients.cli.client import Client, Config
from wordarena.services.common.config import Settings
from wordarena.services.lobby.main import build_lobby
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.match.main import MatchServer
from wordarena.services.match.main import start as start_match
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import lobby_pb2
from wordarena.v1 import match_pb2 as m

# the store is what this proves: on SQLite and PostgreSQL (tests/conftest.py)
pytestmark = pytest.mark.database


async def _match_server(database_url: str, data_dir: Path, lobby_port: int, server_id: str) -> MatchServer:
    settings = Settings(
        service="match",
        listen="127.0.0.1:0",
        advertise_address="127.0.0.1:0",
        data_dir=data_dir,
        database_url=database_url,
        server_id=server_id,
        shutdown_grace=0.5,
        extra={
            "lobby": f"127.0.0.1:{lobby_port}",
            "lease_seconds": 30.0,
            "report_retry_base": 0.05,
            "report_retry_max": 0.3,
            "result_sweep_seconds": 0.5,
        },
    )
    return await start_match(settings)


async def test_a_result_its_dead_server_never_queued_reaches_the_lobby(
    database_url: str, tmp_path: Path
) -> None:
    settings = Settings(service="lobby", listen="127.0.0.1:0", database_url=database_url, data_dir=tmp_path)
    server, lobby, db = await build_lobby(
        settings,
        LobbyOptions(
            password_time_cost=1, password_memory_kib=1024, matchmaking_tick_s=0.05, heartbeat_interval_s=0.2
        ),
    )
    await lobby.start()
    lobby_port = await server.start()
    srv_a = await _match_server(database_url, tmp_path, lobby_port, "ms-a")
    srv_b: MatchServer | None = None
    client = Client(f"127.0.0.1:{lobby_port}", config=Config(tmp_path / "cli.json"))
    try:
        await eventually(lambda: _healthy(lobby, 1), timeout=30)

        def start() -> tuple[str, int]:
            client.sign_in_guest("Rhea")
            table = client.create_table(
                lobby_pb2.TableSettings(
                    ruleset=c.RulesetRef(ruleset_id="classic", language="en"),
                    seats=2,
                    bots=[lobby_pb2.BotSeat(seat=1, bot_level=1)],
                    start_policy=lobby_pb2.START_POLICY_HOST,
                ),
                seat=0,
            )
            client.start_table(table.table_id)
            where = client.wait_for_match(table.table_id)
            return where.match_id, where.seat

        mid, seat = await asyncio.to_thread(start)
        srv_b = await _match_server(database_url, tmp_path, lobby_port, "ms-b")  # its start-up sweep: nothing
        # A dies right after committing the match's end, before it queues the result.
        srv_a.manager.on_finished = None

        def resign() -> None:
            deadline = time.monotonic() + 30
            while client.get_match(mid).to_move_seat != seat:
                assert time.monotonic() < deadline, "the bot did not move"
                time.sleep(0.05)
            client.submit(mid, c.Move(resign=c.ResignMove()))
            assert client.get_match(mid).status == m.MATCH_STATUS_FINISHED

        await asyncio.to_thread(resign)
        await srv_a.stop(0.2)

        def recorded() -> list[Any]:
            return [
                s
                for s in client.my_matches(lobby_pb2.MATCH_LIST_STATE_FINISHED)
                if s.assignment.match_id == mid
            ]

        async def in_the_lobby() -> bool:
            return bool(await asyncio.to_thread(recorded))

        await eventually(in_the_lobby, timeout=30)
        (summary,) = await asyncio.to_thread(recorded)
        assert summary.outcome == c.OUTCOME_LOSS
        record = await asyncio.to_thread(client.player_record, "", "classic")
        assert sum(r.games for r in record.records) == 1
    finally:
        client.close()
        if srv_b is not None:
            await srv_b.stop(0.2)
        await server.stop(0.2)
        db.close()


async def _healthy(lobby: Any, n: int) -> bool:
    return (await lobby.update_server_gauges())["healthy"] == n
