"""Event-sourced storage of matches: the match row, the append-only event log and the answers to
client requests (for idempotent retries). Blocking SQLModel code, run off the event loop by
``services.common.db.Database``.

Appends are conditional on the match's ``last_seq`` and on the caller owning the match, in one
transaction with the request's answer: a turn is acknowledged only after this commit.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from services.common.db import Database, run_migrations
from services.match.models import EventRow, MatchRow, RequestRow

MIGRATIONS = Path(__file__).parent / "migrations"
VERSION_TABLE = "alembic_version_match"


@dataclass(slots=True)
class StoredEvent:
    """An event of the log: its seq, time (epoch seconds), kind and JSON payload."""

    seq: int
    time: float
    kind: str
    payload: dict[str, Any] = field(default_factory=dict)

    def to_row(self, match_id: str) -> EventRow:
        return EventRow(match_id=match_id, seq=self.seq, time=self.time, kind=self.kind,
                        payload=json.dumps(self.payload, separators=(",", ":")))

    @classmethod
    def from_row(cls, row: EventRow) -> StoredEvent:
        return cls(row.seq, row.time, row.kind, json.loads(row.payload))


class ConflictError(Exception):
    """The match moved on under us (another writer or owner): reload it."""


@dataclass(slots=True)
class MatchLog:
    """Everything stored about one match."""

    row: MatchRow
    events: list[StoredEvent]
    requests: dict[tuple[str, str], RequestRow]


class MatchStore:
    """Storage operations of the match server."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def migrate(self) -> None:
        """Bring the schema to the latest migration (blocking; at start-up)."""
        run_migrations(self.db.engine, MIGRATIONS, VERSION_TABLE)

    # --- matches -------------------------------------------------------------------------

    async def create(self, row: MatchRow, events: list[StoredEvent]) -> MatchRow:
        """Insert a new match with its first events; if the id exists, return the stored row."""
        def work(s: Session) -> MatchRow:
            existing = s.get(MatchRow, row.id)
            if existing is not None:
                return existing
            s.add(row)
            s.flush()
            for e in events:
                s.add(e.to_row(row.id))
            return row

        try:
            return await self.db.run(work)
        except IntegrityError:
            got = await self.get(row.id)
            if got is None:  # pragma: no cover - would be a real error
                raise
            return got

    async def get(self, match_id: str) -> MatchRow | None:
        """The match row, or None."""
        return await self.db.run(lambda s: s.get(MatchRow, match_id))

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
        request: RequestRow | None = None, status: str | None = None, ended_at: float | None = None,
    ) -> None:
        """Append ``events`` (and the request's answer) atomically, provided the match's last seq
        is ``expected_last_seq`` and ``owner`` owns it; ``ConflictError`` otherwise."""
        def work(s: Session) -> None:
            values: dict[str, Any] = {"last_seq": events[-1].seq if events else expected_last_seq}
            if status is not None:
                values["status"] = status
            if ended_at is not None:
                values["ended_at"] = ended_at
            result = s.exec(  # type: ignore[call-overload]
                update(MatchRow).where(MatchRow.id == match_id,  # type: ignore[arg-type]
                                       MatchRow.last_seq == expected_last_seq,  # type: ignore[arg-type]
                                       MatchRow.owner == owner)  # type: ignore[arg-type]
                .values(**values))
            if result.rowcount != 1:
                raise ConflictError(match_id)
            for e in events:
                s.add(e.to_row(match_id))
            if request is not None:
                s.add(request)

        try:
            await self.db.run(work)
        except IntegrityError as exc:
            raise ConflictError(match_id) from exc

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
