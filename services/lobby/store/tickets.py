"""Quick-match tickets: the shared queue, claimed in groups by the lobbies that match them."""

from __future__ import annotations

from sqlalchemy import func, update
from sqlmodel import Session, col, select

from wordarena.services.lobby.matchmaking import Criteria, Group, Queue, Ticket, TicketStatus
from wordarena.services.lobby.models import TicketRow
from wordarena.services.lobby.store.base import TICKETS_CHANNEL, delete_unlocked, notify

__all__ = [
    "CLOSED",
    "MATCHING",
    "add_ticket",
    "cancel_ticket",
    "claim_groups",
    "delete_old_tickets",
    "finish_group",
    "get_ticket",
    "hold_group",
    "requeue_group",
    "ticket_from_row",
    "waiting_ticket",
]

#: Row status of a ticket claimed by a lobby that is allocating its match.
MATCHING = "matching"
#: Row statuses of closed tickets (deleted once older than the retention, ``delete_old_tickets``).
CLOSED = (TicketStatus.CANCELLED.value, TicketStatus.EXPIRED.value, TicketStatus.MATCHED.value)


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
            id=t.ticket_id,
            player_id=t.player_id,
            display_name=t.display_name,
            guest=t.guest,
            ruleset_id=c.ruleset_id,
            language=c.language,
            board_id=c.board_id,
            seats=c.seats,
            bot_after_s=t.bot_after_s,
            bot_level=t.bot_level,
            status=TicketStatus.QUEUED.value,
            created_at=t.created_at,
            updated_at=t.created_at,
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
        select(func.count())
        .select_from(TicketRow)
        .where(
            col(TicketRow.status).in_((TicketStatus.QUEUED.value, MATCHING)),
            TicketRow.ruleset_id == r.ruleset_id,
            TicketRow.language == r.language,
            TicketRow.board_id == r.board_id,
            TicketRow.seats == r.seats,
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
    return delete_unlocked(
        s, TicketRow.id, limit, col(TicketRow.status).in_(CLOSED), TicketRow.updated_at < before
    )
