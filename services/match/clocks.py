"""Server-side clocks: the remaining time of every seat is stored with each event (``after``
``clocks``, see ``Runtime.charged_clocks``); this module times the seat to move out.

After every commit the manager re-arms the timer of the seat to move (``arm``). When it fires,
under the match's lock, and the game has not moved on, the seat's ``TimeOut`` is committed like
any other action. ``expire`` applies a time-out that is already due before a player's own turn
is handled (and on rebuild, for time that ran out while no server owned the match).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from wordarena.engine.game import Action, TimeOut
from wordarena.services.common import logs
from wordarena.services.common.errors import ServiceError
from wordarena.services.match.runtime import Runtime

log = logs.get_logger(__name__)

#: Commits an action on a match whose lock is held (``MatchManager.commit``).
Commit = Callable[[Runtime, Action], Awaitable[Any]]
#: A clock this close to zero has run out (timers wake a little early or late).
SLACK = 0.01


def disarm(rt: Runtime) -> None:
    """Stop the match's clock timer."""
    if rt.timer is not None:
        rt.timer.cancel()
        rt.timer = None


def arm(rt: Runtime, commit: Commit) -> None:
    """(Re)start the timer of the seat to move (timed matches in progress only)."""
    disarm(rt)
    if rt.clocks is None or rt.state.over:
        return
    seat = rt.state.to_move
    rt.timer = asyncio.create_task(_timer(rt, seat, rt.seq, rt.clock_remaining(seat) or 0.0, commit))


async def _timer(rt: Runtime, seat: int, seq: int, delay: float, commit: Commit) -> None:
    await asyncio.sleep(delay)
    async with rt.lock:
        if rt.seq != seq or rt.state.over or rt.state.to_move != seat or rt.status != "in-progress":
            return
        if (rt.clock_remaining(seat) or 0.0) > SLACK:
            arm(rt, commit)
            return
        logs.bind(match_id=rt.match_id)
        log.info("clock ran out", seat=seat)
        try:
            await commit(rt, TimeOut(seat))
        except ServiceError as exc:  # pragma: no cover - logged
            log.warning("timeout not stored", error=exc.message)


async def expire(rt: Runtime, commit: Commit) -> None:
    """Commit a TimeOut now if the seat to move has run out (call with the lock held)."""
    if rt.clocks is None or rt.state.over:
        return
    seat = rt.state.to_move
    if (rt.clock_remaining(seat) or 0.0) <= 0.0:
        await commit(rt, TimeOut(seat))
