"""Lobby storage: players, tables, match servers, matches, records and idempotent requests.

Every function here is blocking and takes a SQLModel ``Session``; the service runs them through
``services.common.db.Database.run`` (off the event loop, one transaction each).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from sqlalchemy import func
from sqlmodel import Session, col, select

from services.common.db import Database, run_migrations
from services.lobby.glicko2 import Rating
from services.lobby.models import (
    MatchRow,
    MatchSeatRow,
    MatchServerRow,
    PlayerRow,
    RecordRow,
    RequestRow,
    TableRow,
)
from services.lobby.records import PlayerRecord
from services.lobby.settings import TableConfig
from services.lobby.tables import Occupant, Table, TableStatus

MIGRATIONS = Path(__file__).parent / "migrations"
VERSION_TABLE = "alembic_version_lobby"

__all__ = [
    "MIGRATIONS",
    "VERSION_TABLE",
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
    """Tables not closed, and closed ones updated since ``since``."""
    q = select(TableRow).where((TableRow.status != "closed") | (TableRow.updated_at >= since))
    return [table_from_json(r.id, r.data) for r in s.exec(q)]


# -- idempotent requests ------------------------------------------------------------------------


def get_request(s: Session, player_id: str, method: str, request_id: str) -> bytes | None:
    """The stored first answer of a request, or None."""
    row = s.get(RequestRow, (player_id, method, request_id))
    return row.response if row is not None else None


def put_request(
    s: Session, player_id: str, method: str, request_id: str, response: bytes, now: float
) -> None:
    """Stores a request's first answer (a repeat keeps the first)."""
    if s.get(RequestRow, (player_id, method, request_id)) is None:
        s.add(
            RequestRow(
                player_id=player_id, method=method, request_id=request_id, response=response, created_at=now
            )
        )


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


__all__ += ["MatchRow", "MatchSeatRow", "MatchServerRow", "count_active_matches", "healthy_servers"]
