"""Tables: their rows (a JSON document each), read and locked for the cache and for changes."""

from __future__ import annotations

import json
from dataclasses import asdict

from sqlmodel import Session, col, select

from wordarena.services.lobby.models import TableRow
from wordarena.services.lobby.settings import TableConfig
from wordarena.services.lobby.tables import Occupant, Table, TableStatus

__all__ = [
    "get_tables",
    "load_tables",
    "lock_table",
    "save_table",
    "stale_starting",
    "table_from_json",
    "table_to_json",
]


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
    cfg["bot_think"] = tuple(tuple(b) for b in cfg.get("bot_think", ()))
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
