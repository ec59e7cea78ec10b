"""Tables of the match server (SQLModel). The schema itself is created by the Alembic migrations
in ``services/match/migrations`` (``store.migrate``), never by ``create_all`` outside tests.

* ``matches``         one row per match: ruleset, seed, seats, options, status, owner and lease.
* ``match_events``    the append-only log, primary key ``(match_id, seq)``; ``payload`` is JSON
                      (the engine events behind the stored event and the state after it).
* ``match_requests``  idempotency: the first answer to each ``(match_id, player_id, request_id)``.
* ``match_results``   outbox of finished matches' results until the lobby acknowledges them.
"""

from __future__ import annotations

from sqlalchemy import Column, LargeBinary, Text
from sqlmodel import Field, SQLModel


class MatchRow(SQLModel, table=True):
    """A match."""

    __tablename__ = "matches"

    id: str = Field(primary_key=True, max_length=64)
    ruleset_id: str = Field(max_length=128)
    seed: str = Field(max_length=32)  # decimal; uint64 does not fit a signed BIGINT
    seats: str = Field(sa_column=Column(Text, nullable=False))  # JSON list of seat dicts
    options: str = Field(sa_column=Column(Text, nullable=False))  # JSON dict
    create_request: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    table_id: str = Field(default="", max_length=64)
    status: str = Field(default="in-progress", max_length=16, index=True)
    owner: str = Field(default="", max_length=128, index=True)
    lease_until: float = 0.0
    last_seq: int = 0
    created_at: float = 0.0
    ended_at: float | None = None


class EventRow(SQLModel, table=True):
    """One stored event of a match's log."""

    __tablename__ = "match_events"

    match_id: str = Field(primary_key=True, foreign_key="matches.id", max_length=64)
    seq: int = Field(primary_key=True)
    time: float
    kind: str = Field(max_length=32)
    payload: str = Field(sa_column=Column(Text, nullable=False))


class RequestRow(SQLModel, table=True):
    """The first answer given to a client request id (idempotent retries)."""

    __tablename__ = "match_requests"

    match_id: str = Field(primary_key=True, foreign_key="matches.id", max_length=64)
    player_id: str = Field(primary_key=True, max_length=128)
    request_id: str = Field(primary_key=True, max_length=64)
    method: str = Field(max_length=32)
    last_seq: int
    response: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class ResultRow(SQLModel, table=True):
    """A finished match's result for the lobby (the outbox of ``services.match.results``):
    ``pending`` until the lobby acknowledges it, then ``acked``; ``refused`` when the lobby
    rejected it as inconsistent (not retried; an operator's matter)."""

    __tablename__ = "match_results"

    match_id: str = Field(primary_key=True, max_length=64)
    report: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # ReportResultRequest
    state: str = Field(default="pending", max_length=16)
    attempts: int = 0
    next_attempt_at: float = 0.0
    created_at: float = 0.0
    acked_at: float | None = None
    last_error: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
