"""Records: per player and ruleset, and the leaderboards made from them and the seat rows."""

from __future__ import annotations

from sqlmodel import Session, select

from wordarena.services.lobby.glicko2 import Rating
from wordarena.services.lobby.models import MatchSeatRow, PlayerRow, RecordRow
from wordarena.services.lobby.records import PlayerRecord
from wordarena.v1 import common_pb2

__all__ = [
    "leaderboard",
    "lock_records",
    "player_records",
    "record_from_row",
    "record_to_row",
    "records_of",
    "save_record",
]


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


def lock_records(s: Session, player_ids: list[str]) -> None:
    """Hold these players' rows until the transaction ends (``SELECT … FOR UPDATE``, in id
    order, so two transactions never wait for each other crosswise), before their records are
    read and written back. On PostgreSQL, results of two matches of one player recorded at once
    would otherwise both read the same record and the second write would lose the first game
    (or both insert a new record); SQLite runs one writing transaction at a time anyway."""
    ids = sorted(set(player_ids))
    if ids:
        held = select(PlayerRow.id).where(PlayerRow.id.in_(ids))  # type: ignore[attr-defined]
        s.exec(held.order_by(PlayerRow.id).with_for_update()).all()


def records_of(s: Session, player_ids: list[str], ruleset_id: str) -> dict[str, PlayerRecord]:
    """The records of these players in a ruleset (a new record for those without one)."""
    return {pid: record_from_row(s.get(RecordRow, (pid, ruleset_id))) for pid in player_ids}


def save_record(s: Session, player_id: str, ruleset_id: str, rec: PlayerRecord, now: float) -> None:
    """Writes a player's record in a ruleset."""
    row = s.get(RecordRow, (player_id, ruleset_id)) or RecordRow(player_id=player_id, ruleset_id=ruleset_id)
    s.add(record_to_row(row, rec, now))


def player_records(
    s: Session, player_id: str, ruleset_id: str = ""
) -> tuple[PlayerRow | None, list[RecordRow]]:
    """A player and their record rows (of one ruleset, or all by ruleset id)."""
    q = select(RecordRow).where(RecordRow.player_id == player_id)
    if ruleset_id:
        q = q.where(RecordRow.ruleset_id == ruleset_id)
    return s.get(PlayerRow, player_id), list(s.exec(q.order_by(RecordRow.ruleset_id)))


def leaderboard(s: Session, ruleset_id: str, since: float | None) -> list[tuple[PlayerRow, PlayerRecord]]:
    """(player, record over the period) for players with a recorded game in the period (all
    time: their stored records; else summed from their recorded seats since ``since``)."""
    recs = {r.player_id: r for r in s.exec(select(RecordRow).where(RecordRow.ruleset_id == ruleset_id))}
    if since is None:
        players = {p.id: p for p in s.exec(select(PlayerRow).where(PlayerRow.id.in_(list(recs))))}  # type: ignore[attr-defined]
        return [(players[pid], record_from_row(r)) for pid, r in recs.items() if pid in players and r.games]
    rows = s.exec(
        select(MatchSeatRow).where(
            MatchSeatRow.ruleset_id == ruleset_id,
            MatchSeatRow.recorded == True,  # noqa: E712
            MatchSeatRow.ended_at >= since,
        )
    )
    agg: dict[str, PlayerRecord] = {}
    for r in rows:
        cur = agg.get(r.player_id, PlayerRecord())
        scored = r.score_counts and r.status in (
            0,
            common_pb2.SEAT_STATUS_ACTIVE,
            common_pb2.SEAT_STATUS_TIMED_OUT,
        )
        agg[r.player_id] = PlayerRecord(
            games=cur.games + 1,
            wins=cur.wins + (r.outcome == common_pb2.OUTCOME_WIN),
            losses=cur.losses + (r.outcome == common_pb2.OUTCOME_LOSS),
            ties=cur.ties + (r.outcome == common_pb2.OUTCOME_TIE),
            scored_games=cur.scored_games + scored,
            score_sum=cur.score_sum + (r.score if scored else 0),
            margin_sum=cur.margin_sum + (r.margin if scored else 0.0),
            best_score=max(cur.best_score, r.score if scored else 0),
            rating=record_from_row(recs.get(r.player_id)).rating,
        )
    players = {p.id: p for p in s.exec(select(PlayerRow).where(PlayerRow.id.in_(list(agg))))}  # type: ignore[attr-defined]
    return [(players[pid], rec) for pid, rec in agg.items() if pid in players]
