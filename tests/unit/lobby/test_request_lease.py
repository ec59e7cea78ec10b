"""Idempotent replay with leased claims (``services.lobby.api.requests.Replay``) on SQLite: a
request running longer than the lease keeps its claim by renewing it, so a concurrent repeat
waits for its answer instead of running it a second time; two repeats racing for a dead claim
run the request once."""

from __future__ import annotations

import asyncio
import time

from wordarena.services.common.db import Database
from wordarena.services.lobby.api.requests import Replay
from wordarena.services.lobby.models import RequestRow
from wordarena.v1 import lobby_pb2


async def test_a_long_request_renews_its_claim_and_a_repeat_gets_its_answer(db: Database) -> None:
    # A lease long enough that a loaded machine's stalls (CI shares two cores) never outlast it,
    # and a request three leases long, so it holds its claim only by renewing it.
    replay = Replay(db, lease_s=1.0)
    runs: list[int] = []

    async def make() -> lobby_pb2.SitBotResponse:
        runs.append(1)
        await asyncio.sleep(3.0)  # three leases long
        return lobby_pb2.SitBotResponse(table=lobby_pb2.Table(table_id=f"t{len(runs)}"))

    first = asyncio.create_task(replay("p1", "SitBot", "r1", lobby_pb2.SitBotResponse, make))
    await asyncio.sleep(0.1)
    second = await replay("p1", "SitBot", "r1", lobby_pb2.SitBotResponse, make)
    assert (await first).table.table_id == second.table.table_id == "t1"
    assert len(runs) == 1


async def test_repeats_racing_for_a_dead_claim_run_the_request_once(db: Database) -> None:
    replay = Replay(db, lease_s=5.0)
    db.run_sync(lambda s: s.add(RequestRow(player_id="p1", method="StartTable", request_id="r2",
                                           response=b"\x00", created_at=time.time() - 60)))
    runs: list[int] = []

    async def make() -> lobby_pb2.StartTableResponse:
        runs.append(1)
        await asyncio.sleep(0.2)
        return lobby_pb2.StartTableResponse(table=lobby_pb2.Table(table_id="t"))

    answers = await asyncio.gather(
        *(replay("p1", "StartTable", "r2", lobby_pb2.StartTableResponse, make) for _ in range(5))
    )
    assert {a.table.table_id for a in answers} == {"t"}
    assert len(runs) == 1
