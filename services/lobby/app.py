"""The lobby: its parts put together, their life cycle and the background loop.

State: the database is the source of truth, so several lobby processes on one PostgreSQL
database behave as one lobby (each part's module says how). SQLite (one process): the same code;
its one writer thread serialises the transactions and there is no listener.

The background loop (every ``matchmaking_tick_s``) runs a matchmaking step (without waiting for
its allocations: ``QuickMatch.run``), expires tables, and, each at its own interval, the
tournaments' step (``TournamentRunner.tick``: pair what is due, create pending matches), housekeeping,
the table resync (PostgreSQL), the match-server gauges and the WatchTables heartbeats.
Housekeeping (every lobby, every ``housekeeping_s``): closed tickets older than
``ticket_retention_s`` are deleted (``store.delete_old_tickets``; concurrent lobbies delete
disjoint rows), and so are expired sign-in failure rows (``store.delete_expired_sign_in_failures``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from prometheus_client import Counter
from sqlmodel import Session

from wordarena.services.common import auth, logs
from wordarena.services.common.db import Database
from wordarena.services.common.tasks import cancel_and_wait
from wordarena.services.lobby import store
from wordarena.services.lobby.accounts import Accounts
from wordarena.services.lobby.allocation import Allocator
from wordarena.services.lobby.match_control import MatchControl
from wordarena.services.lobby.metrics import TICKETS_DELETED
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.lobby.passwords import Passwords
from wordarena.services.lobby.quickmatch import QuickMatch
from wordarena.services.lobby.registry import Registry
from wordarena.services.lobby.standings import Standings
from wordarena.services.lobby.table_cache import TableCache
from wordarena.services.lobby.table_ops import Tables
from wordarena.services.lobby.tables import Table
from wordarena.services.lobby.tournaments.director import Directors
from wordarena.services.lobby.tournaments.runner import TournamentRunner
from wordarena.services.lobby.tournaments.service import Tournaments

__all__ = ["Lobby"]

log = logs.get_logger("wordarena.lobby")


class Lobby:
    """Every part of one lobby process, sharing its database, keys and options."""

    def __init__(self, db: Database, keys: auth.TokenKeys, options: LobbyOptions | None = None) -> None:
        self.db = db
        self.keys = keys
        self.opt = options or LobbyOptions()
        self.accounts = Accounts(db, keys, self.opt)
        self.allocator = Allocator(db, self.opt, MatchControl(keys, self.opt))
        self.quickmatch = QuickMatch(db, self.opt, self.accounts, self.allocator)
        self.cache = TableCache(db, self.opt, on_ticket=self.quickmatch.notify)
        self.table_ops = Tables(db, self.opt, self.cache, self.accounts, self.allocator)
        self.registry = Registry(db, self.opt, self.table_ops)
        self.standings = Standings(db)
        self.runner = TournamentRunner(db, self.allocator)
        self.standings.on_result = self.runner.record_result
        self.standings.after_result = self.runner.after_result
        self.tournaments = Tournaments(db, self.opt, self.accounts, self.runner)
        self.directors = Directors(self.tournaments)
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def tables(self) -> dict[str, Table]:
        """The live tables this process knows (its cache)."""
        return self.cache.tables

    @property
    def passwords(self) -> Passwords:
        """The password hasher of sign-ins."""
        return self.accounts.passwords

    # -- life cycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Loads tables and starts the background loop (matchmaking, expiry, housekeeping) and,
        on PostgreSQL, the change listener (waiting up to 5 s for it to listen)."""
        await self.cache.resync()
        await self.table_ops.reopen_stale_starting()
        self.cache.update_gauge()
        self._tasks.append(asyncio.create_task(self._background()))
        if not self.db.sqlite:
            self._tasks.append(asyncio.create_task(self.cache.listen()))
            self._tasks.append(asyncio.create_task(self.cache.refresher()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.cache.listening.wait(), 5.0)

    async def stop(self) -> None:
        """Ends streams and background work, closes channels."""
        await cancel_and_wait(self._tasks)
        await self.runner.stop()
        await self.quickmatch.stop()
        self.cache.close_watchers()
        await self.allocator.stop()

    async def update_server_gauges(self) -> dict[str, int]:
        """The match-server gauges (``Registry.update_server_gauges``)."""
        return await self.registry.update_server_gauges()

    async def housekeep(self) -> int:
        """Deletes the closed tickets older than ``ticket_retention_s`` and the sign-in failure
        rows that throttle nothing any more (all their failures out of the window), in batches,
        one transaction each; returns how many tickets. Safe in several lobbies at once."""
        now = time.time()
        await self._delete_in_batches(
            store.delete_expired_sign_in_failures, now, "expired sign-in failures deleted"
        )
        if self.opt.ticket_retention_s <= 0:
            return 0
        return await self._delete_in_batches(
            store.delete_old_tickets,
            now - self.opt.ticket_retention_s,
            "old tickets deleted",
            TICKETS_DELETED,
        )

    async def _delete_in_batches(
        self,
        delete: Callable[[Session, float, int], int],
        before: float,
        message: str,
        counter: Counter | None = None,
        batch: int = 1000,
    ) -> int:
        """Runs ``delete(session, before, batch)`` in transactions of its own until a batch
        comes back short; logs and returns how many rows went."""
        total = 0
        while True:
            n = await self.db.run(delete, before, batch)
            total += n
            if counter is not None:
                counter.inc(n)
            if n < batch:
                break
        if total:
            log.info(message, count=total)
        return total

    async def _background(self) -> None:
        last_heartbeat = time.monotonic()
        last_gauges = last_resync = last_housekeeping = last_tournaments = 0.0
        while True:
            await asyncio.sleep(self.opt.matchmaking_tick_s)
            try:
                await self.quickmatch.run(wait=False)
                await self.table_ops.expire()
                if time.monotonic() - last_tournaments >= self.opt.tournament_tick_s:
                    last_tournaments = time.monotonic()
                    await self.runner.tick()
                if time.monotonic() - last_housekeeping >= self.opt.housekeeping_s:
                    last_housekeeping = time.monotonic()
                    await self.housekeep()
                if not self.db.sqlite and time.monotonic() - last_resync >= self.opt.resync_s:
                    last_resync = time.monotonic()
                    await self.cache.resync()
                    await self.table_ops.reopen_stale_starting()
                if time.monotonic() - last_gauges >= self.opt.heartbeat_interval_s:
                    last_gauges = time.monotonic()
                    await self.update_server_gauges()
                if time.monotonic() - last_heartbeat >= self.opt.watch_heartbeat_s:
                    last_heartbeat = time.monotonic()
                    self.cache.broadcast_heartbeat()
            except Exception as exc:  # pragma: no cover - logged, the loop goes on
                log.warning("background step failed", error=repr(exc))
