"""Match servers: the registry of the servers the lobby allocates matches on."""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import Session, col, select

from wordarena.services.lobby.models import MatchRow, MatchServerRow

__all__ = [
    "count_active_matches",
    "healthy_servers",
    "heartbeat_server",
    "register_server",
    "servers_seen_since",
]


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


def servers_seen_since(s: Session, since: float) -> list[MatchServerRow]:
    """Match servers whose last heartbeat is at or after ``since``."""
    return list(s.exec(select(MatchServerRow).where(MatchServerRow.last_heartbeat >= since)))


def register_server(
    s: Session,
    server_id: str,
    address: str,
    version: str,
    capacity: int,
    active: int,
    draining: bool,
    now: float,
    web_url: str = "",
) -> None:
    """Adds a match server to the registry, or updates it (registering again after a restart)."""
    row = s.get(MatchServerRow, server_id) or MatchServerRow(
        id=server_id, address="", last_heartbeat=now, registered_at=now
    )
    row.address, row.version, row.web_url = address, version, web_url
    row.capacity, row.active = capacity, active
    row.draining, row.last_heartbeat = draining, now
    s.add(row)


def heartbeat_server(
    s: Session, server_id: str, capacity: int, active: int, draining: bool, address: str, now: float
) -> bool:
    """Records a registered server's heartbeat and load (and new address, if given); False when
    the server is unknown."""
    row = s.get(MatchServerRow, server_id) if server_id else None
    if row is None:
        return False
    row.capacity, row.active = capacity, active
    row.draining, row.last_heartbeat = draining, now
    if address:
        row.address = address
    s.add(row)
    return True
