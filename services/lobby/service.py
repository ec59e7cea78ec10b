"""LobbyService and MatchRegistryService over grpc.aio.

State: the database is the source of truth, so several lobby processes on one PostgreSQL database
behave as one lobby.

- Tables: every change is one transaction that reads the table's row ``FOR UPDATE``, applies the
  pure change (``tables.Table``) and writes it back, so concurrent joins through any number of
  lobbies never over-fill a table. Each process keeps a cache of the live tables (``self.tables``)
  for ListTables and WatchTables; it is updated by the process's own changes and, on PostgreSQL,
  by ``NOTIFY wordarena_lobby_tables`` (sent in the changing transaction, so delivered only once
  committed) received on a ``LISTEN`` connection, plus a full resync when that connection
  (re)connects and every ``resync_s``. Table versions only grow, so a change is applied (and
  broadcast to WatchTables streams) once, whatever way it arrives.
- Quick-match tickets are rows; a matchmaking step claims groups with ``FOR UPDATE SKIP LOCKED``
  (``store.claim_groups``), so two lobbies never match the same ticket. Ticket watchers wake on
  ``NOTIFY wordarena_lobby_tickets`` (and poll the row as a fallback). A ticket can be cancelled
  while its group is being allocated: the allocation checks its claim on every ticket under row
  locks before it creates the match and again in the transaction that records it, so either the
  cancel wins (nobody is seated, the rest of the group goes back to the queue in its place) or
  the match was committed first (the cancel is refused: the ticket is matched).
- The background loop (every ``matchmaking_tick_s``) claims groups, but does not wait for their
  allocations: each runs as a task of its own, so a slow or hanging match server (CreateMatch may
  take up to ``create_match_timeout_s`` per server) does not hold up the loop's other work
  (housekeeping, table expiry, resync, gauges, watch heartbeats). A QuickMatch call's own step
  waits for the allocation of the groups it claimed, so its answer carries the assignment.
- Housekeeping (every lobby, every ``housekeeping_s``): closed tickets older than
  ``ticket_retention_s`` are deleted (``store.delete_old_tickets``; concurrent lobbies delete
  disjoint rows), and so are expired sign-in failure rows (``store.delete_expired_sign_in_failures``).
- Sign-in throttle: failed sign-ins are rows per name (``lobby_sign_in_failures``). Every SignIn
  counts itself as a failure before its password is checked, in a transaction of its own with the
  row locked (``store.count_sign_in_attempt``; refused there once locked out), and a success then
  clears the row. So the limit (``passwords.FailureThrottle``) holds across all lobbies, for
  attempts at once too, and survives restarts.
- SQLite (one process): the same code; its one writer thread serialises the transactions and there
  is no listener.

Matches are allocated on the least-loaded healthy registered match server through
``MatchControlService.CreateMatch``. A match created for a quick-match group whose allocation was
then withdrawn (a ticket cancelled meanwhile) is aborted on its match server with
``MatchControlService.AbortMatch``, in the background and best effort: retried on failure after
each of ``abort_retry_delays_s``, then given up (logged). Pending retries do not survive a stop of
the lobby.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from prometheus_client import Counter, Gauge, Histogram
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select
from wordarena.services.common import auth, logs
from wordarena.services.common.db import Database
from wordarena.services.common.errors import ServiceError, abort_with, detail
from wordarena.services.lobby import convert, store
from wordarena.services.lobby.errors import LobbyError
from wordarena.services.lobby.matchmaking import TICKET_TTL_S, Criteria, Group, Ticket, TicketStatus
from wordarena.services.lobby.models import MatchRow, MatchSeatRow, MatchServerRow, PlayerRow, RecordRow
from wordarena.services.lobby.names import name_skeleton, validate_display_name
from wordarena.services.lobby.passwords import FailureThrottle, Passwords, validate_password
from wordarena.services.lobby.records import (
    PlayerRecord,
    SeatEnd,
    apply_result,
    check_outcomes,
    decide_outcomes,
)
from wordarena.services.lobby.settings import (
    HOUSEKEEPING_INTERVAL_S,
    TICKET_RETENTION_S,
    TableConfig,
    catalog,
    challenge_modes,
    resolve_ruleset,
    validate_settings,
)
from wordarena.services.lobby.tables import Occupant, Table, TableStatus, bot_player_id
from wordarena.v1 import (
    common_pb2,
    control_pb2,
    control_pb2_grpc,
    errors_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
)

log = logs.get_logger("wordarena.lobby")

TABLES_OPEN = Gauge("wordarena_tables_open", "Tables open (waiting for players).")
PLAYERS_ONLINE = Gauge("wordarena_players_online", "Players seen in the last 5 minutes.")
MM_WAIT = Histogram(
    "wordarena_matchmaking_wait_seconds",
    "Time from QuickMatch to an assignment.",
    buckets=(0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 900),
)
ALLOCATIONS = Counter(
    "wordarena_allocations_total",
    "Match allocations, by result (ok, no_capacity, failed, withdrawn: created, but a quick-match "
    "ticket of the group was cancelled before the match was committed).",
    ["result"],
)
MATCH_ABORTS = Counter(
    "wordarena_match_aborts_total",
    "AbortMatch calls for withdrawn allocations, by outcome: aborted (or already aborted), refused "
    "(NOT_FOUND, FAILED_PRECONDITION or UNIMPLEMENTED: not retried), retry (failed; tried again "
    "later), given_up (failed at the last attempt).",
    ["result"],
)
TICKETS_DELETED = Counter(
    "wordarena_tickets_deleted_total",
    "Closed quick-match tickets (cancelled, expired, matched) deleted after the retention.",
)
#: States of registered match servers in ``wordarena_match_servers``.
SERVER_STATES = ("healthy", "stale", "draining")
#: A server silent for longer than this is forgotten by ``wordarena_match_servers`` (not stale).
STALE_WINDOW_S = 3600.0
MATCH_SERVERS = Gauge(
    "wordarena_match_servers",
    "Registered match servers by state: healthy (heartbeat within --server-ttl, not draining), "
    "draining (heartbeat within --server-ttl, draining), stale (last heartbeat older than "
    "--server-ttl, within the last hour).",
    ["state"],
)
MATCH_CAPACITY = Gauge("wordarena_match_capacity",
                       "Matches the healthy match servers accept in total (their reported capacity).")
MATCH_LOAD = Gauge("wordarena_match_load",
                   "Matches in progress on the healthy match servers (their reported load).")
for _state in SERVER_STATES:
    MATCH_SERVERS.labels(_state)

_REQUEST_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_ONLINE_WINDOW_S = 300.0

# How long a repeated request waits for the first one (same request_id) to finish.
REQUEST_WAIT_S = 10.0


WITHDRAWN_REASON = "withdrawn: a quick-match ticket was cancelled during the allocation"
#: AbortMatch of a withdrawn allocation is retried after these waits (about 13 minutes in all).
ABORT_RETRY_DELAYS_S = (1.0, 5.0, 30.0, 120.0, 600.0)
#: Reasons that make a retry of AbortMatch pointless: nothing there to abort, or a match server
#: that does not know AbortMatch (an older version).
_ABORT_FINAL = (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION,
                grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.INVALID_ARGUMENT)


@dataclass
class LobbyOptions:
    """Tunables of the lobby (defaults as documented in lobby.proto)."""

    token_ttl_s: float = 30 * 24 * 3600.0
    service_token_ttl_s: float = 3600.0
    server_ttl_s: float = 15.0
    heartbeat_interval_s: float = 5.0
    table_expiry_s: float = 3600.0
    create_match_timeout_s: float = 10.0
    matchmaking_tick_s: float = 0.25
    watch_heartbeat_s: float = 30.0
    watch_queue_size: int = 256
    password_time_cost: int = 2
    password_memory_kib: int = 19 * 1024
    service_secret: str = ""
    #: PostgreSQL: full reload of the table cache this often (a safety net under NOTIFY).
    resync_s: float = 30.0
    #: PostgreSQL: ticket watchers re-read their ticket this often (a safety net under NOTIFY).
    ticket_poll_s: float = 1.0
    #: A table STARTING for longer than this (its lobby died while allocating) is opened again.
    starting_stale_s: float = 60.0
    #: A quick-match group claimed for longer than this (same) is queued again.
    ticket_reclaim_s: float = 120.0
    #: Closed tickets are deleted once closed this long (0 = never).
    ticket_retention_s: float = TICKET_RETENTION_S
    #: Housekeeping (the ticket clean-up) runs this often.
    housekeeping_s: float = HOUSEKEEPING_INTERVAL_S
    #: AbortMatch of a withdrawn allocation: waits before each retry (then it is given up).
    abort_retry_delays_s: tuple[float, ...] = ABORT_RETRY_DELAYS_S


class AllocationWithdrawn(Exception):
    """The match was created, but a ticket of its group was cancelled before it was committed:
    nothing was recorded for the players (the rest of the group is queued again)."""


def _now() -> float:
    return time.time()


def _check_request_id(rid: str, field: str = "request_id") -> None:
    if not rid or len(rid) > 64 or not set(rid) <= _REQUEST_ID_CHARS:
        raise LobbyError.invalid("request_id must be 1..64 characters of [A-Za-z0-9_-]", field)


def _check_id(value: str, what: str, field: str) -> None:
    if not value:
        raise LobbyError.invalid(f"{what} is required", field)
    if len(value) > 64 or not set(value) <= _REQUEST_ID_CHARS | {":"}:
        raise LobbyError.not_found(f"unknown {what}", field)


def _page(size: int, default: int, maximum: int) -> int:
    if size < 0:
        raise LobbyError.invalid("page_size must not be negative", "page_size")
    return min(size or default, maximum)


def _token_offset(token: str, key: str) -> int:
    """Decodes an opaque page token "<key>:<offset>" bound to the request's other fields."""
    if not token:
        return 0
    k, _, off = token.rpartition(":")
    if k != key or not off.isdigit():
        raise LobbyError.invalid("bad page_token (or the request changed since)", "page_token")
    return int(off)


def _page_key(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:12]


def _to_service_error(e: LobbyError) -> ServiceError:
    details: list[Message] = []
    code_value = errors_pb2.LobbyCode.Value(f"LOBBY_CODE_{e.code}") if e.code else 0
    details.append(
        errors_pb2.LobbyViolation(code=code_value, code_name=e.code, message=e.message, field=e.field)
    )
    if e.field and e.status == grpc.StatusCode.INVALID_ARGUMENT:
        details.append(
            error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(field=e.field, description=e.message)
                ]
            )
        )
    if e.retry_after_s is not None:
        info = error_details_pb2.RetryInfo()
        info.retry_delay.FromNanoseconds(int(e.retry_after_s * 1e9))
        details.append(info)
    return ServiceError(e.status, e.message, *details)


def unary(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """Turns LobbyError / ServiceError raised by a unary handler into rich statuses."""

    @functools.wraps(fn)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            return await fn(self, request, context)
        except LobbyError as e:
            await abort_with(context, _to_service_error(e))
        except ServiceError as e:
            await abort_with(context, e)

    return wrapper


def streaming(fn: Callable[..., AsyncIterator[Any]]) -> Callable[..., AsyncIterator[Any]]:
    """The same for server-streaming handlers."""

    @functools.wraps(fn)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        try:
            async for item in fn(self, request, context):
                yield item
        except LobbyError as e:
            await abort_with(context, _to_service_error(e))
        except ServiceError as e:
            await abort_with(context, e)

    return wrapper


@dataclass
class _Watcher:
    filter: lobby_pb2.TableFilter
    queue: asyncio.Queue[lobby_pb2.WatchTablesResponse | None]
    seen: set[str] = field(default_factory=set)
    overflow: bool = False


def _matches_filter(t: Table, f: lobby_pb2.TableFilter, viewer: str) -> bool:
    statuses = {convert.TABLE_STATUS_FROM_PB.get(s) for s in f.statuses} or {TableStatus.OPEN}
    if t.status not in statuses:
        return False
    if t.config.private and t.seat_of(viewer) is None:
        return False
    if f.ruleset_id and t.config.ruleset_id != f.ruleset_id:
        return False
    if f.language and t.config.language != f.language.lower():
        return False
    if f.has_free_seat and t.full:
        return False
    return not (f.seats and t.config.seats != f.seats)


def _check_filter(f: lobby_pb2.TableFilter) -> None:
    for s in f.statuses:
        if s not in convert.TABLE_STATUS_FROM_PB:
            raise LobbyError.invalid("unknown table status", "filter.statuses")
    if f.seats and not 2 <= f.seats <= 4:
        raise LobbyError.invalid("seats must be 2..4 or 0", "filter.seats")
    if len(f.ruleset_id) > 32 or len(f.language) > 16:
        raise LobbyError.invalid("filter value too long", "filter")


class Lobby(lobby_pb2_grpc.LobbyServiceServicer, control_pb2_grpc.MatchRegistryServiceServicer):
    """The lobby: both LobbyService (clients) and MatchRegistryService (match servers)."""

    def __init__(self, db: Database, keys: auth.TokenKeys, options: LobbyOptions | None = None) -> None:
        self.db = db
        self.keys = keys
        self.opt = options or LobbyOptions()
        self.passwords = Passwords(self.opt.password_time_cost, self.opt.password_memory_kib)
        #: The sign-in failure policy; the failures themselves are rows shared by every lobby.
        self.throttle = FailureThrottle()
        self.tables: dict[str, Table] = {}
        self.ticket_events: dict[str, asyncio.Event] = {}
        self._dirty: set[str] = set()
        self._dirty_event = asyncio.Event()
        self._listening = asyncio.Event()
        self.watchers: list[_Watcher] = []
        self.online: dict[str, float] = {}
        self._channels: dict[str, grpc.aio.Channel] = {}
        self._service_token: tuple[str, float] = ("", 0.0)
        self._tasks: list[asyncio.Task[None]] = []
        self._aborts: set[asyncio.Task[bool]] = set()
        #: Allocations started by the background loop (``_run_matchmaking(wait=False)``).
        self._allocations: set[asyncio.Task[None]] = set()
        self._views: dict[str, tuple[tuple[int, TableStatus, str], lobby_pb2.Table]] = {}
        PLAYERS_ONLINE.set_function(self._online_count)

    # -- life cycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Loads tables and starts the background loop (matchmaking, expiry, housekeeping) and,
        on PostgreSQL, the change listener (waiting up to 5 s for it to listen)."""
        await self._resync_tables()
        await self._reopen_stale_starting()
        self._update_gauges()
        self._tasks.append(asyncio.create_task(self._background()))
        if not self.db.sqlite:
            self._tasks.append(asyncio.create_task(self._listen()))
            self._tasks.append(asyncio.create_task(self._refresher()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._listening.wait(), 5.0)

    # -- the table cache and cross-process changes -------------------------------------------------

    def _apply(self, t: Table) -> bool:
        """Puts a table (as read from or written to the database) in the cache and tells the
        watchers, unless the cache already holds this version or a later one."""
        old = self.tables.get(t.table_id)
        if old is not None and old.version >= t.version:
            return False
        cut = _now() - self.opt.table_expiry_s
        if old is None and t.status in (TableStatus.CLOSED, TableStatus.STARTED) and t.created_at < cut:
            return False  # long gone from the cache: nothing to tell
        self.tables[t.table_id] = t
        if t.status == TableStatus.CLOSED:
            kind = lobby_pb2.TABLE_CHANGE_KIND_CLOSED
        elif t.status == TableStatus.STARTED and (old is None or old.status != TableStatus.STARTED):
            kind = lobby_pb2.TABLE_CHANGE_KIND_STARTED
        elif old is None:
            kind = lobby_pb2.TABLE_CHANGE_KIND_OPENED
        else:
            kind = lobby_pb2.TABLE_CHANGE_KIND_UPDATED
        self._update_gauges()
        self._broadcast(t, kind)
        return True

    async def _resync_tables(self) -> None:
        for t in await self.db.run(store.load_tables, _now() - self.opt.table_expiry_s):
            self._apply(t)

    async def _reopen_stale_starting(self) -> None:
        for tid in await self.db.run(store.stale_starting, _now() - self.opt.starting_stale_s):
            await self._mutate(tid, lambda t: t.start_failed() if t.status == TableStatus.STARTING else None)

    def _pg_conninfo(self) -> str:
        return make_url(self.db.url).set(drivername="postgresql").render_as_string(hide_password=False)

    async def _listen(self) -> None:
        """LISTENs for table and ticket changes of every lobby; resyncs on each (re)connection."""
        import psycopg

        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self._pg_conninfo(), autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {store.TABLES_CHANNEL}")
                    await conn.execute(f"LISTEN {store.TICKETS_CHANNEL}")
                    await self._resync_tables()
                    self._listening.set()
                    async for n in conn.notifies():
                        if n.channel == store.TABLES_CHANNEL:
                            self._dirty.add(n.payload)
                            self._dirty_event.set()
                        else:
                            self._notify(n.payload)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("change listener lost; reconnecting", error=repr(exc))
                self._listening.clear()
                await asyncio.sleep(1.0)

    async def _refresher(self) -> None:
        """Reads the tables named by notifications (in batches) into the cache."""
        while True:
            await self._dirty_event.wait()
            self._dirty_event.clear()
            ids, self._dirty = list(self._dirty), set()
            try:
                for t in await self.db.run(store.get_tables, ids):
                    self._apply(t)
            except Exception as exc:  # pragma: no cover - the next resync catches up
                log.warning("table refresh failed", error=repr(exc))

    async def _mutate(self, table_id: str, fn: Callable[[Table], Any]) -> tuple[Table, Any]:
        """Applies ``fn`` to the table in one transaction holding its row lock; saves it (and
        notifies the other lobbies) if its version changed. Returns (table after, fn's result)."""

        def work(s: Session) -> tuple[Table, Any]:
            t = store.lock_table(s, table_id)
            if t is None:
                raise LobbyError.not_found(f"no table {table_id!r}", "table_id")
            before = t.version
            result = fn(t)
            if t.version != before:
                store.save_table(s, t, _now())
                store.notify(s, store.TABLES_CHANNEL, t.table_id)
            return t, result

        t, result = await self.db.run(work)
        self._apply(t)
        return t, result

    async def stop(self) -> None:
        """Ends streams and background work, closes channels."""
        for t in (*self._tasks, *self._allocations, *self._aborts):
            t.cancel()
        for t in (*self._tasks, *self._allocations, *self._aborts):
            with contextlib.suppress(asyncio.CancelledError):
                await t
        for w in self.watchers:
            with contextlib.suppress(asyncio.QueueFull):
                w.queue.put_nowait(None)
        for ev in self.ticket_events.values():
            ev.set()
        for ch in self._channels.values():
            await ch.close()
        self._channels.clear()

    async def update_server_gauges(self) -> dict[str, int]:
        """Sets ``wordarena_match_servers{state}``, ``wordarena_match_capacity`` and
        ``wordarena_match_load`` from the registry. Returns the server count by state."""
        now = _now()
        rows = await self.db.run(
            lambda s: list(s.exec(select(MatchServerRow).where(
                MatchServerRow.last_heartbeat >= now - STALE_WINDOW_S))))
        counts = dict.fromkeys(SERVER_STATES, 0)
        capacity = load = 0
        for r in rows:
            if r.last_heartbeat < now - self.opt.server_ttl_s:
                counts["stale"] += 1
            elif r.draining:
                counts["draining"] += 1
            else:
                counts["healthy"] += 1
                capacity += r.capacity
                load += r.active
        for state, n in counts.items():
            MATCH_SERVERS.labels(state).set(n)
        MATCH_CAPACITY.set(capacity)
        MATCH_LOAD.set(load)
        return counts

    async def housekeep(self) -> int:
        """Deletes the closed tickets older than ``ticket_retention_s`` and the sign-in failure
        rows that throttle nothing any more (all their failures out of the window), in batches,
        one transaction each; returns how many tickets. Safe in several lobbies at once."""
        now = _now()
        await self._delete_in_batches(store.delete_expired_sign_in_failures, now,
                                      "expired sign-in failures deleted")
        if self.opt.ticket_retention_s <= 0:
            return 0
        return await self._delete_in_batches(store.delete_old_tickets,
                                             now - self.opt.ticket_retention_s,
                                             "old tickets deleted", TICKETS_DELETED)

    async def _delete_in_batches(
        self, delete: Callable[[Session, float, int], int], before: float, message: str,
        counter: Counter | None = None, batch: int = 1000,
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
        last_gauges = last_resync = last_housekeeping = 0.0
        while True:
            await asyncio.sleep(self.opt.matchmaking_tick_s)
            try:
                await self._run_matchmaking(wait=False)
                await self._expire_tables()
                if time.monotonic() - last_housekeeping >= self.opt.housekeeping_s:
                    last_housekeeping = time.monotonic()
                    await self.housekeep()
                if not self.db.sqlite and time.monotonic() - last_resync >= self.opt.resync_s:
                    last_resync = time.monotonic()
                    await self._resync_tables()
                    await self._reopen_stale_starting()
                if time.monotonic() - last_gauges >= self.opt.heartbeat_interval_s:
                    last_gauges = time.monotonic()
                    await self.update_server_gauges()
                if time.monotonic() - last_heartbeat >= self.opt.watch_heartbeat_s:
                    last_heartbeat = time.monotonic()
                    self._broadcast_heartbeat()
            except Exception as exc:  # pragma: no cover - logged, the loop goes on
                log.warning("background step failed", error=repr(exc))

    def _online_count(self) -> int:
        cut = _now() - _ONLINE_WINDOW_S
        for pid in [p for p, t in self.online.items() if t < cut]:
            del self.online[pid]
        return len(self.online)

    def _update_gauges(self) -> None:
        TABLES_OPEN.set(sum(1 for t in self.tables.values() if t.status == TableStatus.OPEN))

    # -- auth -----------------------------------------------------------------------------------

    def _claims(self, context: grpc.aio.ServicerContext) -> auth.Claims:
        token = auth.bearer_token_from_metadata(context.invocation_metadata())
        if token is None:
            raise LobbyError(
                grpc.StatusCode.UNAUTHENTICATED, "missing 'authorization: Bearer <token>' metadata"
            )
        try:
            claims = self.keys.verify(token)
        except auth.TokenError as exc:
            raise LobbyError(grpc.StatusCode.UNAUTHENTICATED, exc.message) from exc
        return claims

    def _player(self, context: grpc.aio.ServicerContext) -> auth.Claims:
        claims = self._claims(context)
        if claims.is_service:
            raise LobbyError(grpc.StatusCode.PERMISSION_DENIED, "service tokens cannot act as players")
        self.online[claims.player_id] = _now()
        logs.bind(player_id=claims.player_id)
        return claims

    def _service(self, context: grpc.aio.ServicerContext) -> None:
        token = auth.bearer_token_from_metadata(context.invocation_metadata())
        secret = self.opt.service_secret
        if token is not None and secret and hmac.compare_digest(token.encode(), secret.encode()):
            return
        claims = self._claims(context)
        if not claims.is_service:
            raise LobbyError(grpc.StatusCode.PERMISSION_DENIED, "a service token is needed")

    def service_token(self) -> str:
        """The bearer token the lobby presents to match servers."""
        if self.opt.service_secret:
            return self.opt.service_secret
        tok, exp = self._service_token
        if exp - _now() < 60:
            tok = self.keys.issue("lobby", "lobby", self.opt.service_token_ttl_s, kind="service")
            self._service_token = (tok, _now() + self.opt.service_token_ttl_s)
        return tok

    def _auth_token(self, player: PlayerRow) -> lobby_pb2.AuthToken:
        tok = self.keys.issue(player.id, player.display_name, self.opt.token_ttl_s)
        return lobby_pb2.AuthToken(token=tok, expire_time=convert.ts(_now() + self.opt.token_ttl_s))

    @staticmethod
    def _player_pb(p: PlayerRow) -> common_pb2.Player:
        return common_pb2.Player(player_id=p.id, display_name=p.display_name, guest=p.guest)

    # -- idempotency ------------------------------------------------------------------------------

    async def _idempotent(
        self,
        player_id: str,
        method: str,
        request_id: str,
        cls: type[Message],
        make: Callable[[], Awaitable[Message]],
    ) -> Any:
        _check_request_id(request_id)
        key = (player_id, method, request_id)
        deadline = time.monotonic() + REQUEST_WAIT_S
        while True:
            try:
                stored = await self.db.run(store.claim_request, *key, _now())
            except IntegrityError:  # another lobby (or call) claimed it first
                stored = await self.db.run(store.get_request, *key)
            if stored is None:
                break
            if stored != store.PENDING:
                return cls.FromString(stored)
            if time.monotonic() > deadline:
                raise LobbyError(grpc.StatusCode.ABORTED,
                                 "the same request_id is still being handled; retry",
                                 retry_after_s=1.0)
            await asyncio.sleep(0.05)
        try:
            resp = await make()
        except BaseException:
            await self.db.run(store.drop_request, *key)
            raise
        await self.db.run(store.put_request, *key, resp.SerializeToString())
        return resp

    # -- players ----------------------------------------------------------------------------------

    @unary
    async def SignInGuest(
        self, request: lobby_pb2.SignInGuestRequest, context: Any
    ) -> lobby_pb2.SignInGuestResponse:
        name = validate_display_name(request.display_name)
        key = name_skeleton(name)
        now = _now()

        def work(s: Session) -> PlayerRow:
            if store.name_in_use(s, key, now - self.opt.token_ttl_s):
                raise LobbyError(
                    grpc.StatusCode.ALREADY_EXISTS, "that name is in use", "NAME_TAKEN", "display_name"
                )
            p = PlayerRow(
                id=f"p_{uuid.uuid4().hex}", display_name=name, name_key=key, created_at=now, last_seen=now
            )
            s.add(p)
            return p

        player = await self.db.run(work)
        self.online[player.id] = now
        log.info("guest signed in", player_id=player.id)
        return lobby_pb2.SignInGuestResponse(player=self._player_pb(player), token=self._auth_token(player))

    @unary
    async def ClaimAccount(self, request: lobby_pb2.ClaimAccountRequest, context: Any) -> Any:
        claims = self._player(context)
        name = validate_display_name(request.name, "name") if request.name else None
        validate_password(request.password)
        hashed = await asyncio.to_thread(self.passwords.hash, request.password)
        now = _now()

        def work(s: Session) -> PlayerRow:
            p = s.get(PlayerRow, claims.player_id)
            if p is None:
                raise LobbyError(grpc.StatusCode.UNAUTHENTICATED, "unknown player")
            if not p.guest:
                raise LobbyError.precondition("ALREADY_CLAIMED", "this account is already claimed")
            if name is not None:
                key = name_skeleton(name)
                if store.name_in_use(s, key, now - self.opt.token_ttl_s, except_id=p.id):
                    raise LobbyError(
                        grpc.StatusCode.ALREADY_EXISTS, "that name is in use", "NAME_TAKEN", "name"
                    )
                p.display_name, p.name_key = name, key
            p.guest, p.password_hash, p.last_seen = False, hashed, now
            s.add(p)
            return p

        p = await self.db.run(work)
        return lobby_pb2.ClaimAccountResponse(player=self._player_pb(p), token=self._auth_token(p))

    @unary
    async def SignIn(self, request: lobby_pb2.SignInRequest, context: Any) -> lobby_pb2.SignInResponse:
        if len(request.name) > 64 or len(request.password) > 256:
            raise LobbyError(grpc.StatusCode.UNAUTHENTICATED, "wrong name or password")
        key = name_skeleton(request.name)

        def begin(s: Session) -> tuple[float | None, PlayerRow | None]:
            # Counted (as a failure) before the password is checked, and committed: attempts at
            # once, through any lobby, see each other, so at most the throttle's limit are checked.
            # Unknown names are counted and checked (against a dummy hash) all the same.
            wait = store.count_sign_in_attempt(s, key, _now(), self.throttle)
            if wait is not None:
                return wait, None
            q = select(PlayerRow).where(PlayerRow.name_key == key, PlayerRow.guest == False)  # noqa: E712
            return None, s.exec(q).first()

        wait, p = await self.db.run(begin)
        if wait is not None:
            raise LobbyError(
                grpc.StatusCode.RESOURCE_EXHAUSTED, "too many failed sign-ins", retry_after_s=wait
            )
        # Argon2 (slow): outside the transaction, no row lock held.
        ok = await asyncio.to_thread(self.passwords.verify, p.password_hash if p else None, request.password)
        if not ok or p is None:
            raise LobbyError(grpc.StatusCode.UNAUTHENTICATED, "wrong name or password")
        # a success forgets the failures, this attempt's with them
        await self.db.run(store.clear_sign_in_failures, key)
        self.online[p.id] = _now()
        return lobby_pb2.SignInResponse(player=self._player_pb(p), token=self._auth_token(p))

    async def _get_player(self, player_id: str) -> PlayerRow:
        def work(s: Session) -> PlayerRow | None:
            p = s.get(PlayerRow, player_id)
            if p is not None:
                p.last_seen = _now()
                s.add(p)
            return p

        p = await self.db.run(work)
        if p is None:
            raise LobbyError(grpc.StatusCode.UNAUTHENTICATED, "unknown player")
        return p

    @unary
    async def RefreshToken(self, request: Any, context: Any) -> lobby_pb2.RefreshTokenResponse:
        claims = self._player(context)
        p = await self._get_player(claims.player_id)
        return lobby_pb2.RefreshTokenResponse(token=self._auth_token(p))

    @unary
    async def GetMe(self, request: Any, context: Any) -> lobby_pb2.GetMeResponse:
        claims = self._player(context)
        p = await self._get_player(claims.player_id)
        return lobby_pb2.GetMeResponse(player=self._player_pb(p), create_time=convert.ts(p.created_at))

    # -- tables -----------------------------------------------------------------------------------

    def _broadcast(self, t: Table, kind: int) -> None:
        now = convert.ts(_now())
        for w in list(self.watchers):
            if w.overflow:
                continue
            match = _matches_filter(t, w.filter, "")
            k = kind
            if not match:
                if t.table_id not in w.seen:
                    continue
                w.seen.discard(t.table_id)
                k = lobby_pb2.TABLE_CHANGE_KIND_CLOSED
            elif t.table_id not in w.seen:
                w.seen.add(t.table_id)
                if k == lobby_pb2.TABLE_CHANGE_KIND_UPDATED:
                    k = lobby_pb2.TABLE_CHANGE_KIND_OPENED
            msg = lobby_pb2.WatchTablesResponse(kind=k, table=convert.table_pb(t), time=now)
            try:
                w.queue.put_nowait(msg)
            except asyncio.QueueFull:
                w.overflow = True
                with contextlib.suppress(asyncio.QueueEmpty):
                    w.queue.get_nowait()
                w.queue.put_nowait(None)

    def _broadcast_heartbeat(self) -> None:
        msg = lobby_pb2.WatchTablesResponse(
            kind=lobby_pb2.TABLE_CHANGE_KIND_HEARTBEAT, time=convert.ts(_now())
        )
        for w in self.watchers:
            with contextlib.suppress(asyncio.QueueFull):
                w.queue.put_nowait(msg)

    def _table_view(self, t: Table, viewer: str) -> lobby_pb2.Table:
        """The table as ``viewer`` sees it; the view of non-seated players is cached per version."""
        if t.seat_of(viewer) is not None:
            return convert.table_pb(t, viewer)
        cached = self._views.get(t.table_id)
        if cached is None or cached[0] != (t.version, t.status, t.match_address):
            cached = ((t.version, t.status, t.match_address), convert.table_pb(t))
            self._views[t.table_id] = cached
        return cached[1]

    async def _table(self, table_id: str) -> Table:
        """The table as committed now (read from the database)."""
        _check_id(table_id, "table", "table_id")
        (t,) = await self.db.run(store.get_tables, [table_id]) or (None,)
        if t is None:
            raise LobbyError.not_found(f"no table {table_id!r}", "table_id")
        return t

    def _check_invite(self, t: Table, code: str, player_id: str) -> None:
        if t.config.private and t.seat_of(player_id) is None and not hmac.compare_digest(code, t.invite_code):
            raise LobbyError.denied("BAD_INVITE_CODE", "a private table needs its invite code", "invite_code")

    @unary
    async def CreateTable(self, request: lobby_pb2.CreateTableRequest, context: Any) -> Any:
        claims = self._player(context)
        if not request.HasField("settings"):
            raise LobbyError.settings("settings are required", "settings")
        cfg = convert.config_from_pb(request.settings)
        seat = request.seat if request.HasField("seat") else None
        if seat is not None and (not 0 <= seat < cfg.seats or seat in dict(cfg.bots)):
            raise LobbyError.invalid(f"seat must be a free seat in 0..{cfg.seats - 1}", "seat")

        async def make() -> lobby_pb2.CreateTableResponse:
            p = await self._get_player(claims.player_id)
            t = Table.open(
                f"t_{uuid.uuid4().hex[:20]}",
                cfg,
                Occupant(p.id, p.display_name, guest=p.guest),
                seat,
                _now(),
            )

            def work(s: Session) -> None:
                store.save_table(s, t, _now())
                store.notify(s, store.TABLES_CHANNEL, t.table_id)

            await self.db.run(work)
            self._apply(t)
            log.info("table opened", table_id=t.table_id, ruleset=cfg.ruleset_id)
            if t.should_autostart:
                t = await self._start(t.table_id, claims.player_id)
            return lobby_pb2.CreateTableResponse(table=convert.table_pb(t, claims.player_id))

        return await self._idempotent(
            claims.player_id, "CreateTable", request.request_id, lobby_pb2.CreateTableResponse, make
        )

    @unary
    async def GetTable(self, request: lobby_pb2.GetTableRequest, context: Any) -> lobby_pb2.GetTableResponse:
        claims = self._player(context)
        t = await self._table(request.table_id)
        private = t.config.private and t.seat_of(claims.player_id) is None
        if private and not (request.invite_code and hmac.compare_digest(request.invite_code, t.invite_code)):
            raise LobbyError.denied("BAD_INVITE_CODE", "a private table needs its invite code", "invite_code")
        return lobby_pb2.GetTableResponse(table=convert.table_pb(t, claims.player_id))

    @unary
    async def ListTables(
        self, request: lobby_pb2.ListTablesRequest, context: Any
    ) -> lobby_pb2.ListTablesResponse:
        claims = self._player(context)
        _check_filter(request.filter)
        size = _page(request.page_size, 50, 200)
        key = _page_key(request.filter.SerializeToString(deterministic=True))
        off = _token_offset(request.page_token, key)
        rows = [t for t in self.tables.values() if _matches_filter(t, request.filter, claims.player_id)]
        rows.sort(key=lambda t: (-t.created_at, t.table_id))
        page = rows[off : off + size]
        return lobby_pb2.ListTablesResponse(
            tables=[self._table_view(t, claims.player_id) for t in page],
            next_page_token=f"{key}:{off + size}" if off + size < len(rows) else "",
            total_size=len(rows),
        )

    @streaming
    async def WatchTables(self, request: lobby_pb2.WatchTablesRequest, context: Any) -> AsyncIterator[Any]:
        claims = self._player(context)
        _check_filter(request.filter)
        w = _Watcher(request.filter, asyncio.Queue(self.opt.watch_queue_size))
        now = convert.ts(_now())
        initial = []
        for t in sorted(self.tables.values(), key=lambda t: -t.created_at):
            if _matches_filter(t, request.filter, claims.player_id):
                w.seen.add(t.table_id)
                initial.append(convert.table_pb(t, claims.player_id))
        self.watchers.append(w)
        try:
            for tb in initial:
                yield lobby_pb2.WatchTablesResponse(
                    kind=lobby_pb2.TABLE_CHANGE_KIND_EXISTING, table=tb, time=now
                )
            yield lobby_pb2.WatchTablesResponse(kind=lobby_pb2.TABLE_CHANGE_KIND_SYNCED, time=now)
            while True:
                msg = await w.queue.get()
                if msg is None:
                    if w.overflow:
                        raise LobbyError(
                            grpc.StatusCode.RESOURCE_EXHAUSTED, "too slow to keep up: reconnect to start over"
                        )
                    raise LobbyError(grpc.StatusCode.UNAVAILABLE, "lobby shutting down: reconnect")
                yield msg
        finally:
            self.watchers.remove(w)

    @unary
    async def JoinTable(
        self, request: lobby_pb2.JoinTableRequest, context: Any
    ) -> lobby_pb2.JoinTableResponse:
        claims = self._player(context)
        _check_id(request.table_id, "table", "table_id")
        seat = request.seat if request.HasField("seat") else None

        async def make() -> lobby_pb2.JoinTableResponse:
            p = await self._get_player(claims.player_id)

            def sit(t: Table) -> int:
                self._check_invite(t, request.invite_code, p.id)
                return t.sit(Occupant(p.id, p.display_name, guest=p.guest), seat)

            t, i = await self._mutate(request.table_id, sit)
            if t.should_autostart:
                t = await self._start(t.table_id, t.host_player_id)
            return lobby_pb2.JoinTableResponse(table=convert.table_pb(t, p.id), seat=i)

        return await self._idempotent(
            claims.player_id, "JoinTable", request.request_id, lobby_pb2.JoinTableResponse, make
        )

    @unary
    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Any
    ) -> lobby_pb2.LeaveTableResponse:
        claims = self._player(context)
        _check_id(request.table_id, "table", "table_id")
        t, _ = await self._mutate(request.table_id, lambda t: t.leave(claims.player_id))
        return lobby_pb2.LeaveTableResponse(table=convert.table_pb(t, claims.player_id))

    @unary
    async def SitBot(self, request: lobby_pb2.SitBotRequest, context: Any) -> lobby_pb2.SitBotResponse:
        claims = self._player(context)
        _check_id(request.table_id, "table", "table_id")
        seat = request.seat if request.HasField("seat") else None

        async def make() -> lobby_pb2.SitBotResponse:
            t, _ = await self._mutate(
                request.table_id, lambda t: t.sit_bot(claims.player_id, request.bot_level or 3, seat)
            )
            if t.should_autostart:
                t = await self._start(t.table_id, t.host_player_id)
            return lobby_pb2.SitBotResponse(table=convert.table_pb(t, claims.player_id))

        return await self._idempotent(
            claims.player_id, "SitBot", request.request_id, lobby_pb2.SitBotResponse, make
        )

    @unary
    async def StartTable(
        self, request: lobby_pb2.StartTableRequest, context: Any
    ) -> lobby_pb2.StartTableResponse:
        claims = self._player(context)
        t0 = await self._table(request.table_id)

        async def make() -> lobby_pb2.StartTableResponse:
            t = t0
            if t.status == TableStatus.STARTED and t.seat_of(claims.player_id) is not None:
                pass  # started by itself when full: answer with where to play
            else:
                t.check_start(claims.player_id)
                t = await self._start(t.table_id, claims.player_id, raise_errors=True)
            seat = t.seat_of(claims.player_id)
            return lobby_pb2.StartTableResponse(
                table=convert.table_pb(t, claims.player_id),
                assignment=lobby_pb2.MatchAssignment(match_id=t.match_id, address=t.match_address, seat=seat),
            )

        return await self._idempotent(
            claims.player_id, "StartTable", request.request_id, lobby_pb2.StartTableResponse, make
        )

    async def _start(self, table_id: str, by: str, raise_errors: bool = False) -> Table:
        """OPEN → STARTING (in one locked transaction: only one caller, in any lobby, wins),
        allocation, → STARTED (or back to OPEN). Returns the table as it is afterwards."""

        def begin(t: Table) -> list[Occupant] | None:
            if raise_errors:
                t.check_start(by)
            if t.status != TableStatus.OPEN:
                return None
            return t.begin_start()

        t, occupants = await self._mutate(table_id, begin)
        if occupants is None:
            return t
        try:
            match_id, address = await self._allocate(t.config, occupants, t.table_id)
        except LobbyError:
            await self._mutate(
                table_id, lambda t: t.start_failed() if t.status == TableStatus.STARTING else None
            )
            if raise_errors:
                raise
            return self.tables.get(table_id, t)
        t, _ = await self._mutate(table_id, lambda t: t.started(match_id, address))
        log.info("table started", table_id=t.table_id, match_id=match_id, address=address)
        return t

    async def _expire_tables(self) -> None:
        cut = _now() - self.opt.table_expiry_s
        for t in list(self.tables.values()):
            if t.status == TableStatus.OPEN and t.created_at < cut:
                t, _ = await self._mutate(
                    t.table_id, lambda t: t.close() if t.status == TableStatus.OPEN else None
                )
            if t.status in (TableStatus.CLOSED, TableStatus.STARTED) and t.created_at < cut:
                self.tables.pop(t.table_id, None)
                self._views.pop(t.table_id, None)

    # -- allocation -------------------------------------------------------------------------------

    def _channel(self, address: str) -> grpc.aio.Channel:
        ch = self._channels.get(address)
        if ch is None:
            ch = grpc.aio.insecure_channel(address)
            self._channels[address] = ch
        return ch

    async def _allocate(
        self,
        cfg: TableConfig,
        occupants: list[Occupant],
        table_id: str = "",
        commit: Callable[[Session, str, str], bool] | None = None,
    ) -> tuple[str, str]:
        """Creates the match on the least-loaded healthy server; returns (match id, address).

        ``commit(session, match_id, address)`` runs in the transaction that records the match;
        when it returns False the match is recorded as aborted (no seats, unrated) and
        ``AllocationWithdrawn`` is raised."""
        match_id = f"m_{uuid.uuid4().hex}"
        servers = await self.db.run(store.healthy_servers, _now() - self.opt.server_ttl_s)
        if not servers:
            ALLOCATIONS.labels("no_capacity").inc()
            raise LobbyError(
                grpc.StatusCode.UNAVAILABLE, "no match server can take the match; retry later", "NO_CAPACITY"
            )
        seats = [
            control_pb2.SeatAssignment(index=i, bot_level=o.bot_level)
            if o.is_bot
            else control_pb2.SeatAssignment(index=i, player=convert.player_pb(o))
            for i, o in enumerate(occupants)
        ]
        req = control_pb2.CreateMatchRequest(
            match_id=match_id,
            ruleset=convert.ruleset_ref(cfg.ruleset_id, cfg.language, cfg.board_id),
            seats=seats,
            options=convert.options_pb(cfg),
            table_id=table_id,
        )
        md = (("authorization", f"Bearer {self.service_token()}"),)
        last_error = ""
        for srv in servers:
            stub = control_pb2_grpc.MatchControlServiceStub(self._channel(srv.address))
            try:
                resp = await stub.CreateMatch(req, metadata=md, timeout=self.opt.create_match_timeout_s)
            except grpc.aio.AioRpcError as exc:
                last_error = f"{srv.id}: {exc.code().name} {exc.details()}"
                log.warning(
                    "CreateMatch failed", server_id=srv.id, code=exc.code().name, details=exc.details()
                )
                continue
            address = resp.address or srv.address

            def record(s: Session, srv_id: str = srv.id, address: str = address) -> bool:
                live = commit is None or commit(s, match_id, address)
                self._record_match(s, match_id, srv_id, address, cfg, occupants, table_id, live)
                return live

            if not await self.db.run(record):
                ALLOCATIONS.labels("withdrawn").inc()
                log.warning("match created but withdrawn: a quick-match ticket was cancelled meanwhile",
                            match_id=match_id, match_server_id=srv.id)
                self._abort_withdrawn(match_id, srv.id, srv.address)
                raise AllocationWithdrawn(match_id)
            ALLOCATIONS.labels("ok").inc()
            log.info("match allocated", match_id=match_id, match_server_id=srv.id)
            return match_id, address
        ALLOCATIONS.labels("failed").inc()
        raise LobbyError(
            grpc.StatusCode.UNAVAILABLE,
            f"no match server accepted the match ({last_error}); retry later",
            "NO_CAPACITY",
        )

    def _abort_withdrawn(self, match_id: str, server_id: str, address: str) -> None:
        """Abort a withdrawn match on its match server, in the background (``_abort_match``)."""
        task = asyncio.create_task(self._abort_match(match_id, server_id, address, WITHDRAWN_REASON))
        self._aborts.add(task)
        task.add_done_callback(self._aborts.discard)

    async def _abort_match(self, match_id: str, server_id: str, address: str, reason: str) -> bool:
        """``AbortMatch`` on the match server, retried after each of ``abort_retry_delays_s``
        (following a ``MatchMoved`` to the new owner). True once the server has aborted it."""
        req = control_pb2.AbortMatchRequest(match_id=match_id, reason=reason)
        delays = self.opt.abort_retry_delays_s
        for attempt in range(len(delays) + 1):
            stub = control_pb2_grpc.MatchControlServiceStub(self._channel(address))
            md = (("authorization", f"Bearer {self.service_token()}"),)
            try:
                resp = await stub.AbortMatch(req, metadata=md, timeout=self.opt.create_match_timeout_s)
            except grpc.aio.AioRpcError as exc:
                code, why = exc.code(), exc.details()
                if code in _ABORT_FINAL:
                    MATCH_ABORTS.labels("refused").inc()
                    log.warning("AbortMatch refused; the withdrawn match is left to its match server",
                                match_id=match_id, match_server_id=server_id, code=code.name, details=why)
                    return False
                moved = detail(exc, errors_pb2.MatchMoved)
                if moved is not None and moved.new_address:
                    address = moved.new_address
                if attempt == len(delays):
                    MATCH_ABORTS.labels("given_up").inc()
                    log.error("AbortMatch failed at every attempt; the withdrawn match stays on its "
                              "match server", match_id=match_id, match_server_id=server_id,
                              code=code.name, details=why, attempts=attempt + 1)
                    return False
                MATCH_ABORTS.labels("retry").inc()
                log.warning("AbortMatch failed; retrying", match_id=match_id, match_server_id=server_id,
                            code=code.name, details=why, retry_in_s=delays[attempt])
                await asyncio.sleep(delays[attempt])
                continue
            MATCH_ABORTS.labels("aborted").inc()
            log.info("withdrawn match aborted on its match server", match_id=match_id,
                     match_server_id=server_id, already_aborted=resp.already_aborted)
            return True
        return False  # pragma: no cover - the loop always returns

    @staticmethod
    def _record_match(
        s: Session,
        match_id: str,
        server_id: str,
        address: str,
        cfg: TableConfig,
        occ: list[Occupant],
        table_id: str,
        live: bool = True,
    ) -> None:
        now = _now()
        m = MatchRow(
            id=match_id,
            table_id=table_id,
            ruleset_id=cfg.ruleset_id,
            language=cfg.language,
            board_id=cfg.board_id,
            server_id=server_id,
            address=address,
            rated=cfg.rated,
            created_at=now,
        )
        if not live:  # withdrawn: nobody was given the match; a result for it would count for nothing
            m.active, m.rated, m.ended_at = False, False, now
            m.reason = common_pb2.GAME_OVER_REASON_ABORTED
            s.add(m)
            return
        s.add(m)
        for i, o in enumerate(occ):
            s.add(
                MatchSeatRow(
                    match_id=match_id,
                    seat=i,
                    player_id=o.player_id,
                    display_name=o.display_name,
                    bot_level=o.bot_level,
                    guest=o.guest,
                    ruleset_id=cfg.ruleset_id,
                    created_at=now,
                )
            )
        srv = s.get(MatchServerRow, server_id)
        if srv is not None:
            srv.active += 1
            s.add(srv)

    # -- quick match ------------------------------------------------------------------------------

    def _ticket_pb(self, t: Ticket, waiting: int = 0) -> lobby_pb2.QuickMatchTicket:
        crit = lobby_pb2.QuickMatchCriteria(
            ruleset=convert.ruleset_ref(t.criteria.ruleset_id, t.criteria.language, t.criteria.board_id),
            seats=t.criteria.seats,
            bot_level=t.bot_level,
        )
        if t.bot_after_s is not None:
            crit.bot_after.CopyFrom(convert.dur(t.bot_after_s))
        msg = lobby_pb2.QuickMatchTicket(
            ticket_id=t.ticket_id,
            criteria=crit,
            status={
                TicketStatus.QUEUED: lobby_pb2.TICKET_STATUS_QUEUED,
                TicketStatus.MATCHED: lobby_pb2.TICKET_STATUS_MATCHED,
                TicketStatus.CANCELLED: lobby_pb2.TICKET_STATUS_CANCELLED,
                TicketStatus.EXPIRED: lobby_pb2.TICKET_STATUS_EXPIRED,
            }[t.status],
            create_time=convert.ts(t.created_at),
            players_waiting=waiting if t.status == TicketStatus.QUEUED else 0,
        )
        if t.status == TicketStatus.MATCHED:
            msg.assignment.CopyFrom(
                lobby_pb2.MatchAssignment(match_id=t.match_id, address=t.address, seat=t.seat)
            )
        return msg

    def _notify(self, ticket_id: str) -> None:
        ev = self.ticket_events.get(ticket_id)
        if ev is not None:
            ev.set()

    @unary
    async def QuickMatch(
        self, request: lobby_pb2.QuickMatchRequest, context: Any
    ) -> lobby_pb2.QuickMatchResponse:
        claims = self._player(context)
        c = request.criteria
        if not c.HasField("ruleset"):
            raise LobbyError.invalid("criteria.ruleset is required", "criteria.ruleset")
        if not 0 <= c.bot_level <= 5:
            raise LobbyError.invalid("bot_level must be 1..5 (0 = 3)", "criteria.bot_level")
        bot_after: float | None = None
        if c.HasField("bot_after"):
            bot_after = c.bot_after.ToNanoseconds() / 1e9
            if not 5 <= bot_after <= 600:
                raise LobbyError.invalid("bot_after must be 5 s .. 10 min", "criteria.bot_after")
        cfg = validate_settings(
            ruleset_id=c.ruleset.ruleset_id,
            language=c.ruleset.language,
            board_id=c.ruleset.board_id,
            seats=c.seats or 2,
            prefix="criteria",
        )

        async def make() -> lobby_pb2.QuickMatchResponse:
            p = await self._get_player(claims.player_id)
            t = Ticket(
                ticket_id=f"q_{uuid.uuid4().hex[:20]}",
                player_id=p.id,
                display_name=p.display_name,
                criteria=Criteria(cfg.ruleset_id, cfg.language, cfg.board_id, cfg.seats),
                created_at=_now(),
                bot_after_s=bot_after,
                bot_level=c.bot_level or 3,
                guest=p.guest,
            )


            def add(s: Session) -> str | None:
                existing = store.waiting_ticket(s, p.id)
                if existing is None:
                    store.add_ticket(s, t)
                return existing

            try:
                existing = await self.db.run(add)
            except IntegrityError:  # the same player, through another lobby, at the same time
                existing = "(another)"
            if existing is not None:
                raise LobbyError.precondition(
                    "ALREADY_QUEUED", f"already queued with ticket {existing}", "criteria"
                )
            await self._run_matchmaking()
            got = await self.db.run(store.get_ticket, t.ticket_id)
            assert got is not None
            return lobby_pb2.QuickMatchResponse(ticket=self._ticket_pb(*got))

        return await self._idempotent(
            claims.player_id, "QuickMatch", request.request_id, lobby_pb2.QuickMatchResponse, make
        )

    async def _run_matchmaking(self, wait: bool = True) -> None:
        """One matchmaking step: expires old tickets, claims the groups that can start and
        allocates their matches. With ``wait`` it returns once the allocations are done (a
        QuickMatch call); without (the background loop), they go on as tasks of their own, so the
        loop's other work never waits for a match server."""
        claim = _now()
        expired, groups = await self.db.run(
            store.claim_groups, claim, TICKET_TTL_S, self.opt.ticket_reclaim_s
        )
        for t in expired:
            self._notify(t.ticket_id)
        if wait:
            if groups:
                await asyncio.gather(*(self._start_group(g, claim) for g in groups))
            return
        for g in groups:
            task = asyncio.create_task(self._start_group(g, claim))
            self._allocations.add(task)
            task.add_done_callback(self._allocation_done)

    def _allocation_done(self, task: asyncio.Task[None]) -> None:
        self._allocations.discard(task)
        if not task.cancelled() and task.exception() is not None:
            # the claim is taken back after ticket_reclaim_s and the group queued again
            log.warning("quick match allocation failed", error=repr(task.exception()))

    async def _start_group(self, g: Group, claim: float) -> None:
        """Allocates a claimed group's match. A ticket cancelled meanwhile stops it: before the
        match is created (``store.hold_group``), or when it is committed (``store.finish_group``
        in the transaction that records the match); the rest of the group is queued again."""
        crit = g.criteria
        cfg = validate_settings(
            ruleset_id=crit.ruleset_id, language=crit.language, board_id=crit.board_id, seats=crit.seats
        )
        occ = [Occupant(t.player_id, t.display_name, guest=t.guest) for t in g.tickets]
        occ += [Occupant(bot_player_id(g.bot_level), f"Bot {g.bot_level}", bot_level=g.bot_level)] * g.bots
        ids = [t.ticket_id for t in g.tickets]
        if not await self.db.run(store.hold_group, ids, claim, _now()):
            log.info("quick match group given up before allocation: a ticket was cancelled "
                     "(or the claim taken back)", tickets=ids)
            return

        def commit(s: Session, match_id: str, address: str) -> bool:
            return store.finish_group(s, ids, claim, match_id, address, _now()) is not None

        try:
            await self._allocate(cfg, occ, commit=commit)
        except AllocationWithdrawn:
            return
        except LobbyError as exc:
            log.warning("quick match allocation failed", error=exc.message)
            await self.db.run(store.requeue_group, ids, claim, _now())
            return
        now = _now()
        for t in g.tickets:
            MM_WAIT.observe(now - t.created_at)
            self._notify(t.ticket_id)

    async def _ticket(self, ticket_id: str, player_id: str) -> tuple[Ticket, int]:
        _check_id(ticket_id, "ticket", "ticket_id")
        got = await self.db.run(store.get_ticket, ticket_id)
        if got is None or got[0].player_id != player_id:
            raise LobbyError.not_found("no such ticket", "ticket_id")
        return got

    @unary
    async def GetQuickMatchTicket(self, request: Any, context: Any) -> lobby_pb2.GetQuickMatchTicketResponse:
        claims = self._player(context)
        return lobby_pb2.GetQuickMatchTicketResponse(
            ticket=self._ticket_pb(*await self._ticket(request.ticket_id, claims.player_id))
        )

    @streaming
    async def WatchQuickMatchTicket(self, request: Any, context: Any) -> AsyncIterator[Any]:
        claims = self._player(context)
        t, waiting = await self._ticket(request.ticket_id, claims.player_id)
        ev = self.ticket_events.setdefault(t.ticket_id, asyncio.Event())
        # SQLite: every change is made here and sets ``ev``. PostgreSQL: another lobby's change
        # arrives by NOTIFY; the row is re-read every ticket_poll_s as well, in case one is lost.
        wait_s = self.opt.watch_heartbeat_s if self.db.sqlite else self.opt.ticket_poll_s
        last = -1
        try:
            while True:
                if t.version != last:
                    last = t.version
                    yield lobby_pb2.WatchQuickMatchTicketResponse(ticket=self._ticket_pb(t, waiting))
                if t.status != TicketStatus.QUEUED:
                    return
                ev.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(ev.wait(), timeout=wait_s)
                t, waiting = await self._ticket(request.ticket_id, claims.player_id)
        finally:
            self.ticket_events.pop(t.ticket_id, None)

    @unary
    async def CancelQuickMatchTicket(
        self, request: Any, context: Any
    ) -> lobby_pb2.CancelQuickMatchTicketResponse:
        claims = self._player(context)
        _check_id(request.ticket_id, "ticket", "ticket_id")
        t = await self.db.run(store.cancel_ticket, request.ticket_id, claims.player_id, _now())
        if t is None:
            raise LobbyError.not_found("no such ticket", "ticket_id")
        if t.status in (TicketStatus.MATCHED, TicketStatus.EXPIRED):
            # matched: also when the cancel lost the race with the commit of an allocation
            raise LobbyError.precondition(
                "TICKET_CLOSED", f"the ticket is already {t.status.value}", "ticket_id"
            )
        self._notify(t.ticket_id)
        return lobby_pb2.CancelQuickMatchTicketResponse(ticket=self._ticket_pb(t))

    # -- matches, records, leaderboards -------------------------------------------------------------

    @unary
    async def LocateMatch(self, request: lobby_pb2.LocateMatchRequest, context: Any) -> Any:
        claims = self._player(context)
        _check_id(request.match_id, "match", "match_id")

        def work(s: Session) -> tuple[MatchRow | None, int | None]:
            m = s.get(MatchRow, request.match_id)
            seat = s.exec(
                select(MatchSeatRow.seat).where(
                    MatchSeatRow.match_id == request.match_id, MatchSeatRow.player_id == claims.player_id
                )
            ).first()
            return m, seat

        m, seat = await self.db.run(work)
        if m is None:
            raise LobbyError.not_found("no such match", "match_id")
        if not m.address:
            raise LobbyError(grpc.StatusCode.UNAVAILABLE, "no server owns the match right now; retry shortly")
        return lobby_pb2.LocateMatchResponse(
            assignment=lobby_pb2.MatchAssignment(match_id=m.id, address=m.address, seat=seat)
        )

    @staticmethod
    def _record_pb(ruleset_id: str, r: PlayerRecord) -> lobby_pb2.PlayerRecord:
        return lobby_pb2.PlayerRecord(
            ruleset_id=ruleset_id,
            games=r.games,
            wins=r.wins,
            losses=r.losses,
            ties=r.ties,
            average_score=r.average_score,
            weighted_score=r.weighted_score,
            rating=lobby_pb2.Rating(
                rating=r.rating.rating, deviation=r.rating.deviation, volatility=r.rating.volatility
            ),
            best_score=r.best_score,
        )

    @unary
    async def GetPlayerRecord(self, request: lobby_pb2.GetPlayerRecordRequest, context: Any) -> Any:
        claims = self._player(context)
        pid = request.player_id or claims.player_id
        _check_id(pid, "player", "player_id")
        if request.ruleset_id:
            resolve_ruleset(request.ruleset_id, prefix="ruleset_id")

        def work(s: Session) -> tuple[PlayerRow | None, list[RecordRow]]:
            q = select(RecordRow).where(RecordRow.player_id == pid)
            if request.ruleset_id:
                q = q.where(RecordRow.ruleset_id == request.ruleset_id)
            return s.get(PlayerRow, pid), list(s.exec(q.order_by(RecordRow.ruleset_id)))

        p, rows = await self.db.run(work)
        if p is None:
            raise LobbyError.not_found("no such player", "player_id")
        return lobby_pb2.GetPlayerRecordResponse(
            player=self._player_pb(p),
            records=[self._record_pb(r.ruleset_id, store.record_from_row(r)) for r in rows],
        )

    @unary
    async def GetLeaderboard(self, request: lobby_pb2.GetLeaderboardRequest, context: Any) -> Any:
        claims = self._player(context)
        if request.ruleset_id not in catalog():
            raise LobbyError.invalid("unknown ruleset", "ruleset_id")
        period = request.period or lobby_pb2.LEADERBOARD_PERIOD_ALL_TIME
        if period not in lobby_pb2.LeaderboardPeriod.values():
            raise LobbyError.invalid("unknown period", "period")
        size = _page(request.page_size, 50, 100)
        key = _page_key(request.ruleset_id, period)
        off = _token_offset(request.page_token, key)
        since = _period_start(period, _now())
        entries = await self.db.run(_leaderboard, request.ruleset_id, since)
        ranked = _rank(entries)
        page = ranked[off : off + size]
        mine = next((e for e in ranked if e.player.player_id == claims.player_id), None)
        return lobby_pb2.GetLeaderboardResponse(
            entries=page,
            next_page_token=f"{key}:{off + size}" if off + size < len(ranked) else "",
            caller_entry=mine,
            total_size=len(ranked),
        )

    @unary
    async def ListMyMatches(self, request: lobby_pb2.ListMyMatchesRequest, context: Any) -> Any:
        claims = self._player(context)
        if request.state not in lobby_pb2.MatchListState.values():
            raise LobbyError.invalid("unknown state", "state")
        size = _page(request.page_size, 20, 100)
        key = _page_key(request.state)
        off = _token_offset(request.page_token, key)

        def work(s: Session) -> list[tuple[MatchRow, list[MatchSeatRow], int]]:
            q = (
                select(MatchRow, MatchSeatRow.seat)
                .join(MatchSeatRow, MatchSeatRow.match_id == MatchRow.id)
                .where(MatchSeatRow.player_id == claims.player_id)
            )
            if request.state == lobby_pb2.MATCH_LIST_STATE_ACTIVE:
                q = q.where(MatchRow.active == True)  # noqa: E712
            elif request.state == lobby_pb2.MATCH_LIST_STATE_FINISHED:
                q = q.where(MatchRow.active == False)  # noqa: E712
            q = q.order_by(MatchRow.active.desc(), MatchRow.created_at.desc(), MatchRow.id)  # type: ignore[attr-defined]
            rows = list(s.exec(q.offset(off).limit(size + 1)))
            out = []
            for m, seat in rows:
                seats = list(
                    s.exec(
                        select(MatchSeatRow).where(MatchSeatRow.match_id == m.id).order_by(MatchSeatRow.seat)
                    )
                )
                out.append((m, seats, seat))
            return out

        rows = await self.db.run(work)
        more = len(rows) > size
        out = []
        for m, seats, my_seat in rows[:size]:
            mine = next(x for x in seats if x.seat == my_seat)
            out.append(
                lobby_pb2.MatchSummary(
                    assignment=lobby_pb2.MatchAssignment(match_id=m.id, address=m.address, seat=my_seat),
                    ruleset=convert.ruleset_ref(m.ruleset_id, m.language, m.board_id),
                    active=m.active,
                    seats=[
                        common_pb2.Seat(
                            index=x.seat,
                            player=common_pb2.Player(
                                player_id=x.player_id,
                                display_name=x.display_name,
                                guest=x.guest,
                                bot=x.bot_level > 0,
                                bot_level=x.bot_level,
                            ),
                            status=x.status,
                            score=x.score,
                        )
                        for x in seats
                    ],
                    outcome=mine.outcome,
                    start_time=convert.ts(m.created_at),
                    end_time=convert.ts(m.ended_at),
                )
            )
        return lobby_pb2.ListMyMatchesResponse(
            matches=out, next_page_token=f"{key}:{off + size}" if more else ""
        )

    @unary
    async def ListRulesets(self, request: Any, context: Any) -> lobby_pb2.ListRulesetsResponse:
        out = []
        for rid, langs in catalog().items():
            rs = resolve_ruleset(rid)
            out.append(
                lobby_pb2.RulesetSummary(
                    ruleset_id=rid,
                    family=convert.FAMILY[rid],
                    name=rs.name,
                    languages=list(langs),
                    board_ids=list(langs[rs.language]),
                    min_seats=rs.min_players,
                    max_seats=rs.max_players,
                )
            )
        return lobby_pb2.ListRulesetsResponse(rulesets=out)

    @unary
    async def DescribeRuleset(self, request: lobby_pb2.DescribeRulesetRequest, context: Any) -> Any:
        r = request.ruleset
        rs = resolve_ruleset(r.ruleset_id, r.language, r.board_id)
        if r.language and r.language.lower() not in catalog()[r.ruleset_id]:
            raise LobbyError.not_found("unknown language", "ruleset.language")
        langs = catalog()[r.ruleset_id]
        desc = lobby_pb2.RulesetDescription(
            summary=lobby_pb2.RulesetSummary(
                ruleset_id=r.ruleset_id,
                family=convert.FAMILY[r.ruleset_id],
                name=rs.name,
                languages=list(langs),
                board_ids=list(langs[rs.language]),
                min_seats=rs.min_players,
                max_seats=rs.max_players,
            ),
            rack_size=rs.rack_size,
            bingo=[
                lobby_pb2.BingoBonus(tiles=b.count, letters_only=b.letters_only, points=b.bonus)
                for b in rs.bingos
            ],
            exchange_limit=-1 if rs.exchange.per_player is None else rs.exchange.per_player,
            exchange_min_bag=rs.exchange.min_bag,
            challenge_modes=[convert.CHALLENGE_TO_PB[m] for m in challenge_modes(rs)],
        )
        if rs.clock.default:
            desc.clock_min.CopyFrom(convert.dur(rs.clock.minimum))
            desc.clock_max.CopyFrom(convert.dur(rs.clock.maximum))
        return lobby_pb2.DescribeRulesetResponse(ruleset=desc)

    # -- MatchRegistryService ------------------------------------------------------------------------

    @staticmethod
    def _check_load(load: control_pb2.ServerLoad) -> None:
        if load.capacity < 0 or load.active_matches < 0 or load.capacity > 1_000_000:
            raise LobbyError.invalid("bad capacity or load", "load")

    @staticmethod
    def _check_address(address: str) -> None:
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536 or len(address) > 256:
            raise LobbyError.invalid("address must be host:port", "address")

    @unary
    async def RegisterMatchServer(self, request: control_pb2.RegisterMatchServerRequest, context: Any) -> Any:
        self._service(context)
        if not request.server_id or len(request.server_id) > 128:
            raise LobbyError.invalid("server_id is required (1..128 characters)", "server_id")
        self._check_address(request.address)
        self._check_load(request.load)
        now = _now()

        def work(s: Session) -> None:
            row = s.get(MatchServerRow, request.server_id) or MatchServerRow(
                id=request.server_id, address="", last_heartbeat=now, registered_at=now
            )
            row.address, row.version = request.address, request.version[:64]
            row.capacity, row.active = request.load.capacity, request.load.active_matches
            row.draining, row.last_heartbeat = request.load.draining, now
            s.add(row)

        await self.db.run(work)
        log.info("match server registered", match_server_id=request.server_id, address=request.address)
        return control_pb2.RegisterMatchServerResponse(
            heartbeat_interval=convert.dur(self.opt.heartbeat_interval_s),
            server_ttl=convert.dur(self.opt.server_ttl_s),
        )

    @unary
    async def Heartbeat(self, request: control_pb2.HeartbeatRequest, context: Any) -> Any:
        self._service(context)
        if request.address:
            self._check_address(request.address)
        self._check_load(request.load)
        now = _now()

        def work(s: Session) -> bool:
            row = s.get(MatchServerRow, request.server_id) if request.server_id else None
            if row is None:
                return False
            row.capacity, row.active = request.load.capacity, request.load.active_matches
            row.draining, row.last_heartbeat = request.load.draining, now
            if request.address:
                row.address = request.address
            s.add(row)
            return True

        if not await self.db.run(work):
            raise LobbyError.not_found("unknown server_id: register again", "server_id")
        return control_pb2.HeartbeatResponse(next_heartbeat_due=convert.ts(now + self.opt.server_ttl_s))

    @unary
    async def ReportMatchLocation(self, request: control_pb2.ReportMatchLocationRequest, context: Any) -> Any:
        self._service(context)
        _check_id(request.match_id, "match", "match_id")
        self._check_address(request.address)

        def work(s: Session) -> None:
            m = s.get(MatchRow, request.match_id)
            if m is None:
                raise LobbyError.not_found("unknown match", "match_id")
            m.server_id, m.address = request.server_id, request.address
            s.add(m)

        await self.db.run(work)

        def move(t: Table) -> None:
            if t.match_address != request.address:
                t.match_address = request.address
                t.version += 1

        for tid in [t.table_id for t in self.tables.values() if t.match_id == request.match_id]:
            await self._mutate(tid, move)
        return control_pb2.ReportMatchLocationResponse()

    @unary
    async def ReportResult(self, request: control_pb2.ReportResultRequest, context: Any) -> Any:
        self._service(context)
        _check_id(request.match_id, "match", "match_id")
        if not 2 <= len(request.seats) <= 4:
            raise LobbyError.invalid("a result has 2..4 seats", "seats")
        if sorted(s.seat for s in request.seats) != list(range(len(request.seats))):
            raise LobbyError.invalid("seats must be 0..n-1, each once", "seats")
        ruleset_id = request.ruleset.ruleset_id
        resolve_ruleset(ruleset_id, request.ruleset.language, request.ruleset.board_id)
        ordered = sorted(request.seats, key=lambda s: s.seat)
        for s in ordered:
            if s.status not in convert.SEAT_STATUS_FROM_PB or (
                s.outcome and s.outcome not in convert.OUTCOME_FROM_PB
            ):
                raise LobbyError.invalid("unknown seat status or outcome", "seats")
            if not s.player_id or len(s.player_id) > 64:
                raise LobbyError.invalid("seat player_id is required", "seats")
        seats = [
            SeatEnd(
                seat=s.seat,
                player_id=s.player_id,
                score=s.final_score,
                status=convert.SEAT_STATUS_FROM_PB[s.status],
                left_in_first_round=s.outcome == common_pb2.OUTCOME_NO_RESULT,
                score_counts=s.score_counts,
            )
            for s in ordered
        ]
        if all(s.outcome == 0 for s in ordered):
            kicked = any(s.status == common_pb2.SEAT_STATUS_KICKED for s in ordered)
            outcomes = decide_outcomes(ruleset_id, seats, ended_by_kick=kicked)
        else:
            outcomes = [convert.OUTCOME_FROM_PB.get(s.outcome) for s in ordered]  # type: ignore[misc]
            if any(o is None for o in outcomes):
                raise LobbyError.invalid("give every seat an outcome, or none", "seats")
            why = check_outcomes(ruleset_id, seats, outcomes)
            if why:
                raise LobbyError.invalid(f"inconsistent result: {why}", "seats")
        aborted = request.reason == common_pb2.GAME_OVER_REASON_ABORTED
        digest = hashlib.sha256(
            control_pb2.ReportResultRequest(
                match_id=request.match_id,
                ruleset=request.ruleset,
                reason=request.reason,
                seats=request.seats,
                unrated=request.unrated,
            ).SerializeToString(deterministic=True)
        ).hexdigest()
        end = request.end_time.ToNanoseconds() / 1e9 if request.HasField("end_time") else _now()

        def work(s: Session) -> bool:
            m = s.get(MatchRow, request.match_id)
            if m is not None and m.result_hash is not None:
                if m.result_hash != digest:
                    raise LobbyError.precondition(
                        "", "a different result was already recorded for this match"
                    )
                return True
            if m is None:
                m = MatchRow(
                    id=request.match_id,
                    ruleset_id=ruleset_id,
                    language=request.ruleset.language or "en",
                    board_id=request.ruleset.board_id,
                    server_id=request.server_id,
                    created_at=request.start_time.ToNanoseconds() / 1e9
                    if request.HasField("start_time")
                    else end,
                )
            rated = m.rated and not request.unrated and not aborted
            m.active, m.ended_at, m.reason, m.result_hash, m.rated = False, end, request.reason, digest, rated
            s.add(m)
            rows = {r.seat: r for r in s.exec(select(MatchSeatRow).where(MatchSeatRow.match_id == m.id))}
            for se, o in zip(seats, outcomes, strict=True):
                r = rows.get(se.seat) or MatchSeatRow(
                    match_id=m.id, seat=se.seat, player_id=se.player_id, ruleset_id=ruleset_id, created_at=end
                )
                if r.player_id != se.player_id:
                    raise LobbyError.invalid(f"seat {se.seat} was allocated to another player", "seats")
                r.score, r.status = se.score, ordered[se.seat].status
                r.outcome = convert.OUTCOME_TO_PB[o] if not aborted else 0
                r.score_counts, r.ended_at, r.recorded = (
                    se.score_counts,
                    end,
                    rated and o.value != "no_result",
                )
                others = [t.score for t in seats if t.seat != se.seat]
                r.margin = se.score - sum(others) / len(others)
                if se.player_id.startswith("bot:"):
                    r.bot_level = int(se.player_id[4:] or 0) if se.player_id[4:].isdigit() else 1
                s.add(r)
            if rated:
                humans = [x.player_id for x in seats if not x.player_id.startswith("bot:")]
                before = {pid: store.record_from_row(s.get(RecordRow, (pid, ruleset_id))) for pid in humans}
                for pid, rec in apply_result(before, seats, outcomes).items():
                    row = s.get(RecordRow, (pid, ruleset_id)) or RecordRow(
                        player_id=pid, ruleset_id=ruleset_id
                    )
                    s.add(store.record_to_row(row, rec, end))
            return False

        already = await self.db.run(work)
        if not already:
            log.info("result recorded", match_id=request.match_id, outcomes=[o.value for o in outcomes])
        return control_pb2.ReportResultResponse(already_recorded=already)


def _period_start(period: int, now: float) -> float | None:
    import datetime as dt

    if period == lobby_pb2.LEADERBOARD_PERIOD_ALL_TIME:
        return None
    d = dt.datetime.fromtimestamp(now, dt.UTC)
    day = d.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == lobby_pb2.LEADERBOARD_PERIOD_DAY:
        return day.timestamp()
    if period == lobby_pb2.LEADERBOARD_PERIOD_WEEK:
        return (day - dt.timedelta(days=day.weekday())).timestamp()
    return day.replace(day=1).timestamp()


def _leaderboard(s: Session, ruleset_id: str, since: float | None) -> list[tuple[PlayerRow, PlayerRecord]]:
    """(player, record over the period) for players with a recorded game in the period."""
    recs = {r.player_id: r for r in s.exec(select(RecordRow).where(RecordRow.ruleset_id == ruleset_id))}
    if since is None:
        players = {p.id: p for p in s.exec(select(PlayerRow).where(PlayerRow.id.in_(list(recs))))}  # type: ignore[attr-defined]
        return [
            (players[pid], store.record_from_row(r)) for pid, r in recs.items() if pid in players and r.games
        ]
    rows = s.exec(
        select(MatchSeatRow).where(
            MatchSeatRow.ruleset_id == ruleset_id,
            MatchSeatRow.recorded == True,  # noqa: E712
            MatchSeatRow.ended_at >= since,
        )
    )
    agg: dict[str, PlayerRecord] = {}
    for r in rows:
        cur = agg.get(r.player_id, PlayerRecord())
        scored = r.score_counts and r.status in (
            0,
            common_pb2.SEAT_STATUS_ACTIVE,
            common_pb2.SEAT_STATUS_TIMED_OUT,
        )
        agg[r.player_id] = PlayerRecord(
            games=cur.games + 1,
            wins=cur.wins + (r.outcome == common_pb2.OUTCOME_WIN),
            losses=cur.losses + (r.outcome == common_pb2.OUTCOME_LOSS),
            ties=cur.ties + (r.outcome == common_pb2.OUTCOME_TIE),
            scored_games=cur.scored_games + scored,
            score_sum=cur.score_sum + (r.score if scored else 0),
            margin_sum=cur.margin_sum + (r.margin if scored else 0.0),
            best_score=max(cur.best_score, r.score if scored else 0),
            rating=store.record_from_row(recs.get(r.player_id)).rating,
        )
    players = {p.id: p for p in s.exec(select(PlayerRow).where(PlayerRow.id.in_(list(agg))))}  # type: ignore[attr-defined]
    return [(players[pid], rec) for pid, rec in agg.items() if pid in players]


def _rank(entries: list[tuple[PlayerRow, PlayerRecord]]) -> list[lobby_pb2.LeaderboardEntry]:
    entries.sort(key=lambda e: (-round(e[1].rating.rating, 6), -e[1].wins, e[0].id))
    out: list[lobby_pb2.LeaderboardEntry] = []
    prev: tuple[float, int] | None = None
    rank = 0
    for i, (p, rec) in enumerate(entries):
        k = (round(rec.rating.rating, 6), rec.wins)
        if k != prev:
            rank, prev = i + 1, k
        out.append(
            lobby_pb2.LeaderboardEntry(
                rank=rank,
                player=common_pb2.Player(player_id=p.id, display_name=p.display_name, guest=p.guest),
                record=Lobby._record_pb("", rec),
            )
        )
    return out
