"""Matches the lobby allocated (or was told of): where they are played, who sits, the result."""

from __future__ import annotations

from sqlmodel import Session, col, select

from wordarena.services.lobby.models import MatchRow, MatchSeatRow, MatchServerRow
from wordarena.services.lobby.settings import TableConfig
from wordarena.services.lobby.tables import Occupant
from wordarena.v1 import common_pb2

__all__ = [
    "get_match",
    "locate_match",
    "match_seats",
    "move_match",
    "player_matches",
    "record_match",
    "save_row",
]


def get_match(s: Session, match_id: str) -> MatchRow | None:
    """A match's row, or None."""
    return s.get(MatchRow, match_id)


def save_row(s: Session, row: MatchRow | MatchSeatRow) -> None:
    """Inserts or updates a match or seat row."""
    s.add(row)


def match_seats(s: Session, match_id: str) -> dict[int, MatchSeatRow]:
    """A match's seat rows by seat index."""
    return {r.seat: r for r in s.exec(select(MatchSeatRow).where(MatchSeatRow.match_id == match_id))}


def record_match(
    s: Session,
    match_id: str,
    server_id: str,
    address: str,
    cfg: TableConfig,
    occ: list[Occupant],
    table_id: str,
    now: float,
    live: bool = True,
) -> None:
    """Records a match created on ``server_id``: its row, its seats, and one more match in the
    server's load. A withdrawn match (``live`` False) is recorded as aborted, with no seats."""
    m = MatchRow(
        id=match_id,
        table_id=table_id,
        ruleset_id=cfg.ruleset_id,
        language=cfg.language,
        board_id=cfg.board_id,
        server_id=server_id,
        address=address,
        rated=cfg.rated,
        created_at=now,
    )
    if not live:  # withdrawn: nobody was given the match; a result for it would count for nothing
        m.active, m.rated, m.ended_at = False, False, now
        m.reason = common_pb2.GAME_OVER_REASON_ABORTED
        s.add(m)
        return
    s.add(m)
    for i, o in enumerate(occ):
        s.add(
            MatchSeatRow(
                match_id=match_id,
                seat=i,
                player_id=o.player_id,
                display_name=o.display_name,
                bot_level=o.bot_level,
                guest=o.guest,
                ruleset_id=cfg.ruleset_id,
                created_at=now,
            )
        )
    srv = s.get(MatchServerRow, server_id)
    if srv is not None:
        srv.active += 1
        s.add(srv)


def locate_match(s: Session, match_id: str, player_id: str) -> tuple[MatchRow | None, int | None]:
    """A match's row and the player's seat in it (None if not seated)."""
    m = s.get(MatchRow, match_id)
    seat = s.exec(
        select(MatchSeatRow.seat).where(
            MatchSeatRow.match_id == match_id, MatchSeatRow.player_id == player_id
        )
    ).first()
    return m, seat


def move_match(s: Session, match_id: str, server_id: str, address: str) -> bool:
    """Records a match's new owner (a take-over); False when the match is unknown."""
    m = s.get(MatchRow, match_id)
    if m is None:
        return False
    m.server_id, m.address = server_id, address
    s.add(m)
    return True


def player_matches(
    s: Session, player_id: str, active: bool | None, offset: int, limit: int
) -> list[tuple[MatchRow, list[MatchSeatRow], int]]:
    """A player's matches (only active or finished ones, or all when ``active`` is None), active
    first, then newest first: (match, its seats by index, the player's seat)."""
    q = (
        select(MatchRow, MatchSeatRow.seat)
        .join(MatchSeatRow, MatchSeatRow.match_id == MatchRow.id)
        .where(MatchSeatRow.player_id == player_id)
    )
    if active is not None:
        q = q.where(MatchRow.active == active)
    q = q.order_by(col(MatchRow.active).desc(), col(MatchRow.created_at).desc(), MatchRow.id)
    out = []
    for m, seat in s.exec(q.offset(offset).limit(limit)):
        seats = list(
            s.exec(select(MatchSeatRow).where(MatchSeatRow.match_id == m.id).order_by(MatchSeatRow.seat))
        )
        out.append((m, seats, seat))
    return out
