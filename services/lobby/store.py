"""Lobby storage: players, tables, match servers, matches, records and idempotent requests.

Every function here is blocking and takes a SQLModel ``Session``; the service runs them through
``services.common.db.Database.run`` (off the event loop, one transaction each).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select
from wordarena.services.common.db import Database, run_migrations
from wordarena.services.lobby.glicko2 import Rating
from wordarena.services.lobby.matchmaking import Criteria, Group, Queue, Ticket, TicketStatus
from wordarena.services.lobby.models import (
    MatchRow,
    MatchSeatRow,
    MatchServerRow,
    PlayerRow,
    RecordRow,
    RequestRow,
    SignInFailureRow,
    TableRow,
    TicketRow,
)
from wordarena.services.lobby.passwords import FailureThrottle
from wordarena.services.lobby.records import PlayerRecord
from wordarena.services.lobby.settings import TableConfig
from wordarena.services.lobby.tables import Occupant, Table, TableStatus

MIGRATIONS = Path(__file__).parent / "migrations"
VERSION_TABLE = "alembic_version_lobby"
#: PostgreSQL ``NOTIFY`` channels: a table changed (payload: its id), a ticket changed (its id).
TABLES_CHANNEL = "wordarena_lobby_tables"
TICKETS_CHANNEL = "wordarena_lobby_tickets"
#: Row status of a ticket claimed by a lobby that is allocating its match.
MATCHING = "matching"
#: Row statuses of closed tickets (deleted once older than the retention, ``delete_old_tickets``).
CLOSED = (TicketStatus.CANCELLED.value, TicketStatus.EXPIRED.value, TicketStatus.MATCHED.value)

__all__ = [
    "MIGRATIONS",
    "PENDING",
    "VERSION_TABLE",
    "claim_request",
    "drop_request",
    "get_request",
    "load_tables",
    "migrate",
    "name_in_use",
    "put_request",
    "record_from_row",
    "record_to_row",
    "save_table",
    "table_from_json",
    "table_to_json",
]


def migrate(db: Database) -> None:
    """Brings the lobby schema to the latest migration (blocking; at start-up)."""
    run_migrations(db.engine, MIGRATIONS, VERSION_TABLE)


# -- players ------------------------------------------------------------------------------------


def name_in_use(s: Session, name_key: str, live_since: float, except_id: str = "") -> bool:
    """True when a claimed account, or a guest seen since ``live_since``, has this name key."""
    q = select(PlayerRow.id).where(PlayerRow.name_key == name_key, PlayerRow.id != except_id)
    q = q.where((PlayerRow.guest == False) | (PlayerRow.last_seen >= live_since))  # noqa: E712
    return s.exec(q.limit(1)).first() is not None


# -- sign-in failure throttle ------------------------------------------------------------------


def _failure_key(key: str) -> str:
    """The row key of a throttle key: its SHA-256, hex (fixed length; the name tried is not kept)."""
    return hashlib.sha256(key.encode()).hexdigest()


def sign_in_failures(s: Session, key: str) -> list[float]:
    """The stored failure times of a throttle key (oldest first; possibly out of the window)."""
    row = s.get(SignInFailureRow, _failure_key(key))
    return json.loads(row.failures) if row is not None else []


def _lock_sign_in_failures(s: Session, key: str, now: float) -> SignInFailureRow:
    """A throttle key's row, created if missing (``INSERT … ON CONFLICT DO NOTHING``), then read
    ``FOR UPDATE``: on PostgreSQL two lobbies updating one key at once queue on the row lock, and
    the second reads the first's committed times, so neither update is lost. On SQLite the one
    writer thread serialises the transactions."""
    k = _failure_key(key)
    dialect = s.get_bind().dialect.name
    ins = postgresql.insert if dialect == "postgresql" else sqlite.insert
    lock = select(SignInFailureRow).where(SignInFailureRow.key == k).with_for_update()
    for _ in range(3):  # housekeeping may delete an expired row between the two statements
        s.exec(  # type: ignore[call-overload]
            ins(SignInFailureRow)
            .values(key=k, failures="[]", expires_at=now)
            .on_conflict_do_nothing(index_elements=["key"])
        )
        row = s.exec(lock).first()
        if row is not None:
            return row
    raise RuntimeError("sign-in failure row vanished")  # pragma: no cover - deleted three times over


def _store_failures(s: Session, row: SignInFailureRow, times: list[float], policy: FailureThrottle) -> None:
    row.failures = json.dumps(times)
    row.expires_at = policy.expires_at(times)
    s.add(row)


def count_sign_in_attempt(s: Session, key: str, now: float, policy: FailureThrottle) -> float | None:
    """Counts a sign-in attempt at ``now``, before its password is checked (``policy.attempt``):
    returns the wait when the key is locked out (nothing recorded), else None, with the attempt
    recorded as a failure (a success then clears them: ``clear_sign_in_failures``).

    Read and written under the row lock (``_lock_sign_in_failures``) and committed before the
    password check, which must not run in this transaction (it is slow, and the lock would
    serialise every attempt on the key): attempts arriving at once, through any number of lobbies,
    each see the ones before them, so at most ``policy.limit`` of them are let through."""
    row = _lock_sign_in_failures(s, key, now)
    wait, times = policy.attempt(json.loads(row.failures), now)
    if times is not None:
        _store_failures(s, row, times, policy)
    return wait


def add_sign_in_failure(s: Session, key: str, now: float, policy: FailureThrottle) -> float | None:
    """Records a failed sign-in at ``now`` unconditionally (under the row lock, as
    ``count_sign_in_attempt``); returns the wait now in force (``policy.retry_after``). SignIn
    itself counts attempts in advance with ``count_sign_in_attempt``."""
    row = _lock_sign_in_failures(s, key, now)
    times = policy.fail(json.loads(row.failures), now)
    _store_failures(s, row, times, policy)
    return policy.retry_after(times, now)


def clear_sign_in_failures(s: Session, key: str) -> None:
    """Forgets a key's failures (after a successful sign-in)."""
    s.exec(delete(SignInFailureRow).where(SignInFailureRow.key == _failure_key(key)))  # type: ignore[call-overload]


def delete_expired_sign_in_failures(s: Session, now: float, limit: int = 1000) -> int:
    """Deletes up to ``limit`` throttle rows whose every failure has left the window (they
    throttle nothing); returns how many. Picked ``FOR UPDATE SKIP LOCKED`` on PostgreSQL, as
    ``delete_old_tickets``: lobbies cleaning up at once delete disjoint rows, and a row being
    updated by a sign-in is left alone."""
    return _delete_unlocked(s, SignInFailureRow.key, limit, SignInFailureRow.expires_at <= now)


def _delete_unlocked(s: Session, key: Any, limit: int, *where: Any) -> int:
    """Deletes up to ``limit`` rows matching ``where``, picked by their ``key`` column ``FOR
    UPDATE SKIP LOCKED`` on PostgreSQL (so lobbies cleaning up at once delete disjoint rows
    and wait for no one), the conditions checked again in the delete; returns how many."""
    keys = list(s.exec(select(key).where(*where).limit(limit).with_for_update(skip_locked=True)))
    if not keys:
        return 0
    model = key.class_
    res = s.exec(delete(model).where(col(key).in_(keys), *where))  # type: ignore[call-overload]
    return int(res.rowcount)


# -- tables -------------------------------------------------------------------------------------


def table_to_json(t: Table) -> str:
    """The JSON form of a table."""
    cfg = asdict(t.config)
    cfg.pop("extra", None)
    return json.dumps(
        {
            "config": cfg,
            "host": t.host_player_id,
            "seats": [asdict(o) if o is not None else None for o in t.seats],
            "status": t.status.value,
            "invite": t.invite_code,
            "created_at": t.created_at,
            "match_id": t.match_id,
            "address": t.match_address,
            "version": t.version,
        },
        separators=(",", ":"),
    )


def table_from_json(table_id: str, data: str) -> Table:
    """A table from its JSON form."""
    d = json.loads(data)
    cfg = d["config"]
    cfg["bots"] = tuple(tuple(b) for b in cfg["bots"])
    return Table(
        table_id=table_id,
        config=TableConfig(**cfg),
        host_player_id=d["host"],
        seats=[Occupant(**o) if o is not None else None for o in d["seats"]],
        status=TableStatus(d["status"]),
        invite_code=d["invite"],
        created_at=d["created_at"],
        match_id=d["match_id"],
        match_address=d["address"],
        version=d["version"],
    )


def save_table(s: Session, t: Table, now: float) -> None:
    """Inserts or updates a table."""
    row = s.get(TableRow, t.table_id)
    if row is None:
        row = TableRow(id=t.table_id, status=t.status.value, data="", created_at=t.created_at, updated_at=now)
    row.status = t.status.value
    row.data = table_to_json(t)
    row.updated_at = now
    s.add(row)


def load_tables(s: Session, since: float) -> list[Table]:
    """Tables open or starting, and the others updated since ``since``."""
    q = select(TableRow).where(
        col(TableRow.status).in_(("open", "starting")) | (TableRow.updated_at >= since)
    )
    return [table_from_json(r.id, r.data) for r in s.exec(q)]


def get_tables(s: Session, ids: list[str]) -> list[Table]:
    """These tables (those that exist)."""
    q = select(TableRow).where(col(TableRow.id).in_(ids))
    return [table_from_json(r.id, r.data) for r in s.exec(q)]


def stale_starting(s: Session, before: float) -> list[str]:
    """Ids of tables STARTING since before ``before`` (their lobby died while allocating)."""
    q = select(TableRow.id).where(TableRow.status == "starting", TableRow.updated_at < before)
    return list(s.exec(q))


def lock_table(s: Session, table_id: str) -> Table | None:
    """A table read with its row locked until the transaction ends (``SELECT … FOR UPDATE``
    on PostgreSQL; on SQLite the one writer thread serialises every transaction anyway)."""
    row = s.exec(select(TableRow).where(TableRow.id == table_id).with_for_update()).first()
    return table_from_json(row.id, row.data) if row is not None else None


def notify(s: Session, channel: str, payload: str) -> None:
    """``pg_notify`` in the current transaction (delivered to listeners at commit); no-op on
    SQLite, where one process serves everything."""
    if s.get_bind().dialect.name == "postgresql":
        s.connection().execute(text("SELECT pg_notify(:c, :p)"), {"c": channel, "p": payload})


# -- quick-match tickets ------------------------------------------------------------------------


def ticket_from_row(r: TicketRow) -> Ticket:
    """The pure ticket of a row (a ``matching`` row is still QUEUED for its player)."""
    status = TicketStatus.QUEUED if r.status == MATCHING else TicketStatus(r.status)
    return Ticket(
        ticket_id=r.id,
        player_id=r.player_id,
        display_name=r.display_name,
        criteria=Criteria(r.ruleset_id, r.language, r.board_id, r.seats),
        created_at=r.created_at,
        bot_after_s=r.bot_after_s,
        bot_level=r.bot_level,
        guest=r.guest,
        status=status,
        match_id=r.match_id,
        address=r.address,
        seat=r.seat,
        version=r.version,
    )


def add_ticket(s: Session, t: Ticket) -> None:
    """Inserts a queued ticket (IntegrityError at commit if the player has one waiting)."""
    c = t.criteria
    s.add(
        TicketRow(
            id=t.ticket_id, player_id=t.player_id, display_name=t.display_name, guest=t.guest,
            ruleset_id=c.ruleset_id, language=c.language, board_id=c.board_id, seats=c.seats,
            bot_after_s=t.bot_after_s, bot_level=t.bot_level, status=TicketStatus.QUEUED.value,
            created_at=t.created_at, updated_at=t.created_at,
        )
    )
    s.flush()


def waiting_ticket(s: Session, player_id: str) -> str | None:
    """The id of the player's queued (or being matched) ticket, or None."""
    q = select(TicketRow.id).where(
        TicketRow.player_id == player_id, col(TicketRow.status).in_((TicketStatus.QUEUED.value, MATCHING))
    )
    return s.exec(q.limit(1)).first()


def get_ticket(s: Session, ticket_id: str) -> tuple[Ticket, int] | None:
    """A ticket and the number of players queued for its criteria, or None."""
    r = s.get(TicketRow, ticket_id)
    if r is None:
        return None
    n = s.exec(
        select(func.count()).select_from(TicketRow).where(
            col(TicketRow.status).in_((TicketStatus.QUEUED.value, MATCHING)),
            TicketRow.ruleset_id == r.ruleset_id, TicketRow.language == r.language,
            TicketRow.board_id == r.board_id, TicketRow.seats == r.seats,
        )
    ).one()
    return ticket_from_row(r), int(n)


def cancel_ticket(s: Session, ticket_id: str, player_id: str, now: float) -> Ticket | None:
    """Cancels a waiting ticket (row locked); returns it as it is afterwards, None if unknown.

    A ticket being matched (``matching``) is cancelled too: its row lock orders this against the
    allocating lobby's commit (``finish_group``), which re-reads the group's rows under their
    locks. If the cancel commits first, the allocation finds the ticket cancelled, seats nobody
    and queues the rest of the group again; if the match was committed first, the ticket comes
    back MATCHED here and the caller refuses. A ticket already closed is returned unchanged."""
    r = s.exec(select(TicketRow).where(TicketRow.id == ticket_id).with_for_update()).first()
    if r is None or r.player_id != player_id:
        return None
    if r.status in (TicketStatus.QUEUED.value, MATCHING):
        r.status, r.claimed_at = TicketStatus.CANCELLED.value, None
        r.version, r.updated_at = r.version + 1, now
        s.add(r)
        notify(s, TICKETS_CHANNEL, r.id)
    return ticket_from_row(r)


def claim_groups(
    s: Session, now: float, ttl_s: float, reclaim_after_s: float
) -> tuple[list[Ticket], list[Group]]:
    """One matchmaking step over the shared queue: expires old tickets and claims the groups that
    can start now (their rows become ``matching``, ``claimed_at`` = ``now``: the claim, which
    ``hold_group`` / ``finish_group`` / ``requeue_group`` check). Queued rows are read ``FOR UPDATE SKIP
    LOCKED``: two lobbies stepping at once each see only the tickets the other has not locked,
    so no ticket is ever in two groups. Claims older than ``reclaim_after_s`` (their lobby died
    while allocating) are queued again first."""
    s.exec(  # type: ignore[call-overload]
        update(TicketRow)
        .where(TicketRow.status == MATCHING, col(TicketRow.claimed_at) < now - reclaim_after_s)
        .values(status=TicketStatus.QUEUED.value, claimed_at=None, version=TicketRow.version + 1)
    )
    q = (
        select(TicketRow)
        .where(TicketRow.status == TicketStatus.QUEUED.value)
        .order_by(col(TicketRow.created_at), col(TicketRow.id))
        .with_for_update(skip_locked=True)
    )
    rows = {r.id: r for r in s.exec(q)}
    if not rows:
        return [], []
    queue = Queue(ttl_s=ttl_s)
    for r in rows.values():
        queue.add(ticket_from_row(r))
    expired = queue.expire(now)
    groups = queue.match(now)
    for t in expired:
        r = rows[t.ticket_id]
        r.status, r.version, r.updated_at = TicketStatus.EXPIRED.value, r.version + 1, now
        s.add(r)
        notify(s, TICKETS_CHANNEL, r.id)
    for g in groups:
        for t in g.tickets:
            r = rows[t.ticket_id]
            r.status, r.claimed_at, r.updated_at = MATCHING, now, now
            s.add(r)
    return expired, groups


def _lock_group(s: Session, ids: list[str]) -> list[TicketRow]:
    """A group's ticket rows, locked (in id order: two transactions never wait on each other)."""
    q = select(TicketRow).where(col(TicketRow.id).in_(ids)).order_by(col(TicketRow.id)).with_for_update()
    return list(s.exec(q))


def _hold(s: Session, ids: list[str], claim: float, now: float) -> dict[str, TicketRow] | None:
    rows = _lock_group(s, ids)
    held = {r.id: r for r in rows if r.status == MATCHING and r.claimed_at == claim}
    if len(held) == len(ids):
        return held
    for r in held.values():
        r.status, r.claimed_at, r.updated_at = TicketStatus.QUEUED.value, None, now
        s.add(r)
    return None


def hold_group(s: Session, ids: list[str], claim: float, now: float) -> bool:
    """True when every ticket of a claimed group is still claimed by this claim (``matching``,
    ``claimed_at`` = ``claim``); the rows stay locked until the transaction ends. Otherwise
    (a ticket was cancelled, or the claim was taken back after ``reclaim_after_s``) the group
    is given up: its tickets still under this claim are queued again, keeping their
    ``created_at`` and so their place in the queue, and False."""
    return _hold(s, ids, claim, now) is not None


def finish_group(
    s: Session, ids: list[str], claim: float, match_id: str, address: str, now: float
) -> list[Ticket] | None:
    """Marks a claimed group's tickets matched (seat = position in the group), all or none: None
    when the group is no longer whole (see ``hold_group``: nothing matched, the rest queued
    again)."""
    rows = _hold(s, ids, claim, now)
    if rows is None:
        return None
    out = []
    for i, tid in enumerate(ids):
        r = rows[tid]
        r.status, r.match_id, r.address, r.seat = TicketStatus.MATCHED.value, match_id, address, i
        r.claimed_at, r.version, r.updated_at = None, r.version + 1, now
        s.add(r)
        notify(s, TICKETS_CHANNEL, tid)
        out.append(ticket_from_row(r))
    return out


def requeue_group(s: Session, ids: list[str], claim: float, now: float) -> None:
    """Puts a claimed group's tickets back in the queue (after a failed allocation); only those
    still under this claim (not cancelled meanwhile, nor taken back by another lobby)."""
    s.exec(  # type: ignore[call-overload]
        update(TicketRow)
        .where(col(TicketRow.id).in_(ids), TicketRow.status == MATCHING, TicketRow.claimed_at == claim)
        .values(status=TicketStatus.QUEUED.value, claimed_at=None, updated_at=now)
    )


def delete_old_tickets(s: Session, before: float, limit: int = 1000) -> int:
    """Deletes up to ``limit`` closed tickets (cancelled, expired, matched) last changed before
    ``before``; returns how many. Waiting tickets (queued, matching) are never deleted. The rows
    are picked ``FOR UPDATE SKIP LOCKED`` on PostgreSQL: lobbies cleaning up at the same time
    delete disjoint rows and never wait on each other (nor on a cancel reading its row)."""
    return _delete_unlocked(s, TicketRow.id, limit, col(TicketRow.status).in_(CLOSED),
                            TicketRow.updated_at < before)


# -- idempotent requests ------------------------------------------------------------------------


# A claimed request whose answer is not stored yet. Tag 0 is illegal in protobuf, so no
# serialised answer can start with a zero byte: the marker never collides with an answer.
PENDING = b"\x00"


def get_request(s: Session, player_id: str, method: str, request_id: str) -> bytes | None:
    """The stored first answer of a request, ``PENDING`` while it runs, or None."""
    row = s.get(RequestRow, (player_id, method, request_id))
    return row.response if row is not None else None


def claim_request(s: Session, player_id: str, method: str, request_id: str, now: float) -> bytes | None:
    """Claim a request id before running it. None: the claim is ours (run the request); else the
    stored answer or ``PENDING``. Two lobbies claiming at once: the second commit raises
    ``IntegrityError`` (primary key), and the caller reads the winner's row."""
    stored = get_request(s, player_id, method, request_id)
    if stored is not None:
        return stored
    s.add(RequestRow(player_id=player_id, method=method, request_id=request_id, response=PENDING,
                     created_at=now))
    return None


def put_request(s: Session, player_id: str, method: str, request_id: str, response: bytes) -> None:
    """Store the answer of a request claimed with ``claim_request``."""
    row = s.get(RequestRow, (player_id, method, request_id))
    if row is not None and row.response == PENDING:
        row.response = response
        s.add(row)


def drop_request(s: Session, player_id: str, method: str, request_id: str) -> None:
    """Give a claim up (the request failed: a retry runs it afresh, as before)."""
    row = s.get(RequestRow, (player_id, method, request_id))
    if row is not None and row.response == PENDING:
        s.delete(row)


# -- records ------------------------------------------------------------------------------------


def record_from_row(r: RecordRow | None) -> PlayerRecord:
    """The pure record of a row (None = a new player)."""
    if r is None:
        return PlayerRecord()
    return PlayerRecord(
        games=r.games,
        wins=r.wins,
        losses=r.losses,
        ties=r.ties,
        scored_games=r.scored_games,
        score_sum=r.score_sum,
        margin_sum=r.margin_sum,
        best_score=r.best_score,
        rating=Rating(r.rating, r.deviation, r.volatility),
    )


def record_to_row(row: RecordRow, rec: PlayerRecord, now: float) -> RecordRow:
    """Copies a pure record into its row."""
    row.games, row.wins, row.losses, row.ties = rec.games, rec.wins, rec.losses, rec.ties
    row.scored_games, row.score_sum, row.margin_sum = rec.scored_games, rec.score_sum, rec.margin_sum
    row.best_score = rec.best_score
    row.rating, row.deviation, row.volatility = rec.rating.rating, rec.rating.deviation, rec.rating.volatility
    row.updated_at = now
    return row


def count_active_matches(s: Session) -> int:
    """Matches not finished."""
    return int(s.exec(select(func.count()).select_from(MatchRow).where(col(MatchRow.active))).one())


def healthy_servers(s: Session, fresh_since: float) -> list[MatchServerRow]:
    """Match servers that heartbeat since ``fresh_since``, are not draining and have room,
    least loaded first (by active/capacity, then active)."""
    q = select(MatchServerRow).where(
        MatchServerRow.last_heartbeat >= fresh_since,
        MatchServerRow.draining == False,  # noqa: E712
        MatchServerRow.capacity > MatchServerRow.active,
    )
    rows = list(s.exec(q))
    rows.sort(key=lambda r: (r.active / max(r.capacity, 1), r.active, r.id))
    return rows


__all__ += [
    "CLOSED",
    "MATCHING",
    "TABLES_CHANNEL",
    "TICKETS_CHANNEL",
    "TicketRow",
    "add_ticket",
    "cancel_ticket",
    "claim_groups",
    "delete_old_tickets",
    "finish_group",
    "get_tables",
    "get_ticket",
    "hold_group",
    "lock_table",
    "notify",
    "requeue_group",
    "stale_starting",
    "ticket_from_row",
    "waiting_ticket",
]
__all__ += [
    "add_sign_in_failure",
    "clear_sign_in_failures",
    "count_sign_in_attempt",
    "delete_expired_sign_in_failures",
    "sign_in_failures",
]
__all__ += ["MatchRow", "MatchSeatRow", "MatchServerRow", "count_active_matches", "healthy_servers"]
