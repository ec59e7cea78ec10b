"""Tournament entities: plain values shared by the pairing plan, the store and the service."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from wordarena.services.lobby.tournaments.config import TournamentConfig
from wordarena.services.lobby.tournaments.ranking import GameResult, Side

__all__ = ["Entrant", "Game", "GameKey", "GameStatus", "LogEntry", "Tournament", "TournamentStatus"]

#: (division, round, pairing, game)
GameKey = tuple[str, int, int, int]


class TournamentStatus(StrEnum):
    """Mirrors ``wordarena.v1.TournamentStatus``."""

    REGISTRATION = "registration"
    RUNNING = "running"
    PAUSED = "paused"
    FINISHED = "finished"


class GameStatus(StrEnum):
    """Mirrors ``wordarena.v1.TournamentGameStatus``."""

    PENDING = "pending"
    PLAYING = "playing"
    DONE = "done"


@dataclass(frozen=True)
class Tournament:
    """A tournament: settings, directors (creator first), state."""

    tournament_id: str
    config: TournamentConfig
    directors: tuple[str, ...]
    status: TournamentStatus
    created_at: float
    version: int = 0


@dataclass(frozen=True)
class Entrant:
    """An entrant: a player or a bot (``bot_level`` > 0, ``player_id`` ``bot:<level>``).

    ``invited``: a director added the player, who has not accepted yet. Nobody plays without
    consent, so an invitation is paired in no game and stands nowhere until accepted (a
    declined one stays invited and is withdrawn)."""

    entrant_id: str
    player_id: str
    display_name: str
    division: str
    seed_rating: float
    bot_level: int = 0
    guest: bool = False
    checked_in: bool = False
    withdrawn: bool = False
    registered_at: float = 0.0
    invited: bool = False

    @property
    def active(self) -> bool:
        """Paired from the next round: entered (not a pending invitation) and not withdrawn."""
        return not self.withdrawn and not self.invited


@dataclass(frozen=True)
class Game:
    """A game of a pairing; a bye has no ``second`` and is DONE at once."""

    division: str
    round: int
    pairing: int
    game: int
    first: str
    second: str | None
    status: GameStatus = GameStatus.PENDING
    match_id: str = ""
    address: str = ""
    first_score: int = 0
    second_score: int = 0
    first_result: Side | None = None
    forfeit: bool = False

    @property
    def key(self) -> GameKey:
        """(division, round, pairing, game)."""
        return (self.division, self.round, self.pairing, self.game)

    @property
    def bye(self) -> bool:
        """True for a bye."""
        return self.second is None

    def forfeited(self, first_wins: bool, spread: int) -> Game:
        """The game ended as a forfeit (a director's, or a no-show): the winner scores the bye
        ``spread``, the other side 0."""
        return replace(self, status=GameStatus.DONE, first_score=spread if first_wins else 0,
                       second_score=0 if first_wins else spread,
                       first_result=Side.WIN if first_wins else Side.LOSS, forfeit=True)

    def result(self) -> GameResult | None:
        """The result for the standings (None until DONE)."""
        if self.status != GameStatus.DONE or self.first_result is None:
            return None
        return GameResult(self.first, self.second, self.first_score, self.second_score, self.first_result)


@dataclass(frozen=True)
class LogEntry:
    """A director's action."""

    at: float
    director_id: str
    action: str
    detail: str
