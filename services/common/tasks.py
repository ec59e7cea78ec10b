"""Background asyncio tasks of a service, and locks by key."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from typing import Any

__all__ = ["KeyedLocks", "cancel_and_wait"]


async def cancel_and_wait(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Cancels the tasks and waits until each has ended (on stop: nothing left running)."""
    pending = list(tasks)
    for t in pending:
        t.cancel()
    for t in pending:
        with contextlib.suppress(asyncio.CancelledError):
            await t


class KeyedLocks:
    """One ``asyncio.Lock`` per key, held only while someone holds or awaits it: a key's lock
    goes when its last user leaves, so keys asked about once (an unknown match id, say) leave
    nothing behind."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    def __len__(self) -> int:
        """Keys whose lock is held or awaited now."""
        return len(self._locks)

    @contextlib.asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        """Holds ``key``'s lock for the ``async with`` block."""
        lock, users = self._locks.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._locks[key]
