"""The match server's time: wall-clock seconds (``now``), a monotonic clock (``monotonic``) and
timers (``call_later``), for game clocks, per-turn deadlines and idle kicks, aborts, orphans'
waits, the result outbox's schedule and the analysis budgets. One module, so that a test can run
matches on a fake clock by replacing them (``tests/service/match/fake_clock.py``, with
:func:`on_sleep`). Only what other servers read too keeps the real time: leases and their
renewal (``leases``, ``store``) and the lobby tokens' expiry (``lobby_link``)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol


def now() -> float:
    """Seconds since the epoch."""
    return time.time()


def monotonic() -> float:
    """Seconds on a clock that never goes back (rate limits' buckets)."""
    return time.monotonic()


class Cancellable(Protocol):
    """What ``call_later`` returns: an ``asyncio.TimerHandle``, or a task."""

    def cancel(self) -> Any: ...


def call_later(delay: float, fn: Callable[[], Any]) -> Cancellable:
    """Call ``fn`` (from the event loop) after ``delay`` seconds of game time: the loop's own
    timer (no task: the match server re-arms a timer on every turn). A game clock that is not
    the real one replaces this too, with :func:`on_sleep` of its own ``sleep``."""
    return asyncio.get_running_loop().call_later(delay, fn)


CallLater = Callable[[float, Callable[[], Any]], Cancellable]


def on_sleep(sleep_fn: Callable[[float], Awaitable[None]]) -> CallLater:
    """A ``call_later`` for another game clock: ``fn`` runs after ``sleep_fn(delay)``, in a task."""

    def later(delay: float, fn: Callable[[], Any]) -> Cancellable:
        async def wait_then_call() -> None:
            await sleep_fn(delay)
            fn()

        return asyncio.get_running_loop().create_task(wait_then_call())

    return later
