"""Tables: open, join, leave, seat a bot, start (allocating the match), expire.

Each change runs through ``TableCache.mutate`` (one locked transaction, every lobby sees it). A
start is OPEN → STARTING (in that transaction: only one caller, in any lobby, wins), the
allocation, then → STARTED (or back to OPEN if no match server took the match). A table left
STARTING by a lobby that died while allocating is opened again after ``starting_stale_s``.
"""

from __future__ import annotations

import hmac
import time
import uuid

from wordarena.services.common import logs
from wordarena.services.common.db import Database
from wordarena.services.lobby import store
from wordarena.services.lobby.accounts import Accounts
from wordarena.services.lobby.allocation import Allocator
from wordarena.services.lobby.errors import LobbyError
from wordarena.services.lobby.open_limits import OpenLimits
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.lobby.settings import TableConfig
from wordarena.services.lobby.table_cache import TableCache
from wordarena.services.lobby.tables import Occupant, Table, TableStatus

__all__ = ["Tables"]

log = logs.get_logger("wordarena.lobby")


def _check_invite(t: Table, code: str, player_id: str) -> None:
    """A private table lets in its seated players and those with its invite code."""
    if t.config.private and t.seat_of(player_id) is None and not hmac.compare_digest(code, t.invite_code):
        raise LobbyError.denied("BAD_INVITE_CODE", "a private table needs its invite code", "invite_code")


class Tables:
    """What players do with tables."""

    def __init__(
        self, db: Database, options: LobbyOptions, cache: TableCache, accounts: Accounts, allocator: Allocator
    ) -> None:
        self.db = db
        self.opt = options
        self.cache = cache
        self.accounts = accounts
        self.allocator = allocator
        self.limits = OpenLimits("tables", options.max_open_tables, options.max_open_tables_per_guest_address)

    async def _occupant(self, player_id: str) -> Occupant:
        p = await self.accounts.player(player_id)
        return Occupant(p.id, p.display_name, guest=p.guest)

    def _is_open(self, table_id: str) -> bool:
        t = self.cache.tables.get(table_id)
        return t is not None and t.status == TableStatus.OPEN

    def _check_room(self, who: Occupant, address: str = "") -> None:
        """Refuses a seat at one more open table past the caps (``OpenLimits``)."""
        held = sum(1 for t in self.cache.seated_at(who.player_id) if t.status == TableStatus.OPEN)
        self.limits.check(held, who.guest, address, self._is_open)

    async def create(self, player_id: str, cfg: TableConfig, seat: int | None, address: str = "") -> Table:
        """Opens a table with the player seated (at ``seat``, or the first free one); it starts
        at once if that fills it. ``address``: the caller's, for the guests' cap."""
        if seat is not None and (not 0 <= seat < cfg.seats or seat in dict(cfg.bots)):
            raise LobbyError.invalid(f"seat must be a free seat in 0..{cfg.seats - 1}", "seat")
        who = await self._occupant(player_id)
        self._check_room(who, address)
        t = Table.open(f"t_{uuid.uuid4().hex[:20]}", cfg, who, seat, time.time())
        await self.cache.add(t)
        self.limits.opened(who.guest, address, t.table_id)
        log.info("table opened", table_id=t.table_id, ruleset=cfg.ruleset_id)
        if t.should_autostart:
            t = await self._start(t.table_id, player_id)
        return t

    async def visible(self, table_id: str, player_id: str, invite_code: str) -> Table:
        """The table as committed now, if the player may see it (a private table: seated, or
        with its invite code)."""
        t = await self.cache.get(table_id)
        _check_invite(t, invite_code, player_id)
        return t

    async def join(
        self, table_id: str, player_id: str, seat: int | None, invite_code: str
    ) -> tuple[Table, int]:
        """Seats the player (at ``seat``, or the first free one); returns the table and the seat.
        The table starts if that fills it."""
        who = await self._occupant(player_id)
        if not any(t.table_id == table_id for t in self.cache.seated_at(player_id)):
            self._check_room(who)

        def sit(t: Table) -> int:
            _check_invite(t, invite_code, who.player_id)
            return t.sit(who, seat)

        t, i = await self.cache.mutate(table_id, sit)
        if t.should_autostart:
            t = await self._start(t.table_id, t.host_player_id)
        return t, i

    async def leave(self, table_id: str, player_id: str) -> Table:
        """Takes the player off the table (the host hands over, or the table closes)."""
        t, _ = await self.cache.mutate(table_id, lambda t: t.leave(player_id))
        return t

    async def sit_bot(
        self, table_id: str, player_id: str, level: int, seat: int | None, think_ms: int = 0
    ) -> Table:
        """The host seats a bot (``think_ms``: its own think time, 0 = the table's); the table
        starts if that fills it."""
        t, _ = await self.cache.mutate(table_id,
                                       lambda t: t.sit_bot(player_id, level, seat, think_ms))
        if t.should_autostart:
            t = await self._start(t.table_id, t.host_player_id)
        return t

    async def start(self, t: Table, player_id: str) -> Table:
        """The host starts table ``t`` (as read before). A table no longer open (started by the
        host or by itself when full) is FAILED_PRECONDITION TABLE_NOT_OPEN, as lobby.proto
        promises: only a repeat of the request that started it (its request id) answers with
        where to play, from the stored answer."""
        t.check_start(player_id)
        return await self._start(t.table_id, player_id, raise_errors=True)

    async def _start(self, table_id: str, by: str, raise_errors: bool = False) -> Table:
        """OPEN → STARTING (in one locked transaction: only one caller, in any lobby, wins),
        allocation, → STARTED (or back to OPEN). Returns the table as it is afterwards."""

        def begin(t: Table) -> list[Occupant] | None:
            if raise_errors:
                t.check_start(by)
            if t.status != TableStatus.OPEN:
                return None
            return t.begin_start()

        t, occupants = await self.cache.mutate(table_id, begin)
        if occupants is None:
            return t
        try:
            match_id, address = await self.allocator.allocate(t.config, occupants, t.table_id)
        except LobbyError:
            await self.cache.mutate(
                table_id, lambda t: t.start_failed() if t.status == TableStatus.STARTING else None
            )
            if raise_errors:
                raise
            return self.cache.tables.get(table_id, t)
        t, _ = await self.cache.mutate(table_id, lambda t: t.started(match_id, address))
        log.info("table started", table_id=t.table_id, match_id=match_id, address=address)
        return t

    async def match_moved(self, match_id: str, address: str) -> None:
        """Points the tables of a match at its new address (a take-over)."""

        def move(t: Table) -> None:
            if t.match_address != address:
                t.match_address = address
                t.version += 1

        for tid in [t.table_id for t in self.cache.tables.values() if t.match_id == match_id]:
            await self.cache.mutate(tid, move)

    async def expire(self) -> None:
        """Closes open tables older than ``table_expiry_s``; forgets closed and started ones."""
        self.cache.drop_old_forgotten()
        cut = time.time() - self.opt.table_expiry_s
        for t in list(self.cache.tables.values()):
            if t.status == TableStatus.OPEN and t.created_at < cut:
                t, _ = await self.cache.mutate(
                    t.table_id, lambda t: t.close() if t.status == TableStatus.OPEN else None
                )
            if t.status in (TableStatus.CLOSED, TableStatus.STARTED) and t.created_at < cut:
                self.cache.forget(t.table_id)

    async def reopen_stale_starting(self) -> None:
        """Opens again the tables left STARTING by a lobby that died while allocating."""
        for tid in await self.db.run(store.stale_starting, time.time() - self.opt.starting_stale_s):
            await self.cache.mutate(
                tid, lambda t: t.start_failed() if t.status == TableStatus.STARTING else None
            )
