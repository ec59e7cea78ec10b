"""Background asyncio tasks of a service."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any

__all__ = ["cancel_and_wait"]


async def cancel_and_wait(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Cancels the tasks and waits until each has ended (on stop: nothing left running)."""
    pending = list(tasks)
    for t in pending:
        t.cancel()
    for t in pending:
        with contextlib.suppress(asyncio.CancelledError):
            await t
