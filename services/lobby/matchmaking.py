"""QuickMatch: a ticket → match → assignment queue, pure (no I/O, the caller supplies the time).

Tickets wait in a pool keyed by their criteria (ruleset, language, board, seats). ``match()``
forms groups of ``seats`` tickets, oldest first. A ticket whose ``bot_after`` has passed without
enough humans is matched with the humans waiting for the same criteria (itself at least) and
bots fill the remaining seats. Tickets expire after ``ttl`` (15 minutes). The caller turns each
proposed group into a match (allocation) and then marks the tickets matched, or puts them back.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from enum import StrEnum

__all__ = ["Criteria", "Group", "Queue", "Ticket", "TicketStatus"]

TICKET_TTL_S = 15 * 60.0


class TicketStatus(StrEnum):
    """Mirrors ``wordarena.v1.TicketStatus``."""

    QUEUED = "queued"
    MATCHED = "matched"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


@dataclass(frozen=True, slots=True)
class Criteria:
    """What a ticket asks for (the pool key)."""

    ruleset_id: str
    language: str
    board_id: str
    seats: int


@dataclass
class Ticket:
    """A player waiting for a quick match."""

    ticket_id: str
    player_id: str
    display_name: str
    criteria: Criteria
    created_at: float
    bot_after_s: float | None = None
    bot_level: int = 3
    guest: bool = False
    status: TicketStatus = TicketStatus.QUEUED
    match_id: str = ""
    address: str = ""
    seat: int | None = None
    version: int = 0


@dataclass
class Group:
    """Tickets to seat together, plus the number of bot seats (level of the oldest ticket)."""

    criteria: Criteria
    tickets: list[Ticket]
    bots: int = 0
    bot_level: int = 3


@dataclass
class Queue:
    """The pools of queued tickets."""

    ttl_s: float = TICKET_TTL_S
    pools: dict[Criteria, OrderedDict[str, Ticket]] = field(default_factory=dict)
    by_player: dict[str, Ticket] = field(default_factory=dict)

    def queued_for(self, player_id: str) -> Ticket | None:
        """The player's queued ticket, if any."""
        t = self.by_player.get(player_id)
        return t if t is not None and t.status == TicketStatus.QUEUED else None

    def add(self, ticket: Ticket) -> None:
        """Queues a ticket (the caller checked the player has none queued)."""
        self.pools.setdefault(ticket.criteria, OrderedDict())[ticket.ticket_id] = ticket
        self.by_player[ticket.player_id] = ticket

    def waiting(self, criteria: Criteria) -> int:
        """Players queued for these criteria."""
        return len(self.pools.get(criteria, ()))

    def remove(self, ticket: Ticket, status: TicketStatus) -> None:
        """Takes a ticket out of the queue with its final status."""
        pool = self.pools.get(ticket.criteria)
        if pool is not None:
            pool.pop(ticket.ticket_id, None)
            if not pool:
                del self.pools[ticket.criteria]
        if self.by_player.get(ticket.player_id) is ticket:
            del self.by_player[ticket.player_id]
        ticket.status = status
        ticket.version += 1

    def requeue(self, group: Group) -> None:
        """Puts a group's tickets back, in their original order (after a failed allocation)."""
        for t in group.tickets:
            t.status = TicketStatus.QUEUED
            self.add(t)
        for crit, pool in self.pools.items():
            self.pools[crit] = OrderedDict(sorted(pool.items(), key=lambda kv: kv[1].created_at))

    def expire(self, now: float) -> list[Ticket]:
        """Expires tickets older than the TTL; returns them."""
        old = [t for pool in self.pools.values() for t in pool.values() if now - t.created_at >= self.ttl_s]
        for t in old:
            self.remove(t, TicketStatus.EXPIRED)
        return old

    def match(self, now: float) -> list[Group]:
        """Takes the groups that can start now out of the pools (tickets stay QUEUED and owned by
        their players until the caller ``remove``s them as MATCHED or ``requeue``s the group)."""
        groups: list[Group] = []
        for crit in list(self.pools):
            pool = self.pools[crit]
            while len(pool) >= crit.seats:
                picked = [pool.popitem(last=False)[1] for _ in range(crit.seats)]
                groups.append(Group(crit, picked))
            if pool:
                oldest = next(iter(pool.values()))
                if oldest.bot_after_s is not None and now - oldest.created_at >= oldest.bot_after_s:
                    picked = list(pool.values())
                    pool.clear()
                    bots = crit.seats - len(picked)
                    groups.append(Group(crit, picked, bots=bots, bot_level=oldest.bot_level))
            if not pool:
                del self.pools[crit]
        return groups

    def next_deadline(self) -> float | None:
        """The earliest time at which a bot offer falls due, or None."""
        times = [
            t.created_at + t.bot_after_s
            for pool in self.pools.values()
            for t in list(pool.values())[:1]
            if t.bot_after_s is not None
        ]
        return min(times, default=None)
