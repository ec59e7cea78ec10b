"""Quick match: tickets in a shared queue, grouped by criteria and seated in a new match.

Tickets are rows; a matchmaking step claims groups with ``FOR UPDATE SKIP LOCKED``
(``store.claim_groups``), so two lobbies never match the same ticket. Ticket watchers wake on
``NOTIFY wordarena_lobby_tickets`` (and poll the row as a fallback). A ticket can be cancelled
while its group is being allocated: the allocation checks its claim on every ticket under row
locks before it creates the match and again in the transaction that records it, so either the
cancel wins (nobody is seated, the rest of the group goes back to the queue in its place) or the
match was committed first (the cancel is refused: the ticket is matched).

The background loop's steps do not wait for their allocations: each runs as a task of its own,
so a slow or hanging match server does not hold up the loop's other work. A QuickMatch call's
own step waits for the allocation of the groups it claimed, so its answer carries the assignment.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from wordarena.services.common import logs
from wordarena.services.common.db import Database
from wordarena.services.common.tasks import cancel_and_wait
from wordarena.services.lobby import store
from wordarena.services.lobby.accounts import Accounts
from wordarena.services.lobby.allocation import AllocationWithdrawn, Allocator
from wordarena.services.lobby.errors import LobbyError
from wordarena.services.lobby.matchmaking import TICKET_TTL_S, Criteria, Group, Ticket, TicketStatus
from wordarena.services.lobby.metrics import MM_WAIT
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.lobby.settings import TableConfig, validate_settings
from wordarena.services.lobby.tables import Occupant, bot_player_id

__all__ = ["QuickMatch"]

log = logs.get_logger("wordarena.lobby")


class QuickMatch:
    """The quick-match queue of this lobby's players, and its matchmaking steps."""

    def __init__(self, db: Database, options: LobbyOptions, accounts: Accounts, allocator: Allocator) -> None:
        self.db = db
        self.opt = options
        self.accounts = accounts
        self.allocator = allocator
        #: Watched tickets: set when their row changes.
        self.ticket_events: dict[str, asyncio.Event] = {}
        #: Allocations started by the background loop (``run(wait=False)``).
        self._allocations: set[asyncio.Task[None]] = set()

    def notify(self, ticket_id: str) -> None:
        """Wakes the watchers of a ticket (its row changed)."""
        ev = self.ticket_events.get(ticket_id)
        if ev is not None:
            ev.set()

    async def enqueue(
        self, player_id: str, cfg: TableConfig, bot_after_s: float | None, bot_level: int
    ) -> tuple[Ticket, int]:
        """Queues a ticket for the player and runs a matchmaking step; returns the ticket as it
        is then and the players waiting for the same criteria (ALREADY_QUEUED if the player has
        a ticket waiting)."""
        p = await self.accounts.player(player_id)
        t = Ticket(
            ticket_id=f"q_{uuid.uuid4().hex[:20]}",
            player_id=p.id,
            display_name=p.display_name,
            criteria=Criteria(cfg.ruleset_id, cfg.language, cfg.board_id, cfg.seats),
            created_at=time.time(),
            bot_after_s=bot_after_s,
            bot_level=bot_level,
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
        await self.run()
        got = await self.db.run(store.get_ticket, t.ticket_id)
        assert got is not None
        return got

    async def run(self, wait: bool = True) -> None:
        """One matchmaking step: expires old tickets, claims the groups that can start and
        allocates their matches. With ``wait`` it returns once the allocations are done (a
        QuickMatch call); without (the background loop), they go on as tasks of their own, so the
        loop's other work never waits for a match server."""
        claim = time.time()
        expired, groups = await self.db.run(
            store.claim_groups, claim, TICKET_TTL_S, self.opt.ticket_reclaim_s
        )
        for t in expired:
            self.notify(t.ticket_id)
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
        if not await self.db.run(store.hold_group, ids, claim, time.time()):
            log.info(
                "quick match group given up before allocation: a ticket was cancelled "
                "(or the claim taken back)",
                tickets=ids,
            )
            return

        def commit(s: Session, match_id: str, address: str) -> bool:
            return store.finish_group(s, ids, claim, match_id, address, time.time()) is not None

        try:
            await self.allocator.allocate(cfg, occ, commit=commit)
        except AllocationWithdrawn:
            return
        except LobbyError as exc:
            log.warning("quick match allocation failed", error=exc.message)
            await self.db.run(store.requeue_group, ids, claim, time.time())
            return
        now = time.time()
        for t in g.tickets:
            MM_WAIT.observe(now - t.created_at)
            self.notify(t.ticket_id)

    async def get(self, ticket_id: str, player_id: str) -> tuple[Ticket, int]:
        """The player's ticket and the players waiting for its criteria (NOT_FOUND otherwise)."""
        got = await self.db.run(store.get_ticket, ticket_id)
        if got is None or got[0].player_id != player_id:
            raise LobbyError.not_found("no such ticket", "ticket_id")
        return got

    async def watch(self, ticket_id: str, player_id: str) -> AsyncIterator[tuple[Ticket, int]]:
        """The player's ticket now and after each change, until it is closed."""
        t, waiting = await self.get(ticket_id, player_id)
        ev = self.ticket_events.setdefault(t.ticket_id, asyncio.Event())
        # SQLite: every change is made here and sets ``ev``. PostgreSQL: another lobby's change
        # arrives by NOTIFY; the row is re-read every ticket_poll_s as well, in case one is lost.
        wait_s = self.opt.watch_heartbeat_s if self.db.sqlite else self.opt.ticket_poll_s
        last = -1
        try:
            while True:
                if t.version != last:
                    last = t.version
                    yield t, waiting
                if t.status != TicketStatus.QUEUED:
                    return
                ev.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(ev.wait(), timeout=wait_s)
                t, waiting = await self.get(ticket_id, player_id)
        finally:
            self.ticket_events.pop(t.ticket_id, None)

    async def cancel(self, ticket_id: str, player_id: str) -> Ticket:
        """Cancels the player's waiting ticket (TICKET_CLOSED once matched or expired)."""
        t = await self.db.run(store.cancel_ticket, ticket_id, player_id, time.time())
        if t is None:
            raise LobbyError.not_found("no such ticket", "ticket_id")
        if t.status in (TicketStatus.MATCHED, TicketStatus.EXPIRED):
            # matched: also when the cancel lost the race with the commit of an allocation
            raise LobbyError.precondition(
                "TICKET_CLOSED", f"the ticket is already {t.status.value}", "ticket_id"
            )
        self.notify(t.ticket_id)
        return t

    async def stop(self) -> None:
        """Cancels running allocations and wakes every ticket watcher."""
        await cancel_and_wait(self._allocations)
        for ev in self.ticket_events.values():
            ev.set()
