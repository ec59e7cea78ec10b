"""Event-sourced storage of matches: the match row, the append-only event log and the answers to
client requests (for idempotent retries). Blocking SQLModel code, run off the event loop by
``services.common.db.Database``.

Appends are conditional on the match's ``last_seq`` and on the caller owning the match, written
together with the request's answer: a turn is acknowledged only after this commit.

Group commit: appends of different matches that arrive while a commit is in progress wait for
the next one, and go to the database together in one transaction (one fsync on SQLite) — each
append still waits for the commit that holds its own events. An append whose condition fails
(another owner, another last seq) is left out of its group and gets ``ConflictError``; if the group
hits an integrity error, each append of it is retried alone, so one bad append never sinks others.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import or_, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlmodel import Session, select

from wordarena.services.common.db import Database, run_migrations
from wordarena.services.match.core import events as codec
from wordarena.services.match.core.events import MatchEvent
from wordarena.services.match.models import EventRow, MatchRow, RequestRow

MIGRATIONS = Path(__file__).parent / "migrations"
T = TypeVar("T")

#: A stored event's payload as compact JSON. Payloads are plain dicts and lists built afresh for
#: each event (``eventlog.to_stored``), never cyclic: without the cycle check the encoder takes
#: half the time, on every append.
encode_payload = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode
VERSION_TABLE = "alembic_version_match"


@functools.lru_cache(maxsize=2)
def inflate(block: bytes) -> bytes:
    """A packed block's texts (``StoredEvent.pack``), inflated once for the reads in a row that
    need it: a late reader reads a block's events one after another, and inflating the block
    for each of them cost about 10 µs an event. A block's bytes hash once (``bytes`` keeps its
    hash), and a hit is found by identity; two blocks' worth of texts are kept (about 30 KB)."""
    return zlib.decompress(block)


class StoredEvent:
    """An event of the log: its seq, time (epoch seconds), kind and JSON payload.

    A match keeps its whole log in memory, and the payload dicts were most of a match's memory
    (a classic match half-way through: about 110 of 136 KB, the score breakdowns foremost). So
    once an event is no longer among its match's latest (``compact``) it keeps only the payload's
    JSON text, and ``payload`` decodes it on each read, which only late readers of old events
    do. Texts are then deflated several events at a time (``pack``): a classic play's 1.6 KB of
    JSON packs into about 0.3 KB, its score breakdown repeating the keys of its neighbours'.
    The payload does not change once the event is stored: memory holds what the log holds."""

    __slots__ = ("_packed", "_payload", "_text", "_typed", "kind", "seq", "shown", "time")

    def __init__(self, seq: int, time: float, kind: str, payload: dict[str, Any] | None = None) -> None:
        self.seq = seq
        self.time = time
        self.kind = kind
        self._payload: dict[str, Any] | None = {} if payload is None else payload
        self._text: str | None = None
        #: The typed event (``event``), kept while the payload dict is.
        self._typed: MatchEvent | None = None
        #: With ``pack``: the deflated texts of its block, and where its own text lies in them.
        self._packed: tuple[bytes, int, int] | None = None
        #: Its projections for the viewers who saw it lately (``wire.project``), in
        #: memory only; kept for a match's latest events.
        self.shown: dict[Any, Any] = {}

    @property
    def payload(self) -> dict[str, Any]:
        """The payload as stored (a typed or compacted event's made afresh: a change to it is
        not kept). Readers of the log read ``event``; this is the codec's side."""
        if self._payload is not None:
            return self._payload
        if self._typed is not None:
            return codec.encode(self._typed)
        decoded: dict[str, Any] = json.loads(self.text)
        return decoded

    @staticmethod
    def of(event: MatchEvent) -> StoredEvent:
        """A typed event to store: it keeps the typed event (its payload dict is only made to
        encode its text, once), which is smaller than the dict."""
        stored = StoredEvent(event.seq, event.time, event.kind)
        stored._payload, stored._typed = None, event
        return stored

    @property
    def event(self) -> MatchEvent:
        """The typed event (``core.events``): what every reader of the log reads. Decoded once
        while the event is not compacted; a compacted event's afresh on each read."""
        if self._typed is not None:
            return self._typed
        typed = codec.decode(self.seq, self.time, self.kind, self.payload)
        if self._payload is not None:
            self._typed, self._payload = typed, None
        return typed

    def upgrade(self, event: MatchEvent) -> None:
        """Hold ``event``, this event as today's codec reads it (an older version's, upgraded
        in memory when its log is loaded: ``core.events.upgrade_log``); the log stays as written."""
        self._payload, self._typed, self._text, self._packed = None, event, None, None

    @property
    def text(self) -> str:
        """The payload as stored: compact JSON, encoded once."""
        if self._text is not None:
            return self._text
        if self._packed is not None:
            block, start, end = self._packed
            return inflate(block)[start:end].decode()
        self._text = encode_payload(self.payload)
        return self._text

    @property
    def compacted(self) -> bool:
        """True once only the JSON text is kept (deflated or not)."""
        return self._payload is None and self._typed is None

    @property
    def packed(self) -> bool:
        """True once the JSON text is kept deflated (``pack``)."""
        return self._packed is not None

    @property
    def block(self) -> bytes | None:
        """The deflated texts this event shares with the others of its block (``pack``)."""
        return None if self._packed is None else self._packed[0]

    def compact(self) -> None:
        """Keep only the payload's JSON text (see the class doc)."""
        if not self.compacted:
            self.text  # noqa: B018 - encodes it if the store has not yet
            self._payload = self._typed = None

    @staticmethod
    def pack(events: Sequence[StoredEvent]) -> None:
        """Keep the JSON texts of ``events`` deflated together, in one block they share.
        Deflating costs mostly its set-up (one event alone: about 18 µs; eight: 39 µs), and the
        events of a match repeat each other's keys: a block is cheaper and smaller than one
        event at a time."""
        raw = [ev.text.encode() for ev in events]
        block = zlib.compress(b"".join(raw), 1)
        start = 0
        for ev, text in zip(events, raw, strict=True):
            ev._packed = (block, start, start + len(text))
            ev._payload = ev._text = ev._typed = None
            start += len(text)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StoredEvent):
            return NotImplemented
        mine, theirs = (self.seq, self.time, self.kind), (other.seq, other.time, other.kind)
        return mine == theirs and self.payload == other.payload

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"StoredEvent(seq={self.seq}, time={self.time}, kind={self.kind!r}, payload={self.payload!r})"

    @classmethod
    def from_row(cls, row: EventRow) -> StoredEvent:
        return cls(row.seq, row.time, row.kind, json.loads(row.payload))


def open_database(url: str, lease_seconds: float) -> Database:
    """The match server's database. A transaction a frozen server (SIGSTOP, a stalled VM, a cut
    link) left open would keep its matches' rows locked, and so keep every other server from
    taking them over, until it came back; on PostgreSQL the database ends a transaction idle for
    a third of a lease, so the rows are free by the time the frozen server's leases lapse."""
    return Database(url, idle_in_transaction_s=max(lease_seconds / 3, 0.5))


def _outcome_retrieved(future: asyncio.Future[None]) -> None:
    if not future.cancelled():
        future.exception()


class ConflictError(Exception):
    """The match moved on under us (another writer or owner): reload it."""


class StorageError(Exception):
    """The database failed an append (a lost connection, a transaction it ended): the events may
    or may not be stored, so the caller's copy of the match cannot be trusted."""


@dataclass(slots=True)
class MatchLog:
    """Everything stored about one match."""

    row: MatchRow
    events: list[StoredEvent]
    requests: dict[tuple[str, str], RequestRow]


@dataclass(slots=True)
class _Append:
    """One pending append of the group-commit writer."""

    match_id: str
    owner: str
    expected_last_seq: int
    values: dict[str, Any]
    events: list[StoredEvent]
    request: dict[str, Any] | None
    future: asyncio.Future[None]


#: The columns of ``matches``, from the model (the plain statements below name them all).
_MATCH_COLUMNS: tuple[str, ...] = tuple(MatchRow.__table__.columns.keys())  # type: ignore[attr-defined]
_REQUEST_COLUMNS = ("match_id", "player_id", "request_id", "method", "last_seq", "response")


@dataclass(slots=True)
class StoredRequest:
    """A request's answer to store with its events (a row of ``match_requests``; plain data: an
    ORM ``RequestRow`` costs tens of microseconds to build, on every turn)."""

    match_id: str
    player_id: str
    request_id: str
    method: str
    last_seq: int
    response: bytes


class _Refused(Exception):
    """An append of a group did not match its match row (owner or last seq)."""


class MatchStore:
    """Storage operations of the match server."""

    #: Most appends written in one transaction.
    MAX_GROUP = 512

    def __init__(self, db: Database) -> None:
        self.db = db
        self._pending: list[_Append] = []
        self._writing = False
        self._writer: asyncio.Task[None] | None = None

    def migrate(self) -> None:
        """Bring the schema to the latest migration (blocking; at start-up)."""
        run_migrations(self.db.engine, MIGRATIONS, VERSION_TABLE)

    # --- matches -------------------------------------------------------------------------

    async def create(self, row: MatchRow, events: list[StoredEvent]) -> MatchRow:
        """Insert a new match with its first events; if the id exists, return the stored row.
        Plain statements on a DBAPI connection, as appends are: through the ORM a creation cost
        the database thread about 4 ms, and a burst of them held up every turn's commit."""
        try:
            await self.db.run_raw(self._in_transaction, self._insert_match, row, events)
            return row
        except IntegrityError:
            got = await self.get(row.id)
            if got is None:  # pragma: no cover - would be a real error
                raise
            return got

    def _insert_match(self, cur: Any, row: MatchRow, events: list[StoredEvent]) -> None:
        p = self._mark
        cur.execute(f"INSERT INTO matches ({', '.join(_MATCH_COLUMNS)}) "
                    f"VALUES ({', '.join([p] * len(_MATCH_COLUMNS))})",
                    tuple(getattr(row, c) for c in _MATCH_COLUMNS))
        self._insert_events(cur, [(row.id, e.seq, e.time, e.kind, e.text) for e in events])

    async def get(self, match_id: str) -> MatchRow | None:
        """The match row, or None (one plain SELECT, see ``create``)."""
        return await self.db.run_raw(self._in_transaction, self._select_match, match_id)

    def _select_match(self, cur: Any, match_id: str) -> MatchRow | None:
        cur.execute(f"SELECT {', '.join(_MATCH_COLUMNS)} FROM matches WHERE id = {self._mark}", (match_id,))
        found = cur.fetchone()
        return None if found is None else MatchRow(**dict(zip(_MATCH_COLUMNS, found, strict=True)))

    async def load(self, match_id: str) -> MatchLog | None:
        """The row, every event in seq order and every stored request answer."""
        def work(s: Session) -> MatchLog | None:
            row = s.get(MatchRow, match_id)
            if row is None:
                return None
            events = [StoredEvent.from_row(r) for r in s.exec(
                select(EventRow).where(EventRow.match_id == match_id).order_by(EventRow.seq))]
            reqs = {(r.player_id, r.request_id): r for r in s.exec(
                select(RequestRow).where(RequestRow.match_id == match_id))}
            return MatchLog(row, events, reqs)

        return await self.db.run(work)

    async def events_after(self, match_id: str, after_seq: int) -> list[StoredEvent]:
        """Stored events with seq > ``after_seq``."""
        def work(s: Session) -> list[StoredEvent]:
            return [StoredEvent.from_row(r) for r in s.exec(
                select(EventRow).where(EventRow.match_id == match_id, EventRow.seq > after_seq)
                .order_by(EventRow.seq))]

        return await self.db.run(work)

    async def append(
        self, match_id: str, owner: str, expected_last_seq: int, events: list[StoredEvent],
        request: RequestRow | StoredRequest | None = None, status: str | None = None,
        ended_at: float | None = None,
    ) -> None:
        """Append ``events`` (and the request's answer) atomically, provided the match's last seq
        is ``expected_last_seq`` and ``owner`` owns it; ``ConflictError`` otherwise. Returns once
        the transaction holding them is committed (group commit, see the module doc)."""
        values: dict[str, Any] = {"last_seq": events[-1].seq if events else expected_last_seq}
        if status is not None:
            values["status"] = status
        if ended_at is not None:
            values["ended_at"] = ended_at
        req = None if request is None else {k: getattr(request, k) for k in _REQUEST_COLUMNS}
        loop = asyncio.get_running_loop()
        item = _Append(match_id, owner, expected_last_seq, values, list(events), req, loop.create_future())
        # A caller cancelled before the commit (a deadline, a lost match's bot) no longer awaits
        # the outcome; it is still the commit's outcome, so it is marked retrieved, never logged
        # by asyncio as an error.
        item.future.add_done_callback(_outcome_retrieved)
        self._pending.append(item)
        if not self._writing:
            self._writing = True
            self._writer = loop.create_task(self._write_groups())
        # The write goes on even if this caller is cancelled; its outcome is the commit's.
        try:
            await asyncio.shield(item.future)
        except DBAPIError as exc:
            raise StorageError(match_id) from exc

    async def _write_groups(self) -> None:
        try:
            while self._pending:
                group = self._pending[:self.MAX_GROUP]
                del self._pending[:self.MAX_GROUP]
                try:
                    outcomes = await self.db.run_raw(self._write_group, group)
                except BaseException as exc:  # the commit failed: nothing of the group is stored
                    for item in group:
                        if not item.future.done():
                            item.future.set_exception(exc)
                    if isinstance(exc, asyncio.CancelledError):
                        raise
                    continue
                for item, outcome in zip(group, outcomes, strict=True):
                    if item.future.done():
                        continue
                    if outcome is None:
                        item.future.set_result(None)
                    else:
                        item.future.set_exception(outcome)
        finally:
            self._writing = False
            for item in self._pending:  # only if cancelled (shutdown)
                if not item.future.done():
                    item.future.set_exception(ConflictError(item.match_id))
            self._pending.clear()

    def _write_group(self, group: list[_Append]) -> list[Exception | None]:
        """Write a group in one transaction (on the database thread). Returns, per append, None
        (committed) or the ``ConflictError`` that refused it."""
        if len(group) > 1:
            try:
                self._transaction(group)
                return [None] * len(group)
            except (IntegrityError, _Refused):
                pass  # find the culprit(s): one transaction each
        out: list[Exception | None] = []
        for item in group:
            try:
                self._transaction([item])
                out.append(None)
            except (IntegrityError, _Refused):
                out.append(ConflictError(item.match_id))
        return out

    @property
    def _mark(self) -> str:
        """The driver's parameter marker."""
        return "?" if self.db.sqlite else "%s"

    def _transaction(self, group: list[_Append]) -> None:
        """``_write_items`` of ``group`` in one transaction."""
        self._in_transaction(self._write_items, group)

    def _in_transaction(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(cursor, *args)`` in one transaction, on a DBAPI connection of the engine's pool: an
        SQLAlchemy ``Connection`` and its transaction cost about as much CPU as the statements
        (events, checks, the pool's bookkeeping per statement). Driver errors are raised as
        SQLAlchemy's (``IntegrityError``, ``DBAPIError``), as a ``Connection`` raises them; a
        connection the database dropped is not given back to the pool."""
        engine = self.db.engine
        try:
            raw = engine.raw_connection()  # the pool raises the driver's own error: wrapped below
        except engine.dialect.loaded_dbapi.Error as exc:
            raise DBAPIError.instance(None, None, exc, engine.dialect.loaded_dbapi.Error,
                                      dialect=engine.dialect) from exc
        try:
            cur = raw.cursor()
            try:
                out = fn(cur, *args)
                raw.commit()
                return out
            except BaseException:
                raw.rollback()
                raise
            finally:
                cur.close()
        except engine.dialect.loaded_dbapi.Error as exc:
            invalidated = engine.dialect.is_disconnect(exc, raw.dbapi_connection, None)
            if invalidated:
                raw.invalidate(exc)
            raise DBAPIError.instance(None, None, exc, engine.dialect.loaded_dbapi.Error,
                                      connection_invalidated=invalidated,
                                      dialect=engine.dialect) from exc
        finally:
            raw.close()

    def _write_items(self, cur: Any, group: list[_Append]) -> None:
        """A few statements for the whole group, whatever its size: on SQLite each statement
        costs the writer thread a GIL hand-off, which under load dominates the write. ``cur``:
        a DBAPI cursor in the group's transaction."""
        p = self._mark
        row = f"({p}, CAST({p} AS INTEGER), {p}, CAST({p} AS INTEGER), CAST({p} AS VARCHAR(16)), " \
              f"CAST({p} AS DOUBLE PRECISION))"
        params: list[Any] = []
        for item in group:
            v = item.values
            params += (item.match_id, item.expected_last_seq, item.owner, v["last_seq"], v.get("status"),
                       v.get("ended_at"))
        # b: (id, expected last seq, owner, new last seq, status, ended_at); no WITH, so that
        # the driver reports the row count.
        cur.execute(
            "UPDATE matches SET last_seq = b.column4, status = COALESCE(b.column5, matches.status), "
            "ended_at = COALESCE(b.column6, matches.ended_at) "
            f"FROM (VALUES {', '.join([row] * len(group))}) AS b "
            "WHERE matches.id = b.column1 AND matches.last_seq = b.column2 AND matches.owner = b.column3",
            tuple(params))
        if cur.rowcount != len(group):
            raise _Refused
        self._insert_events(cur, [(item.match_id, e.seq, e.time, e.kind, e.text)
                                  for item in group for e in item.events])
        requests = [tuple(item.request[c] for c in _REQUEST_COLUMNS) for item in group if item.request]
        for k in range(0, len(requests), 1000):
            chunk = requests[k:k + 1000]
            cur.execute(
                f"INSERT INTO match_requests ({', '.join(_REQUEST_COLUMNS)}) VALUES "
                + ", ".join([f"({p}, {p}, {p}, {p}, {p}, {p})"] * len(chunk)),
                tuple(x for rq in chunk for x in rq))

    def _insert_events(self, cur: Any, events: list[tuple[str, int, float, str, str]]) -> None:
        """Multi-row INSERTs of (match id, seq, time, kind, JSON payload) rows."""
        p = self._mark
        for k in range(0, len(events), 1000):
            chunk = events[k:k + 1000]
            cur.execute(
                "INSERT INTO match_events (match_id, seq, time, kind, payload) VALUES "
                + ", ".join([f"({p}, {p}, {p}, {p}, {p})"] * len(chunk)),
                tuple(x for ev in chunk for x in ev))

    # --- ownership ---------------------------------------------------------------------

    async def claim(self, match_id: str, owner: str, lease_seconds: float) -> bool:
        """Take (or keep) ownership of a match whose lease is ours (same server id, e.g. after a
        restart), free or expired."""
        def work(s: Session) -> bool:
            now = time.time()
            result = s.exec(  # type: ignore[call-overload]
                update(MatchRow).where(
                    MatchRow.id == match_id,  # type: ignore[arg-type]
                    or_(MatchRow.owner == owner, MatchRow.owner == "",  # type: ignore[arg-type]
                        MatchRow.owner.startswith(owner.partition("|")[0] + "|"),  # type: ignore[attr-defined]
                        MatchRow.lease_until < now))  # type: ignore[arg-type]
                .values(owner=owner, lease_until=now + lease_seconds))
            return result.rowcount == 1

        return await self.db.run(work)

    async def renew(self, owner: str, lease_seconds: float) -> int:
        """Extend the leases of every running match ``owner`` owns. Returns how many."""
        def work(s: Session) -> int:
            result = s.exec(  # type: ignore[call-overload]
                update(MatchRow).where(MatchRow.owner == owner,  # type: ignore[arg-type]
                                       MatchRow.status == "in-progress")  # type: ignore[arg-type]
                .values(lease_until=time.time() + lease_seconds))
            return int(result.rowcount or 0)

        return await self.db.run(work)

    async def release(self, owner: str, match_ids: list[str] | None = None) -> None:
        """Give up ownership (drain): others may take the matches over at once."""
        def work(s: Session) -> None:
            q = update(MatchRow).where(MatchRow.owner == owner)  # type: ignore[arg-type]
            if match_ids is not None:
                q = q.where(MatchRow.id.in_(match_ids))  # type: ignore[attr-defined]
            s.exec(q.values(owner="", lease_until=0.0))  # type: ignore[call-overload]

        await self.db.run(work)

    async def claimable(self, owner: str) -> list[str]:
        """Running matches that are ours, unowned, or whose lease expired."""
        def work(s: Session) -> list[str]:
            now = time.time()
            return list(s.exec(select(MatchRow.id).where(
                MatchRow.status == "in-progress",
                or_(MatchRow.owner == owner, MatchRow.owner == "",  # type: ignore[arg-type]
                        MatchRow.owner.startswith(owner.partition("|")[0] + "|"),  # type: ignore[attr-defined]
                    MatchRow.lease_until < now))))  # type: ignore[arg-type]

        return await self.db.run(work)
