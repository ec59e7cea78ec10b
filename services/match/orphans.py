"""Orphan matches (finding 4): a lobby killed while allocating leaves a match created here that
no lobby records, so no player is ever told of it. It would stay in progress for ever, count
against capacity and be taken over again after every restart.

The match server aborts such a match itself: a running match in which no player has acted yet
(``Runtime.requests`` is empty: the same test as AbortMatch's) and that none of its seated players
has called about (any MatchService call naming it) within ``timeout`` seconds of its creation, or
of its take-over by this server, is aborted as AbortMatch would (reason ``orphaned``). Players
told of a match connect within seconds, so the default (``--orphan-timeout``, 600 s) only ever
catches matches nobody knows of, or that nobody came to. 0 turns it off.
"""

from __future__ import annotations

import asyncio
from typing import Any

from wordarena.services.common import logs
from wordarena.services.common.errors import ServiceError
from wordarena.services.match import wallclock
from wordarena.services.match.runtime import Runtime

__all__ = ["REASON", "note_call", "orphaned", "start", "sweep", "sweep_loop"]

log = logs.get_logger("wordarena.match")

#: The abort reason recorded for an orphan.
REASON = "orphaned: no player came to the match"


def note_call(rt: Runtime, player_id: str, now: float) -> None:
    """A call about ``rt`` by ``player_id``: a seated player's keeps the match alive."""
    if any(s.player_id == player_id and not s.bot for s in rt.seats):
        rt.player_seen = now


def orphaned(rt: Runtime, now: float, timeout: float) -> bool:
    """Whether ``rt`` is an orphan at ``now``: running, with a human seat, nobody has acted,
    and no seated player has called for ``timeout`` seconds (since creation or take-over)."""
    if rt.state.over or rt.status != "in-progress" or rt.requests:
        return False
    if not any(not s.bot for s in rt.seats):
        return False  # bots only: the match plays itself to its end
    return now - max(rt.player_seen, rt.created_at) >= timeout


async def sweep(manager: Any, timeout: float, now: float) -> list[str]:
    """Aborts the orphans held here; returns their ids."""
    aborted = []
    for rt in [rt for rt in manager.matches.values() if orphaned(rt, now, timeout)]:
        try:
            await manager.abort(rt.match_id, REASON)
        except ServiceError as exc:  # a player acted meanwhile, or the match moved: not an orphan
            log.info("orphan kept", match_id=rt.match_id, why=exc.message)
            continue
        log.warning("orphan match aborted", match_id=rt.match_id, after_s=timeout)
        aborted.append(rt.match_id)
    return aborted


def start(manager: Any) -> asyncio.Task[None] | None:
    """The sweep task of ``manager`` (None when its ``orphan_timeout`` is 0)."""
    timeout = float(manager.orphan_timeout)
    return asyncio.create_task(sweep_loop(manager, timeout)) if timeout > 0 else None


async def sweep_loop(manager: Any, timeout: float) -> None:
    """``sweep`` every quarter of ``timeout`` (at most every 30 s), until cancelled."""
    while True:
        await asyncio.sleep(min(30.0, max(0.1, timeout / 4)))
        if manager.draining or manager.closing:
            continue
        try:
            await sweep(manager, timeout, wallclock.now())
        except Exception as exc:  # pragma: no cover - database hiccup: retry next time
            log.warning("orphan sweep failed", error=repr(exc))
