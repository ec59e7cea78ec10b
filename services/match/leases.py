"""Ownership of matches: leases renewed every third of their length, take-over of the running
matches whose owner let its lease lapse (a dead server) or released them (a drained one), and
what a caller is told when a match moved to another server.

The match manager is the ``Holder``: it owns the matches in memory and knows how to load one
(``get``, which claims its lease) and how to forget one it lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Protocol

import grpc

from wordarena.services.common import logs
from wordarena.services.common.errors import ServiceError
from wordarena.services.match import metrics
from wordarena.services.match.runtime import Runtime
from wordarena.services.match.store import MatchStore
from wordarena.v1 import errors_pb2 as e

log = logs.get_logger(__name__)


class Holder(Protocol):
    """What lease keeping needs of the match manager."""

    store: MatchStore
    owner: str
    lease_seconds: float
    capacity: int
    matches: dict[str, Runtime]
    draining: bool
    closing: bool
    leases_sure_until: float

    @property
    def active_matches(self) -> int: ...

    async def get(self, match_id: str) -> Runtime: ...

    def lost(self, rt: Runtime) -> None: ...


def interval(holder: Holder) -> float:
    """How often leases are renewed and take-overs looked for: a third of a lease."""
    return max(holder.lease_seconds / 3, 0.05)


async def recover(holder: Holder) -> None:
    """Start-up: load every claimable running match (ours before a restart, or free)."""
    for match_id in await holder.store.claimable(holder.owner):
        with contextlib.suppress(ServiceError):
            await holder.get(match_id)


async def take_over_expired(holder: Holder) -> int:
    """Take over the running matches whose lease lapsed or was released (up to capacity).
    Returns how many were taken over."""
    taken = 0
    for match_id in await holder.store.claimable(holder.owner):
        if match_id in holder.matches:
            continue
        if holder.draining or holder.closing or holder.active_matches >= holder.capacity:
            break
        try:
            await holder.get(match_id)
            taken += 1
        except ServiceError:  # another server was quicker, or the match cannot be served here
            continue
        except Exception as exc:  # a broken log: logged, the others are still taken over
            log.error("take-over failed", match_id=match_id, error=repr(exc))
    return taken


async def takeover_loop(holder: Holder) -> None:
    """Look for matches to take over, every third of a lease, until cancelled."""
    while True:
        await asyncio.sleep(interval(holder))
        if holder.draining or holder.closing:
            continue
        try:
            taken = await take_over_expired(holder)
            if taken:
                log.info("took over matches of another server", count=taken)
        except Exception as exc:  # pragma: no cover - database hiccup: retry next time
            log.warning("take-over scan failed", error=repr(exc))


async def renew_loop(holder: Holder) -> None:
    """Renew the leases of the running matches held, every third of a lease, until cancelled."""
    while True:
        await asyncio.sleep(interval(holder))
        try:
            held = [rt for rt in holder.matches.values() if not rt.state.over]
            sent = time.time()
            renewed = await holder.store.renew(holder.owner, holder.lease_seconds)
            if renewed >= len(held):
                holder.leases_sure_until = sent + holder.lease_seconds
            # Matches that finished (or were dropped) meanwhile are not renewed either:
            # only a shortfall against what is still held means a lost lease.
            if renewed < len(held):
                held = [rt for rt in held if not rt.state.over and holder.matches.get(rt.match_id) is rt]
                if renewed < len(held):
                    await drop_lost(holder, held)
        except Exception as exc:  # pragma: no cover - database hiccup: retry next time
            log.warning("lease renewal failed", error=repr(exc))


async def confirm(holder: Holder, rt: Runtime) -> None:
    """Before a held running match is served after its lease may have lapsed (this server was
    paused, or its renewals failed, past ``leases_sure_until``): renew, and if another server
    owns the match now, forget it and raise MatchMoved, rather than answer with a stale copy."""
    sent = time.time()
    held = sum(1 for r in holder.matches.values() if not r.state.over)
    renewed = await holder.store.renew(holder.owner, holder.lease_seconds)
    row = await holder.store.get(rt.match_id)
    if row is None or row.owner != holder.owner:
        raise await moved(holder, rt)
    if renewed >= held:
        holder.leases_sure_until = sent + holder.lease_seconds


async def drop_lost(holder: Holder, held: list[Runtime]) -> None:
    """Fewer leases renewed than matches held: another server took some over while this one
    could not renew (a pause, a partition). Forget those, ending their streams (the clients
    reconnect and are sent to the new owner) instead of serving a stale copy."""
    for rt in held:
        row = await holder.store.get(rt.match_id)
        if row is not None and row.owner != holder.owner and holder.matches.get(rt.match_id) is rt:
            log.warning("lost a match to another server", match_id=rt.match_id, owner=row.owner)
            holder.lost(rt)
    metrics.MATCHES_ACTIVE.set(holder.active_matches)


def address_of(owner: str) -> str:
    """The address part of an owner id (``server-id|host:port``)."""
    return owner.partition("|")[2]


async def owner_address(store: MatchStore, owner: str, match_id: str) -> str:
    """The address of the server that owns ``match_id`` now ("" if none, ``owner``, or unknown)."""
    try:
        row = await store.get(match_id)
    except Exception:  # the error path of a commit: never fail it again
        return ""
    if row is None or not row.owner or row.owner == owner:
        return ""
    return address_of(row.owner)


async def moved(holder: Holder, rt: Runtime) -> ServiceError:
    """A commit lost the match to another server: forget it here and tell the caller where it
    went (UNAVAILABLE with ``MatchMoved``)."""
    holder.lost(rt)
    return ServiceError(grpc.StatusCode.UNAVAILABLE,
                        f"match {rt.match_id!r} moved to another server; reconnect",
                        e.MatchMoved(match_id=rt.match_id,
                                     new_address=await owner_address(holder.store, holder.owner,
                                                                     rt.match_id)))


async def uncertain(holder: Holder, rt: Runtime, error: BaseException) -> ServiceError:
    """A commit failed in the database (e.g. the connection was lost while this server was frozen
    or cut off): whether it was stored is unknown, so forget the match here (it is reloaded from
    the log on its next use, here or wherever it is owned now) and tell the caller to retry with
    the same request id (UNAVAILABLE with ``MatchMoved``)."""
    log.warning("commit failed in the database; match reloaded on next use", match_id=rt.match_id,
                error=repr(error.__cause__ or error))
    holder.lost(rt)
    return ServiceError(grpc.StatusCode.UNAVAILABLE,
                        f"match {rt.match_id!r}: the turn may not have been stored; "
                        "retry with the same request_id",
                        e.MatchMoved(match_id=rt.match_id,
                                     new_address=await owner_address(holder.store, holder.owner,
                                                                     rt.match_id)))
