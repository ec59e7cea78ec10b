"""Start-up recovery: health stays NOT_SERVING until the running matches a server can claim are
taken over and replayed, then turns SERVING; recoveries are counted by reason (``restart``: the
same server id owned the match, ``takeover``: another server or nobody did)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from match_harness import Harness
from metric_samples import counted

from wordarena.services.common.config import Settings
from wordarena.services.match import metrics
from wordarena.services.match.main import MatchServer, start
from wordarena.services.match.manager import MatchManager

# the store is what this proves: on SQLite and PostgreSQL (tests/conftest.py)
pytestmark = pytest.mark.database

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _settings(harness: Harness, server_id: str, port: int = 0) -> Settings:
    return Settings(service="match", listen=f"127.0.0.1:{port}", data_dir=harness.data_dir,
                    database_url=harness.database_url, service_token="test-service-secret",
                    shutdown_grace=0.5, server_id=server_id, advertise_address=f"127.0.0.1:{port}",
                    extra={"lease_seconds": 30.0})


async def _crash(srv: MatchServer) -> None:
    """Stop a server the way a crash does: no drain, leases kept."""
    for task in (srv.manager.renewer, srv.manager.scanner):
        if task is not None:
            task.cancel()
    await srv.grpc.server.stop(0)
    await srv.manager.close(release=False)
    srv.db.close()
    srv.grpc._stopping.set()  # the harness leaves it alone


def _count(reason: str) -> float:
    return counted(metrics.RECOVERIES, reason=reason)


async def _status(stub: health_pb2_grpc.HealthStub, service: str = "") -> Any:
    return (await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=2)).status


async def test_not_serving_until_owned_matches_are_recovered(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = await harness.start()
    mid = await harness.create(first)
    await _crash(first)

    # Recovery is held at a gate: the port answers, health says NOT_SERVING.
    gate, at_gate = asyncio.Event(), asyncio.Event()
    recover = MatchManager.start

    async def gated(self: MatchManager) -> None:
        at_gate.set()
        await gate.wait()
        await recover(self)

    monkeypatch.setattr(MatchManager, "start", gated)
    port = _free_port()
    restarts = _count("restart")
    starting = asyncio.create_task(start(_settings(harness, "test-0", port)))
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as ch:
        stub = health_pb2_grpc.HealthStub(ch)
        for _ in range(200):
            try:
                status = await _status(stub)
                break
            except grpc.aio.AioRpcError:
                await asyncio.sleep(0.05)
        else:
            raise AssertionError("the server never listened")
        assert status == NOT_SERVING
        assert await _status(stub, "wordarena.v1.MatchService") == NOT_SERVING
        await asyncio.wait_for(at_gate.wait(), 10)  # recovery has begun and is held
        assert not starting.done() and await _status(stub) == NOT_SERVING

        gate.set()
        srv = await asyncio.wait_for(starting, 30)
        harness.servers.append(srv)
        # SERVING only now, with the match already rebuilt.
        assert mid in srv.manager.matches
        assert await _status(stub) == SERVING
        assert await _status(stub, "wordarena.v1.MatchService") == SERVING
    assert _count("restart") == restarts + 1  # same server id as the crashed owner


async def test_takeover_of_a_crashed_servers_match_is_counted_as_takeover(harness: Harness) -> None:
    first = await harness.start()
    mid = await harness.create(first)
    await _crash(first)
    takeovers, restarts = _count("takeover"), _count("restart")
    other = await harness.start()
    assert other.settings.server_id != first.settings.server_id
    # The crashed owner's lease (30 s) is still running: not taken at start-up.
    assert mid not in other.manager.matches
    # Once it has lapsed, the scan takes it over.
    from wordarena.services.match.models import MatchRow

    def expire(s: Any) -> None:
        row = s.get(MatchRow, mid)
        row.lease_until = 0.0
        s.add(row)

    await other.db.run(expire)
    assert await other.manager.take_over_expired() == 1
    assert mid in other.manager.matches
    assert (_count("takeover"), _count("restart")) == (takeovers + 1, restarts)
    assert await other.manager.take_over_expired() == 0  # held now: nothing more to take


async def test_lost_match_error_names_the_new_owner(harness: Harness) -> None:
    a = await harness.start()
    mid = await harness.create(a)
    b = await harness.start()
    from wordarena.services.match.models import MatchRow

    def steal(s: Any) -> None:  # B takes the match over behind A's back (A's lease "lapsed")
        row = s.get(MatchRow, mid)
        row.owner = f"{b.manager.server_id}|{b.manager.address}"
        s.add(row)

    await b.db.run(steal)
    from match_harness import pass_move

    alice = harness.player(a, "alice")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await alice.submit(mid, pass_move(), expected_seq=(await alice.view(mid)).last_seq)
    assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    from grpc_status import rpc_status

    from wordarena.v1 import errors_pb2 as e

    status = rpc_status.from_call(err.value)
    assert status is not None
    moved = [d for d in status.details if d.Is(e.MatchMoved.DESCRIPTOR)]
    assert moved
    detail = e.MatchMoved()
    moved[0].Unpack(detail)
    assert detail.new_address == b.manager.address


async def test_a_server_that_lost_its_lease_drops_the_match_and_ends_streams(harness: Harness) -> None:
    """The owner could not renew for a while (a pause, a partition) and another server took the
    match over: at its next renewal it notices, forgets the match and ends its streams, rather
    than serving a stale copy until the next write fails."""
    from match_harness import pass_move

    from wordarena.services.match.models import MatchRow
    from wordarena.v1 import match_pb2 as m

    a = await harness.start(lease_seconds=0.6)
    mid = await harness.create(a)
    b = await harness.start()
    alice = harness.player(a, "alice")
    stream = alice.stub.StreamMatch(m.StreamMatchRequest(match_id=mid, after_seq=0), metadata=alice.md)
    first = await stream.read()
    assert first.event.seq == 1

    def steal(s: Any) -> None:
        row = s.get(MatchRow, mid)
        row.owner = f"{b.manager.server_id}|{b.manager.address}"
        s.add(row)

    await b.db.run(steal)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        for _ in range(100):  # heartbeats, until the stream ends
            await asyncio.wait_for(stream.read(), 5)
    assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    assert mid not in a.manager.matches
    # B serves it from the log.
    bob = harness.player(b, "bob")
    view = await bob.view(mid)
    await harness.player(b, "alice").submit(mid, pass_move(), expected_seq=view.last_seq)
