"""Tournaments: their rows, entrants, paired rounds, games (with results) and director log.

Every change of a tournament runs in a transaction that first locks its row
(``lock_tournament``), so changes to one tournament are serialised across lobbies."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import case, func
from sqlmodel import Session, col, select

from wordarena.services.lobby.models import (
    TournamentEntrantRow,
    TournamentGameRow,
    TournamentLogRow,
    TournamentRoundRow,
    TournamentRow,
)
from wordarena.services.lobby.tournaments.config import config_from_json, config_to_json
from wordarena.services.lobby.tournaments.entities import (
    Entrant,
    Game,
    GameStatus,
    LogEntry,
    Tournament,
    TournamentStatus,
)
from wordarena.services.lobby.tournaments.ranking import Side

__all__ = [
    "add_entrant",
    "add_round",
    "add_tournament",
    "game_by_match",
    "get_game",
    "get_tournament",
    "list_tournaments",
    "live_tournaments",
    "lock_tournament",
    "log_action",
    "save_game",
    "save_tournament",
    "tournament_entrants",
    "tournament_games",
    "tournament_log",
]


def _tournament(row: TournamentRow) -> Tournament:
    cfg, directors = config_from_json(row.data)
    status = TournamentStatus(row.status)
    return Tournament(row.id, cfg, tuple(directors), status, row.created_at, row.version)


def add_tournament(s: Session, t: Tournament, now: float) -> None:
    """Inserts a new tournament."""
    s.add(
        TournamentRow(
            id=t.tournament_id,
            status=t.status.value,
            data=config_to_json(t.config, list(t.directors)),
            created_at=t.created_at,
            updated_at=now,
        )
    )


def get_tournament(s: Session, tournament_id: str) -> Tournament | None:
    """A tournament, or None."""
    row = s.get(TournamentRow, tournament_id)
    return _tournament(row) if row is not None else None


def lock_tournament(s: Session, tournament_id: str) -> Tournament | None:
    """A tournament read with its row locked until the transaction ends (``FOR UPDATE`` on
    PostgreSQL; SQLite's one writer serialises every transaction anyway)."""
    row = s.exec(select(TournamentRow).where(TournamentRow.id == tournament_id).with_for_update()).first()
    return _tournament(row) if row is not None else None


def save_tournament(s: Session, t: Tournament, now: float) -> None:
    """Stores a tournament's status and directors and counts one more change (``version``);
    call it in every transaction that changes the tournament, its entrants or games."""
    row = s.get(TournamentRow, t.tournament_id)
    assert row is not None
    row.status, row.data = t.status.value, config_to_json(t.config, list(t.directors))
    row.version, row.updated_at = row.version + 1, now
    s.add(row)


def list_tournaments(
    s: Session, status: TournamentStatus | None, offset: int, limit: int, invited: str = ""
) -> list[Tournament]:
    """A page of tournaments (in one state, or all; with ``invited``, a player id, only those
    where that player's invitation waits for an answer): real events first — live ones, then
    those taking entries, then finished ones; within each, most entrants first, then newest."""
    entrants = (
        select(TournamentEntrantRow.tournament_id, func.count().label("n"))
        .where(col(TournamentEntrantRow.withdrawn).is_(False), col(TournamentEntrantRow.invited).is_(False))
        .group_by(col(TournamentEntrantRow.tournament_id))
        .subquery()
    )
    live = [TournamentStatus.RUNNING.value, TournamentStatus.PAUSED.value]
    stage = case((col(TournamentRow.status).in_(live), 0),
                 (TournamentRow.status == TournamentStatus.REGISTRATION.value, 1), else_=2)
    q = (
        select(TournamentRow)
        .outerjoin(entrants, entrants.c.tournament_id == TournamentRow.id)
        .order_by(stage, func.coalesce(entrants.c.n, 0).desc(), col(TournamentRow.created_at).desc(),
                  col(TournamentRow.id))
        .offset(offset)
        .limit(limit)
    )
    if status is not None:
        q = q.where(TournamentRow.status == status.value)
    if invited:
        pending = select(TournamentEntrantRow.tournament_id).where(
            TournamentEntrantRow.player_id == invited,
            col(TournamentEntrantRow.invited).is_(True),
            col(TournamentEntrantRow.withdrawn).is_(False),
        )
        q = q.where(col(TournamentRow.id).in_(pending))
    return [_tournament(r) for r in s.exec(q)]


def unfinished_tournaments(s: Session) -> list[str]:
    """Ids of the tournaments not yet finished."""
    q = select(TournamentRow.id).where(TournamentRow.status != TournamentStatus.FINISHED.value)
    return list(s.exec(q))


def tournaments_created_by(s: Session, player_id: str, among: Collection[str]) -> list[str]:
    """Of the tournaments ``among``, the ids of those ``player_id`` created (its first director)."""
    q = select(TournamentRow).where(col(TournamentRow.id).in_(list(among)))
    return [r.id for r in s.exec(q) if (config_from_json(r.data)[1] or [""])[0] == player_id]


def registering_tournaments(s: Session) -> list[Tournament]:
    """The tournaments in REGISTRATION (the tick starts those whose start_time has come)."""
    q = select(TournamentRow).where(TournamentRow.status == TournamentStatus.REGISTRATION.value)
    return [_tournament(r) for r in s.exec(q)]


def live_tournaments(s: Session) -> list[str]:
    """Ids of the running and paused tournaments."""
    q = select(TournamentRow.id).where(
        col(TournamentRow.status).in_([TournamentStatus.RUNNING.value, TournamentStatus.PAUSED.value])
    )
    return list(s.exec(q))


def _entrant(r: TournamentEntrantRow) -> Entrant:
    return Entrant(
        r.entrant_id, r.player_id, r.display_name, r.division, r.seed_rating, r.bot_level, r.guest,
        r.checked_in, r.withdrawn, r.registered_at, r.invited,
    )  # fmt: skip


def tournament_entrants(s: Session, tournament_id: str) -> list[Entrant]:
    """A tournament's entrants in registration order."""
    q = (
        select(TournamentEntrantRow)
        .where(TournamentEntrantRow.tournament_id == tournament_id)
        .order_by(col(TournamentEntrantRow.registered_at), col(TournamentEntrantRow.entrant_id))
    )
    return [_entrant(r) for r in s.exec(q)]


def add_entrant(s: Session, tournament_id: str, e: Entrant) -> None:
    """Inserts or updates an entrant."""
    row = s.get(TournamentEntrantRow, (tournament_id, e.entrant_id)) or TournamentEntrantRow(
        tournament_id=tournament_id, entrant_id=e.entrant_id, player_id=e.player_id, division=e.division
    )
    row.player_id, row.display_name = e.player_id, e.display_name
    row.bot_level, row.guest = e.bot_level, e.guest
    row.division, row.seed_rating, row.checked_in = e.division, e.seed_rating, e.checked_in
    row.withdrawn, row.registered_at, row.invited = e.withdrawn, e.registered_at, e.invited
    s.add(row)


def _game(r: TournamentGameRow) -> Game:
    return Game(
        r.division, r.round, r.pairing, r.game, r.first_id, r.second_id, GameStatus(r.status), r.match_id,
        r.address, r.first_score, r.second_score, Side(r.first_result) if r.first_result else None, r.forfeit,
    )  # fmt: skip


def tournament_games(s: Session, tournament_id: str) -> list[Game]:
    """Every game of a tournament, by division, round, pairing and game."""
    q = (
        select(TournamentGameRow)
        .where(TournamentGameRow.tournament_id == tournament_id)
        .order_by(
            col(TournamentGameRow.division),
            col(TournamentGameRow.round),
            col(TournamentGameRow.pairing),
            col(TournamentGameRow.game),
        )
    )
    return [_game(r) for r in s.exec(q)]


def game_by_match(s: Session, match_id: str) -> tuple[str, Game] | None:
    """(tournament id, game) of the game played as ``match_id``, or None."""
    row = s.exec(select(TournamentGameRow).where(TournamentGameRow.match_id == match_id)).first()
    return (row.tournament_id, _game(row)) if row is not None else None


def save_game(s: Session, tournament_id: str, g: Game, now: float) -> None:
    """Inserts or updates a game."""
    key = (tournament_id, *g.key)
    row = s.get(TournamentGameRow, key) or TournamentGameRow(
        tournament_id=tournament_id, division=g.division, round=g.round, pairing=g.pairing, game=g.game,
        first_id=g.first, status=g.status.value,
    )  # fmt: skip
    row.first_id, row.second_id, row.status = g.first, g.second, g.status.value
    row.match_id, row.address = g.match_id, g.address
    row.first_score, row.second_score, row.forfeit = g.first_score, g.second_score, g.forfeit
    row.first_result = g.first_result.value if g.first_result else None
    row.updated_at = now
    s.add(row)


def add_round(s: Session, tournament_id: str, division: str, round_no: int, method: str, now: float) -> bool:
    """Records that a division's round is paired, in the caller's transaction (which holds the
    tournament's lock: ``lock_tournament``); False when it was already. No savepoint: on SQLite,
    releasing one commits at once, and a lobby killed then would leave a round without games."""
    if s.get(TournamentRoundRow, (tournament_id, division, round_no)) is not None:
        return False
    row = TournamentRoundRow(
        tournament_id=tournament_id, division=division, round=round_no, method=method, paired_at=now
    )
    s.add(row)
    return True


def round_paired_at(s: Session, tournament_id: str, division: str, round_no: int) -> float | None:
    """When a division's round was paired (None: not yet)."""
    row = s.get(TournamentRoundRow, (tournament_id, division, round_no))
    return row.paired_at if row is not None else None


def log_action(s: Session, tournament_id: str, at: float, director_id: str, action: str, detail: str) -> None:
    """Appends a director's action to the log."""
    s.add(
        TournamentLogRow(
            tournament_id=tournament_id, at=at, director_id=director_id, action=action, detail=detail
        )
    )


def tournament_log(s: Session, tournament_id: str) -> list[LogEntry]:
    """A tournament's director log, oldest first."""
    q = (
        select(TournamentLogRow)
        .where(TournamentLogRow.tournament_id == tournament_id)
        .order_by(col(TournamentLogRow.id))
    )
    return [LogEntry(r.at, r.director_id, r.action, r.detail) for r in s.exec(q)]


def get_game(s: Session, tournament_id: str, key: tuple[str, int, int, int]) -> Game | None:
    """One game by (division, round, pairing, game), or None."""
    row = s.get(TournamentGameRow, (tournament_id, *key))
    return _game(row) if row is not None else None
