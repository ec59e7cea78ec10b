"""A match server whose PostgreSQL database stops answering (a restart, a cut link, a transaction
the database ended because the server was frozen longer than ``idle_in_transaction_session_timeout``)
refuses what needs the database with UNAVAILABLE and a retry hint, logs a warning (an outage the
cluster rides out is not a server bug) and serves again once the database is back. Found by
tests/e2e/test_cluster_failover.py: a match server resumed after SIGSTOP answered the lobby's
CreateMatch with UNKNOWN and logged the unexpected exception as an error."""

from __future__ import annotations

import logging
from typing import Any

import grpc
import pytest
import structlog
from google.rpc import error_details_pb2
from match_harness import Harness, client_move

from wordarena.services.common.errors import detail
from wordarena.v1 import errors_pb2 as e

pytestmark = pytest.mark.postgres


@pytest.fixture
def database_url(postgres_database: str) -> str:
    return postgres_database


async def test_create_match_while_the_database_is_down_is_unavailable_and_retryable(
    harness: Harness, database_outage: Any, caplog: pytest.LogCaptureFixture
) -> None:
    srv = await harness.start()
    await harness.create(srv, match_id="before")  # the server works, its pool holds connections
    caplog.set_level(logging.INFO)  # gRPC logs a handler's unexpected exception through logging
    database_outage.start()
    with structlog.testing.capture_logs() as logged, pytest.raises(grpc.aio.AioRpcError) as refused:
        await harness.create(srv, match_id="during")
    err = refused.value
    assert err.code() == grpc.StatusCode.UNAVAILABLE, (err.code(), err.details())
    assert err.details() == "the database is unavailable; retry shortly"  # not the driver's text
    assert detail(err, error_details_pb2.RetryInfo) is not None
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    errors += [str(r) for r in logged if r["log_level"] in ("error", "critical")]
    assert not errors, errors
    warned = [r for r in logged if r["log_level"] == "warning" and "database unavailable" in r["event"]]
    assert warned and "not currently accepting connections" in warned[0]["error"]

    database_outage.end()
    assert await harness.create(srv, match_id="during") == "during"  # the retry succeeds
    alice = harness.player(srv, "alice")
    assert (await alice.view("during")).last_seq >= 1


async def test_a_turn_while_the_database_is_down_is_refused_and_its_retry_counts_once(
    harness: Harness, database_outage: Any
) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=7)
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    database_outage.start()
    with structlog.testing.capture_logs() as logged, pytest.raises(grpc.aio.AioRpcError) as refused:
        await alice.submit(mid, client_move(view), view.last_seq, request_id="turn-1")
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE, refused.value.details()
    assert "retry with the same request_id" in (refused.value.details() or "")
    assert detail(refused.value, e.MatchMoved) is not None
    assert not [r for r in logged if r["log_level"] in ("error", "critical")], logged

    database_outage.end()
    played = await alice.submit(mid, client_move(view), view.last_seq, request_id="turn-1")
    again = await alice.submit(mid, client_move(view), view.last_seq, request_id="turn-1")
    assert played == again  # the retry's answer, not a second turn
    after = await alice.view(mid)
    assert after.last_seq == played.last_seq == view.last_seq + len(played.events)
    assert [ev.seq for ev in played.events] == list(range(view.last_seq + 1, played.last_seq + 1))
