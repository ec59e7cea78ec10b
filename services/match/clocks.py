"""Server-side timing: game clocks and per-turn deadlines, enforced by the match server.

Each family's timing comes from its ruleset (``ClockRule``) and the match options:

- a game clock (Word Tiles; Scrabble; classic / War of Words when a table sets one): the
  remaining time of every seat is stored with each event (``after`` ``clocks``, see
  ``Runtime.charged_clocks``); a seat whose clock runs out times out — in Scrabble only once it
  has run ``max_overtime`` past zero; until then its time over goes to the engine with every
  action (``Runtime.overtime``), which takes the overtime penalty off at the game's end;
- a per-turn deadline (classic, War of Words; ``Runtime.turn_deadline``): classic times the seat
  out when it passes; in War of Words the others may then kick it (``KickIdlePlayer``);
- a first-move deadline (``MatchOptions.no_show_timeout``, ``Runtime.no_show_deadline``), any
  family: a seat that has not made a move of its own by then did not show and is timed out.

After every commit the manager re-arms the timer of the seat to move (``arm``). When it fires,
under the match's lock, and the game has not moved on, the seat's ``TimeOut`` is committed like
any other action. ``expire`` applies a time-out that is already due before a player's own turn
is handled (and on rebuild, for time that ran out while no server owned the match). Game time is
``wallclock``'s, so tests can run it on a fake clock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from wordarena.engine.game import Action, TimeOut
from wordarena.services.common import logs
from wordarena.services.common.errors import ServiceError
from wordarena.services.match import wallclock
from wordarena.services.match.runtime import Runtime

log = logs.get_logger(__name__)

#: Commits an action on a match whose lock is held (``MatchManager.commit``).
Commit = Callable[[Runtime, Action], Awaitable[Any]]
#: A clock this close to its limit has run out (timers wake a little early or late).
SLACK = 0.01


def time_out_at(rt: Runtime) -> float | None:
    """When the server times the seat to move out (None: never, as things stand): its game
    clock's end (plus the maximum overtime in Scrabble), or its per-turn deadline in a family
    without Kick Idle Player (classic)."""
    if rt.state.over or rt.status != "in-progress":
        return None
    seat = rt.state.to_move
    due: list[float] = []
    if rt.clocks is not None:
        limit = rt.ruleset.clock.max_overtime if rt.overtime_allowed else 0
        due.append(rt.turn_start + rt.clocks[seat] + limit)
    deadline = rt.turn_deadline(seat)
    if deadline is not None and not rt.ruleset.idle_kick:
        due.append(deadline)
    no_show = rt.no_show_deadline(seat)
    if no_show is not None:
        due.append(no_show)
    return min(due, default=None)


def disarm(rt: Runtime) -> None:
    """Stop the match's clock timer."""
    if rt.timer is not None:
        rt.timer.cancel()
        rt.timer = None


def arm(rt: Runtime, commit: Commit) -> None:
    """(Re)start the timer of the seat to move (matches in progress with a time-out due)."""
    disarm(rt)
    due = time_out_at(rt)
    if due is None:
        return
    seat, seq = rt.state.to_move, rt.seq

    def fire() -> None:
        # The timer becomes a task only when it fires; until then ``rt.timer`` is the loop's
        # timer handle (a turn re-arms it: a task per turn cost more than the rest of arming).
        rt.timer = asyncio.create_task(_timer(rt, seat, seq, commit))

    rt.timer = wallclock.call_later(max(due - wallclock.now(), 0.0), fire)


async def _timer(rt: Runtime, seat: int, seq: int, commit: Commit) -> None:
    async with rt.lock:
        if rt.seq != seq or rt.state.over or rt.state.to_move != seat or rt.status != "in-progress":
            return
        due = time_out_at(rt)
        if due is None:
            return
        if due - wallclock.now() > SLACK:
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
    due = time_out_at(rt)
    if due is not None and due - wallclock.now() <= 0.0:
        await commit(rt, TimeOut(rt.state.to_move))
