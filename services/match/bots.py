"""Bot seats: the engine's computer players (``engine.bots.Bot``), levels 1..6 as the contract's
``SeatAssignment.bot_level`` defines them (1 beginner … 5 strong, 6 champion: simulation within
the seat's ``bot_think_ms``, default 1.5 s).

``choose`` (``botprocess``) is blocking (move generation, simulation) and is run by the match
manager on its bounded pool of bot worker processes (``MatchManager.think``, ``botworkers``:
apart from the analysis threads, so a thinking bot never delays Hindsight or Word Strength nor
holds the event loop's GIL, and at most ``bot_workers`` bots think at once), never on the event
loop. The bot's random choices are seeded from the match seed, the seat and the turn, so a bot's
decision is repeatable for a given position. In Word Tiles a bot seat that must decide on a
pending play accepts or checks it (the engine's ``Bot`` decides: levels 3+ check words they do
not know).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import Any, Protocol

from wordarena.engine.bots import LEVELS
from wordarena.engine.game import Action, Exchange, GameState, Pass
from wordarena.services.common import logs
from wordarena.services.common.errors import ServiceError
from wordarena.services.match.botprocess import choose
from wordarena.services.match.runtime import Runtime

__all__ = ["LEVELS", "Host", "choose", "play_turn", "safe_action"]

log = logs.get_logger(__name__)


def safe_action(state: GameState, seat: int) -> Action:
    """What a bot does when its chosen action is refused (which would be an engine bug): exchange
    the whole rack when the rules allow it, else pass."""
    rule = state.ruleset.exchange
    rack = state.racks[seat]
    used = state.exchanges[seat] if state.exchanges else 0
    if (state.pending is None and rack and len(state.bag) >= max(rule.min_bag, len(rack))
            and (rule.per_player is None or used < rule.per_player)):
        return Exchange(seat, tuple(rack))
    return Pass(seat)


class Host(Protocol):
    """What a bot's turn needs of the match manager."""

    bot_delay: float

    def think(self, state: GameState, seat: int, level: int, think_ms: int) -> Awaitable[Action]: ...

    def holds(self, rt: Runtime) -> bool: ...

    async def commit(self, rt: Runtime, action: Action | None) -> Any: ...

    def start_turn(self, rt: Runtime) -> None: ...


async def play_turn(host: Host, rt: Runtime) -> None:
    """Let the bot to move play (or decide on a pending play). The move is generated in a worker
    process without holding the match's lock; it is committed only if the game has not changed
    meanwhile (chat does not count)."""
    try:
        if host.bot_delay:
            await asyncio.sleep(host.bot_delay)
        await asyncio.sleep(0)
        state = rt.state
        if state.over or not rt.bot_seat(state.to_move) or rt.status != "in-progress":
            return
        seat = state.to_move
        try:
            info = rt.seats[seat]
            action = await host.think(state, seat, info.bot_level, info.bot_think_ms)
        except Exception as exc:  # an engine bug must not stop the match
            log.error("bot failed to choose", match_id=rt.match_id, seat=seat, error=repr(exc))
            action = safe_action(state, seat)
        async with rt.lock:
            if rt.state is not state or not host.holds(rt):
                return  # the game moved on (e.g. a timeout; or it was aborted or lost)
            try:
                await host.commit(rt, action)
            except ServiceError as exc:
                log.warning("bot move refused", match_id=rt.match_id, seat=seat, error=exc.message)
                with contextlib.suppress(ServiceError):
                    await host.commit(rt, safe_action(rt.state, seat))
    finally:
        if rt.bot_task is asyncio.current_task():
            rt.bot_task = None
    # The commit above could not start the next bot (this task was still running): do it now.
    if not rt.state.over and rt.bot_seat(rt.state.to_move) and host.holds(rt):
        host.start_turn(rt)
