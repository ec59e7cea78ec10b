"""A lobby whose PostgreSQL database stops answering refuses what needs it with UNAVAILABLE and a
retry hint (not INTERNAL with an error logged: an outage is not a lobby bug), never shows the
client the driver's text (host, database name), and serves again once the database is back."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import grpc
import pytest
import structlog
from google.rpc import error_details_pb2
from lobby_harness import start_lobby, stop_lobby

from wordarena.services.common.errors import detail
from wordarena.v1 import lobby_pb2

pytestmark = pytest.mark.postgres


async def test_sign_in_while_the_database_is_down_is_unavailable_and_retryable(
    postgres_database: str, database_outage: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    env = await start_lobby(postgres_database, tmp_path)
    try:
        await env.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name="Before"))
        caplog.set_level(logging.INFO)
        database_outage.start()
        with structlog.testing.capture_logs() as logged, pytest.raises(grpc.aio.AioRpcError) as refused:
            await env.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name="During"))
        err = refused.value
        assert err.code() == grpc.StatusCode.UNAVAILABLE, (err.code(), err.details())
        assert err.details() == "the database is unavailable; retry shortly"
        assert detail(err, error_details_pb2.RetryInfo) is not None
        errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        errors += [str(r) for r in logged if r["log_level"] in ("error", "critical")]
        assert not errors, errors
        assert [r for r in logged if r["log_level"] == "warning" and "database unavailable" in r["event"]]

        database_outage.end()
        back = await env.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name="During"))
        assert back.player.display_name == "During"
    finally:
        await stop_lobby(env)
