"""The table cache: each lobby process's copy of the live tables, kept in step with the database
(the source of truth), and the watchers it tells of every change.

Every change of a table is one transaction that reads the table's row ``FOR UPDATE``, applies the
pure change (``tables.Table``) and writes it back (``TableCache.mutate``), so concurrent joins
through any number of lobbies never over-fill a table. The cache serves ListTables and
WatchTables; it is updated by the process's own changes and, on PostgreSQL, by ``NOTIFY
wordarena_lobby_tables`` (sent in the changing transaction, so delivered only once committed)
received on a ``LISTEN`` connection, plus a full resync when that connection (re)connects and
every ``resync_s``. Table versions only grow, so a change is applied (and told to the watchers)
once, whatever way it arrives, and a read answered late cannot bring back a table the cache has
forgotten (``forgotten``). The same connection hears ``wordarena_lobby_tickets`` for the
quick-match ticket watchers (``on_ticket``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from sqlalchemy.engine import make_url
from sqlmodel import Session

from wordarena.services.common import logs
from wordarena.services.common.db import Database
from wordarena.services.lobby import store
from wordarena.services.lobby.errors import LobbyError
from wordarena.services.lobby.metrics import TABLES_OPEN
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.lobby.tables import Table, TableStatus

__all__ = ["ChangeKind", "TableCache", "TableChange", "TableQuery", "Watcher"]

log = logs.get_logger("wordarena.lobby")
V = TypeVar("V")


class ChangeKind(StrEnum):
    """What a ``TableChange`` tells a watcher (mirrors ``wordarena.v1.TableChangeKind``)."""

    EXISTING = "existing"
    SYNCED = "synced"
    OPENED = "opened"
    UPDATED = "updated"
    STARTED = "started"
    CLOSED = "closed"
    HEARTBEAT = "heartbeat"


@dataclass(frozen=True)
class TableChange:
    """One message to a watcher: a table (None for SYNCED and HEARTBEAT) and when it was sent."""

    kind: ChangeKind
    table: Table | None
    time: float


@dataclass(frozen=True)
class TableQuery:
    """Which tables a caller lists or watches (empty fields match everything; no status: OPEN)."""

    statuses: frozenset[TableStatus] = frozenset()
    ruleset_id: str = ""
    language: str = ""
    has_free_seat: bool = False
    seats: int = 0
    table_id: str = ""

    def matches(self, t: Table, viewer: str) -> bool:
        """True when ``t`` is one of the tables ``viewer`` asked for (private tables only for
        their seated players)."""
        if t.status not in (self.statuses or {TableStatus.OPEN}):
            return False
        if self.table_id and t.table_id != self.table_id:
            return False
        if t.config.private and t.seat_of(viewer) is None:
            return False
        if self.ruleset_id and t.config.ruleset_id != self.ruleset_id:
            return False
        if self.language and t.config.language != self.language.lower():
            return False
        if self.has_free_seat and t.full:
            return False
        return not (self.seats and t.config.seats != self.seats)


@dataclass
class Watcher:
    """A WatchTables stream: its query, its queue (None ends it), the tables it has been told of."""

    query: TableQuery
    queue: asyncio.Queue[TableChange | None]
    seen: set[str] = field(default_factory=set)
    overflow: bool = False


class TableCache:
    """The live tables of the lobby, their changes, and who watches them."""

    def __init__(self, db: Database, options: LobbyOptions, on_ticket: Callable[[str], None]) -> None:
        self.db = db
        self.opt = options
        self.on_ticket = on_ticket
        self.tables: dict[str, Table] = {}
        self.watchers: list[Watcher] = []
        self.listening = asyncio.Event()
        self._dirty: set[str] = set()
        self._dirty_event = asyncio.Event()
        self._views: dict[str, tuple[tuple[int, TableStatus, str], Any]] = {}
        #: Answers shared by every caller seated at no cached table (``shared``): cleared by
        #: every change of the cache (``apply``, ``forget``).
        self._shared: dict[Any, Any] = {}
        self._seated: dict[str, list[Table]] | None = None
        #: Tables forgotten lately: id → (their last version, when). A read of the database begun
        #: before the forget (a NOTIFY's refresh, a resync) can answer after it with an older
        #: version, which must not bring the table back; kept ``resync_s``, longer than any read.
        self._forgotten: dict[str, tuple[int, float]] = {}

    # -- reading and changing -------------------------------------------------------------------

    async def get(self, table_id: str) -> Table:
        """The table as committed now (read from the database)."""
        (t,) = await self.db.run(store.get_tables, [table_id]) or (None,)
        if t is None:
            raise LobbyError.not_found(f"no table {table_id!r}", "table_id")
        return t

    async def mutate(self, table_id: str, fn: Callable[[Table], Any]) -> tuple[Table, Any]:
        """Applies ``fn`` to the table in one transaction holding its row lock; saves it (and
        notifies the other lobbies) if its version changed. Returns (table after, fn's result)."""

        def work(s: Session) -> tuple[Table, Any]:
            t = store.lock_table(s, table_id)
            if t is None:
                raise LobbyError.not_found(f"no table {table_id!r}", "table_id")
            before = t.version
            result = fn(t)
            if t.version != before:
                store.save_table(s, t, time.time())
                store.notify(s, store.TABLES_CHANNEL, t.table_id)
            return t, result

        t, result = await self.db.run(work)
        self.apply(t)
        return t, result

    async def add(self, t: Table) -> None:
        """Saves a new table (and tells the other lobbies)."""

        def work(s: Session) -> None:
            store.save_table(s, t, time.time())
            store.notify(s, store.TABLES_CHANNEL, t.table_id)

        await self.db.run(work)
        self.apply(t)

    def query(self, q: TableQuery, viewer: str) -> list[Table]:
        """The cached tables ``q`` matches for ``viewer``, newest first."""
        rows = [t for t in self.tables.values() if q.matches(t, viewer)]
        rows.sort(key=lambda t: (-t.created_at, t.table_id))
        return rows

    def view(self, t: Table, build: Callable[[Table], V]) -> V:
        """``build(t)``, remembered per table version (the view of players not seated at it,
        the same for all of them)."""
        key = (t.version, t.status, t.match_address)
        cached = self._views.get(t.table_id)
        if cached is None or cached[0] != key:
            cached = (key, build(t))
            if t.table_id in self.tables:  # not one forgotten since (its last change, sent late)
                self._views[t.table_id] = cached
        return cached[1]  # type: ignore[no-any-return]

    def forget(self, table_id: str) -> None:
        """Drops a table long closed or started from the cache."""
        t = self.tables.pop(table_id, None)
        if t is not None:
            self._forgotten[table_id] = (t.version, time.monotonic())
        self._views.pop(table_id, None)
        for w in self.watchers:
            w.seen.discard(table_id)
        self._changed()

    def forgotten(self, table_id: str) -> bool:
        """Whether the cache forgot the table within the last ``resync_s``."""
        return table_id in self._forgotten

    def drop_old_forgotten(self) -> None:
        """Lets go of the notes of tables forgotten more than ``resync_s`` ago."""
        if self._forgotten:
            cut = time.monotonic() - self.opt.resync_s
            self._forgotten = {k: v for k, v in self._forgotten.items() if v[1] >= cut}

    def holds(self, table_id: str) -> bool:
        """Whether anything of the table is in memory: the table, its view, a watcher's note
        (the short-lived note that it was forgotten, ``forgotten``, aside)."""
        return (table_id in self.tables or table_id in self._views
                or any(table_id in w.seen for w in self.watchers))

    def seated_at(self, player_id: str) -> list[Table]:
        """The cached tables where ``player_id`` holds a seat: the tables the player sees
        otherwise than everyone else (its invite codes, its private tables)."""
        if self._seated is None:
            seated: dict[str, list[Table]] = {}
            for t in self.tables.values():
                for o in t.seats:
                    if o is not None and not o.is_bot:
                        seated.setdefault(o.player_id, []).append(t)
            self._seated = seated
        return self._seated.get(player_id, [])

    def shared(self, key: Any, build: Callable[[], V]) -> V:
        """``build()``, remembered under ``key`` until the cache next changes: an answer that is
        the same for every caller who sees the tables alike (``seated_at``), e.g. a ListTables
        page, built and serialized once per change instead of once per call."""
        got = self._shared.get(key)
        if got is None:
            if len(self._shared) > 1000:  # many distinct filters and pages: start over
                self._shared.clear()
            got = self._shared[key] = build()
        return got  # type: ignore[no-any-return]

    def _changed(self) -> None:
        self._shared.clear()
        self._seated = None

    # -- the cache ------------------------------------------------------------------------------

    def apply(self, t: Table) -> bool:
        """Puts a table (as read from or written to the database) in the cache and tells the
        watchers, unless the cache already holds this version or a later one."""
        old = self.tables.get(t.table_id)
        if old is not None and old.version >= t.version:
            return False
        if old is None and t.version <= self._forgotten.get(t.table_id, (-1, 0.0))[0]:
            return False  # a read begun before the cache forgot the table (``_forgotten``)
        cut = time.time() - self.opt.table_expiry_s
        if old is None and t.status in (TableStatus.CLOSED, TableStatus.STARTED) and t.created_at < cut:
            return False  # long gone from the cache: nothing to tell
        self.tables[t.table_id] = t
        self._changed()
        if t.status == TableStatus.CLOSED:
            kind = ChangeKind.CLOSED
        elif t.status == TableStatus.STARTED and (old is None or old.status != TableStatus.STARTED):
            kind = ChangeKind.STARTED
        elif old is None:
            kind = ChangeKind.OPENED
        else:
            kind = ChangeKind.UPDATED
        self.update_gauge()
        self._broadcast(t, kind)
        return True

    def update_gauge(self) -> None:
        """Sets ``wordarena_tables_open``."""
        TABLES_OPEN.set(sum(1 for t in self.tables.values() if t.status == TableStatus.OPEN))

    async def resync(self) -> None:
        """Reads every live table (and those changed within the expiry) into the cache."""
        for t in await self.db.run(store.load_tables, time.time() - self.opt.table_expiry_s):
            self.apply(t)

    # -- watchers -------------------------------------------------------------------------------

    def watch(self, q: TableQuery, viewer: str) -> tuple[Watcher, list[Table]]:
        """A new watcher and the tables it starts with (newest first)."""
        w = Watcher(q, asyncio.Queue(self.opt.watch_queue_size))
        initial = []
        for t in sorted(self.tables.values(), key=lambda t: -t.created_at):
            if q.matches(t, viewer):
                w.seen.add(t.table_id)
                initial.append(t)
        self.watchers.append(w)
        return w, initial

    def unwatch(self, w: Watcher) -> None:
        """Forgets a watcher (its stream ended)."""
        self.watchers.remove(w)

    def _broadcast(self, t: Table, kind: ChangeKind) -> None:
        now = time.time()
        for w in list(self.watchers):
            if w.overflow:
                continue
            k = kind
            if not w.query.matches(t, ""):
                if t.table_id not in w.seen:
                    continue
                w.seen.discard(t.table_id)
                k = ChangeKind.CLOSED
            elif t.table_id not in w.seen:
                w.seen.add(t.table_id)
                if k == ChangeKind.UPDATED:
                    k = ChangeKind.OPENED
            try:
                w.queue.put_nowait(TableChange(k, t, now))
            except asyncio.QueueFull:
                w.overflow = True
                with contextlib.suppress(asyncio.QueueEmpty):
                    w.queue.get_nowait()
                w.queue.put_nowait(None)

    def broadcast_heartbeat(self) -> None:
        """Tells every watcher the stream is alive."""
        msg = TableChange(ChangeKind.HEARTBEAT, None, time.time())
        for w in self.watchers:
            with contextlib.suppress(asyncio.QueueFull):
                w.queue.put_nowait(msg)

    def close_watchers(self) -> None:
        """Ends every watcher's stream (the lobby is stopping)."""
        for w in self.watchers:
            with contextlib.suppress(asyncio.QueueFull):
                w.queue.put_nowait(None)

    # -- other lobbies' changes (PostgreSQL) ----------------------------------------------------

    def _pg_conninfo(self) -> str:
        return make_url(self.db.url).set(drivername="postgresql").render_as_string(hide_password=False)

    async def listen(self) -> None:
        """LISTENs for table and ticket changes of every lobby; resyncs on each (re)connection."""
        import psycopg

        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self._pg_conninfo(), autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {store.TABLES_CHANNEL}")
                    await conn.execute(f"LISTEN {store.TICKETS_CHANNEL}")
                    await self.resync()
                    self.listening.set()
                    async for n in conn.notifies():
                        if n.channel == store.TABLES_CHANNEL:
                            self._dirty.add(n.payload)
                            self._dirty_event.set()
                        else:
                            self.on_ticket(n.payload)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("change listener lost; reconnecting", error=repr(exc))
                self.listening.clear()
                await asyncio.sleep(1.0)

    async def refresher(self) -> None:
        """Reads the tables named by notifications (in batches) into the cache."""
        while True:
            await self._dirty_event.wait()
            self._dirty_event.clear()
            ids, self._dirty = list(self._dirty), set()
            try:
                for t in await self.db.run(store.get_tables, ids):
                    self.apply(t)
            except Exception as exc:  # pragma: no cover - the next resync catches up
                log.warning("table refresh failed", error=repr(exc))
