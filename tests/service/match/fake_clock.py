"""A fake game clock for match server tests: replaces ``services.match.wallclock`` so that a
test moves time forward (``advance``) instead of waiting, and the server's clock timers wake
when the fake time reaches them."""

from __future__ import annotations

import asyncio
import time

import pytest

from wordarena.services.match import wallclock


class FakeClock:
    """Game time that moves only when the test says so."""

    def __init__(self, start: float | None = None) -> None:
        self.t = time.time() if start is None else start
        self._wake = asyncio.Event()

    def now(self) -> float:
        return self.t

    async def sleep(self, delay: float) -> None:
        """Wait until the fake time has moved ``delay`` seconds on."""
        target = self.t + delay
        while self.t < target:
            self._wake.clear()
            await self._wake.wait()

    async def advance(self, seconds: float) -> None:
        """Move time on and let the server's timers that are due run."""
        self.t += seconds
        self._wake.set()
        for _ in range(20):  # timers wake, take the match's lock and store their time-outs
            await asyncio.sleep(0.01)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> FakeClock:
        monkeypatch.setattr(wallclock, "now", self.now)
        monkeypatch.setattr(wallclock, "call_later", wallclock.on_sleep(self.sleep))
        return self
