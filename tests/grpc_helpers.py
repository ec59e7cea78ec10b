"""gRPC helpers every test folder may import (``tests/`` is on ``sys.path``)."""

from __future__ import annotations

from collections.abc import Awaitable

import grpc
import pytest


async def refused(call: Awaitable[object]) -> grpc.aio.AioRpcError:
    """The error ``call`` (an awaited RPC) is refused with; the test fails if it succeeds."""
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await call
    return exc.value
