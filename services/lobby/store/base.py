"""Plumbing shared by the store modules: change notifications and batched clean-up deletes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, text
from sqlmodel import Session, col, select

__all__ = ["TABLES_CHANNEL", "TICKETS_CHANNEL", "delete_unlocked", "notify"]

#: PostgreSQL ``NOTIFY`` channels: a table changed (payload: its id), a ticket changed (its id).
TABLES_CHANNEL = "wordarena_lobby_tables"
TICKETS_CHANNEL = "wordarena_lobby_tickets"


def notify(s: Session, channel: str, payload: str) -> None:
    """``pg_notify`` in the current transaction (delivered to listeners at commit); no-op on
    SQLite, where one process serves everything."""
    if s.get_bind().dialect.name == "postgresql":
        s.connection().execute(text("SELECT pg_notify(:c, :p)"), {"c": channel, "p": payload})


def delete_unlocked(s: Session, key: Any, limit: int, *where: Any) -> int:
    """Deletes up to ``limit`` rows matching ``where``, picked by their ``key`` column ``FOR
    UPDATE SKIP LOCKED`` on PostgreSQL (so lobbies cleaning up at once delete disjoint rows
    and wait for no one), the conditions checked again in the delete; returns how many."""
    keys = list(s.exec(select(key).where(*where).limit(limit).with_for_update(skip_locked=True)))
    if not keys:
        return 0
    model = key.class_
    res = s.exec(delete(model).where(col(key).in_(keys), *where))  # type: ignore[call-overload]
    return int(res.rowcount)
