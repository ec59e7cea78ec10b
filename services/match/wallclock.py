"""The match server's game time: wall-clock seconds (``now``) and waiting (``sleep``), for game
clocks, per-turn deadlines and idle kicks. One module, so that a test can run matches on a fake
clock by replacing both (``tests/service/match/fake_clock.py``)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol


def now() -> float:
    """Seconds since the epoch."""
    return time.time()


async def sleep(delay: float) -> None:
    """Wait ``delay`` seconds of game time."""
    await asyncio.sleep(delay)


class Cancellable(Protocol):
    """What ``call_later`` returns: an ``asyncio.TimerHandle``, or a task."""

    def cancel(self) -> Any: ...


_real_sleep = sleep


def call_later(delay: float, fn: Callable[[], Any]) -> Cancellable:
    """Call ``fn`` (from the event loop) after ``delay`` seconds of game time. On the real clock
    this is the loop's own timer (no task: the match server re-arms a timer on every turn); when
    a test has replaced ``sleep`` (a fake clock), it waits with that ``sleep`` in a task."""
    loop = asyncio.get_running_loop()
    if sleep is _real_sleep:
        return loop.call_later(delay, fn)

    async def later() -> None:
        await sleep(delay)
        fn()

    return loop.create_task(later())
