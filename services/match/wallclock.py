"""The match server's game time: wall-clock seconds (``now``) and waiting (``sleep``), for game
clocks, per-turn deadlines and idle kicks. One module, so that a test can run matches on a fake
clock by replacing both (``tests/service/match/fake_clock.py``)."""

from __future__ import annotations

import asyncio
import time


def now() -> float:
    """Seconds since the epoch."""
    return time.time()


async def sleep(delay: float) -> None:
    """Wait ``delay`` seconds of game time."""
    await asyncio.sleep(delay)
