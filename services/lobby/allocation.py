"""Allocation: a match for a table or a quick-match group, on the least-loaded healthy match
server, recorded with its seats; and the clean-up of a match withdrawn before it was committed.

A match created for a quick-match group whose allocation was then withdrawn (a ticket cancelled
meanwhile) is aborted on its match server with ``MatchControlService.AbortMatch``, in the
background and best effort: retried on failure after each of ``abort_retry_delays_s``, then given
up (logged). Pending retries do not survive a stop of the lobby.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable

from sqlmodel import Session

from wordarena.services.common import logs
from wordarena.services.common.db import Database
from wordarena.services.common.tasks import cancel_and_wait
from wordarena.services.lobby import store
from wordarena.services.lobby.errors import LobbyError, Status
from wordarena.services.lobby.match_control import ControlCallFailed, MatchControl
from wordarena.services.lobby.metrics import ALLOCATIONS, MATCH_ABORTS
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.lobby.settings import TableConfig
from wordarena.services.lobby.tables import Occupant

__all__ = ["WITHDRAWN_REASON", "AllocationWithdrawn", "Allocator", "Commit"]

log = logs.get_logger("wordarena.lobby")

WITHDRAWN_REASON = "withdrawn: a quick-match ticket was cancelled during the allocation"
#: Answers that make a retry of AbortMatch pointless: nothing there to abort, or a match server
#: that does not know AbortMatch (an older version).
ABORT_FINAL = frozenset({"NOT_FOUND", "FAILED_PRECONDITION", "UNIMPLEMENTED", "INVALID_ARGUMENT"})

#: ``commit(session, match_id, address)``: runs in the transaction that records the match; False
#: withdraws it.
Commit = Callable[[Session, str, str], bool]


class AllocationWithdrawn(Exception):
    """The match was created, but a ticket of its group was cancelled before it was committed:
    nothing was recorded for the players (the rest of the group is queued again)."""


class Allocator:
    """Creates matches on match servers and records them."""

    def __init__(self, db: Database, options: LobbyOptions, control: MatchControl) -> None:
        self.db = db
        self.opt = options
        self.control = control
        self._aborts: set[asyncio.Task[bool]] = set()
        #: server id -> until when it is tried last (it let CreateMatch time out, or was down)
        self._suspect: dict[str, float] = {}

    async def allocate(
        self,
        cfg: TableConfig,
        occupants: list[Occupant],
        table_id: str = "",
        commit: Commit | None = None,
    ) -> tuple[str, str]:
        """Creates the match on the least-loaded healthy server; returns (match id, address).

        ``commit(session, match_id, address)`` runs in the transaction that records the match;
        when it returns False the match is recorded as aborted (no seats, unrated) and
        ``AllocationWithdrawn`` is raised."""
        match_id = f"m_{uuid.uuid4().hex}"
        servers = await self.db.run(store.healthy_servers, time.time() - self.opt.server_ttl_s)
        if not servers:
            ALLOCATIONS.labels("no_capacity").inc()
            raise LobbyError(
                Status.UNAVAILABLE, "no match server can take the match; retry later", "NO_CAPACITY"
            )
        last_error = ""
        now = time.monotonic()
        # Suspects last (stable: least loaded first within each group).
        servers.sort(key=lambda srv: self._suspect.get(srv.id, 0.0) > now)
        for n, srv in enumerate(servers):
            # A short deadline while another server could still take the match.
            timeout = self.opt.create_match_attempt_s if n + 1 < len(servers) else 0.0
            try:
                answered = await self.control.create_match(srv.address, match_id, cfg, occupants, table_id,
                                                           timeout)
            except ControlCallFailed as exc:
                last_error = f"{srv.id}: {exc.code} {exc.details}"
                log.warning("CreateMatch failed", server_id=srv.id, code=exc.code, details=exc.details)
                if exc.code in ("DEADLINE_EXCEEDED", "UNAVAILABLE"):
                    self._suspect[srv.id] = time.monotonic() + self.opt.suspect_server_s
                continue
            self._suspect.pop(srv.id, None)
            address = answered or srv.address

            def record(s: Session, srv_id: str = srv.id, address: str = address) -> bool:
                live = commit is None or commit(s, match_id, address)
                store.record_match(s, match_id, srv_id, address, cfg, occupants, table_id, time.time(), live)
                return live

            if not await self.db.run(record):
                ALLOCATIONS.labels("withdrawn").inc()
                log.warning(
                    "match created but withdrawn: a quick-match ticket was cancelled meanwhile",
                    match_id=match_id,
                    match_server_id=srv.id,
                )
                self._abort_in_background(match_id, srv.id, srv.address)
                raise AllocationWithdrawn(match_id)
            ALLOCATIONS.labels("ok").inc()
            log.info("match allocated", match_id=match_id, match_server_id=srv.id)
            return match_id, address
        ALLOCATIONS.labels("failed").inc()
        raise LobbyError(
            Status.UNAVAILABLE,
            f"no match server accepted the match ({last_error}); retry later",
            "NO_CAPACITY",
        )

    def _abort_in_background(self, match_id: str, server_id: str, address: str) -> None:
        task = asyncio.create_task(self.abort_match(match_id, server_id, address, WITHDRAWN_REASON))
        self._aborts.add(task)
        task.add_done_callback(self._aborts.discard)

    async def abort_match(self, match_id: str, server_id: str, address: str, reason: str) -> bool:
        """``AbortMatch`` on the match server, retried after each of ``abort_retry_delays_s``
        (following a ``MatchMoved`` to the new owner). True once the server has aborted it."""
        delays = self.opt.abort_retry_delays_s
        alog = log.bind(match_id=match_id, match_server_id=server_id)
        for attempt in range(len(delays) + 1):
            try:
                already = await self.control.abort_match(address, match_id, reason)
            except ControlCallFailed as exc:
                failed = alog.bind(code=exc.code, details=exc.details)
                if exc.code in ABORT_FINAL:
                    MATCH_ABORTS.labels("refused").inc()
                    failed.warning("AbortMatch refused; the withdrawn match is left to its match server")
                    return False
                if exc.moved_to:
                    address = exc.moved_to
                if attempt == len(delays):
                    MATCH_ABORTS.labels("given_up").inc()
                    failed.error("AbortMatch failed at every attempt; the withdrawn match stays on its "
                                 "match server", attempts=attempt + 1)
                    return False
                MATCH_ABORTS.labels("retry").inc()
                failed.warning("AbortMatch failed; retrying", retry_in_s=delays[attempt])
                await asyncio.sleep(delays[attempt])
                continue
            MATCH_ABORTS.labels("aborted").inc()
            alog.info("withdrawn match aborted on its match server", already_aborted=already)
            return True
        return False  # pragma: no cover - the loop always returns

    async def stop(self) -> None:
        """Cancels pending aborts and closes the channels to match servers."""
        await cancel_and_wait(self._aborts)
        await self.control.close()
