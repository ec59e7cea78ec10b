"""The game clocks' timer: after every commit the manager re-arms the timer of the seat to move
(``arm``); when it fires, under the match's lock and while the game has not moved on, the core
decides the seat's time-out (``core.decide.expire_due``) and the manager stores it like any other
decision. ``expire`` has a time-out already due decided before a player's own turn is handled (and
on rebuild, for time that ran out while no server owned the match). When a seat times out is the
core's (``core.timing``); game time is ``wallclock``'s, so tests can run it on a fake clock."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from wordarena.services.common import logs
from wordarena.services.common.errors import ServiceError
from wordarena.services.match import wallclock
from wordarena.services.match.core import Decision, Expire, decide, timing
from wordarena.services.match.core.decide import expire_due
from wordarena.services.match.runtime import Runtime

log = logs.get_logger(__name__)

#: Stores a decision on a match whose lock is held (``MatchManager.settle``).
Settle = Callable[[Runtime, Decision | None], Awaitable[Any]]


def time_out_at(rt: Runtime) -> float | None:
    """When the server times the seat to move out (``timing.time_out_at``)."""
    return timing.time_out_at(rt)


def disarm(rt: Runtime) -> None:
    """Stop the match's clock timer."""
    if rt.timer is not None:
        rt.timer.cancel()
        rt.timer = None


def arm(rt: Runtime, settle: Settle) -> None:
    """(Re)start the timer of the seat to move (matches in progress with a time-out due)."""
    disarm(rt)
    due = time_out_at(rt)
    if due is None:
        return
    seat, seq = rt.state.to_move, rt.seq

    def fire() -> None:
        # The timer becomes a task only when it fires; until then ``rt.timer`` is the loop's
        # timer handle (a turn re-arms it: a task per turn cost more than the rest of arming).
        rt.timer = asyncio.create_task(_timer(rt, seat, seq, settle))

    rt.timer = wallclock.call_later(max(due - wallclock.now(), 0.0), fire)


async def _timer(rt: Runtime, seat: int, seq: int, settle: Settle) -> None:
    async with rt.lock:
        if rt.seq != seq or rt.state.over or rt.state.to_move != seat or rt.status != "in-progress":
            return
        decided = expire_due(rt.snapshot(), wallclock.now())
        if decided is None:  # woke early: not due yet (or no longer)
            arm(rt, settle)
            return
        logs.bind(match_id=rt.match_id)
        log.info("clock ran out", seat=seat)
        try:
            await settle(rt, decided)
        except ServiceError as exc:  # pragma: no cover - logged
            log.warning("timeout not stored", error=exc.message)


async def expire(rt: Runtime, settle: Settle) -> None:
    """Store the time-out of the seat to move if its time is up (call with the lock held). The
    match is snapshot for the core only when a time-out is due: not on every turn's path."""
    now = wallclock.now()
    due = time_out_at(rt)
    if due is None or due > now:
        return
    decided = decide(rt.snapshot(), Expire(now))
    if isinstance(decided, Decision):
        await settle(rt, decided)
