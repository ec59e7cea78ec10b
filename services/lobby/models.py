"""The lobby's tables (SQLModel). All names start with ``lobby_``: the lobby owns them alone."""

from __future__ import annotations

from sqlmodel import Field, SQLModel

__all__ = [
    "MatchRow",
    "MatchSeatRow",
    "MatchServerRow",
    "PlayerRow",
    "RecordRow",
    "RequestRow",
    "SignInFailureRow",
    "TableRow",
    "TicketRow",
    "TournamentEntrantRow",
    "TournamentGameRow",
    "TournamentLogRow",
    "TournamentRoundRow",
    "TournamentRow",
]


class PlayerRow(SQLModel, table=True):
    """A player: a guest, or a claimed account (``password_hash`` set)."""

    __tablename__ = "lobby_players"

    id: str = Field(primary_key=True, max_length=64)
    display_name: str = Field(max_length=64)
    name_key: str = Field(index=True, max_length=96)
    guest: bool = True
    password_hash: str | None = Field(default=None, max_length=256)
    created_at: float
    last_seen: float = Field(index=True)


class TableRow(SQLModel, table=True):
    """A table; ``data`` is its JSON form (settings, seats, host, match)."""

    __tablename__ = "lobby_tables"

    id: str = Field(primary_key=True, max_length=64)
    status: str = Field(index=True, max_length=16)
    data: str
    created_at: float
    updated_at: float


class MatchServerRow(SQLModel, table=True):
    """A registered match server and its last reported load."""

    __tablename__ = "lobby_match_servers"

    id: str = Field(primary_key=True, max_length=128)
    address: str = Field(max_length=256)
    capacity: int = 0
    active: int = 0
    draining: bool = False
    version: str = Field(default="", max_length=64)
    #: Where browsers reach it over gRPC-Web ("" for none): ``/config.json``.
    web_url: str = Field(default="", max_length=256)
    last_heartbeat: float = Field(index=True)
    registered_at: float


class MatchRow(SQLModel, table=True):
    """A match the lobby allocated (or learnt of from a result)."""

    __tablename__ = "lobby_matches"

    id: str = Field(primary_key=True, max_length=64)
    table_id: str = Field(default="", max_length=64)
    ruleset_id: str = Field(max_length=32)
    language: str = Field(max_length=16)
    board_id: str = Field(max_length=64)
    server_id: str = Field(default="", max_length=128)
    address: str = Field(default="", max_length=256)
    active: bool = Field(default=True, index=True)
    rated: bool = True
    created_at: float
    ended_at: float | None = None
    reason: int = 0
    result_hash: str | None = Field(default=None, max_length=64)


class MatchSeatRow(SQLModel, table=True):
    """A seat of a match: who, and (once reported) the result."""

    __tablename__ = "lobby_match_seats"

    match_id: str = Field(primary_key=True, max_length=64)
    seat: int = Field(primary_key=True)
    player_id: str = Field(index=True, max_length=64)
    display_name: str = Field(default="", max_length=64)
    bot_level: int = 0
    guest: bool = False
    ruleset_id: str = Field(max_length=32, index=True)
    score: int = 0
    status: int = 0
    outcome: int = 0
    score_counts: bool = True
    recorded: bool = False
    margin: float = 0.0
    created_at: float = 0.0
    ended_at: float | None = Field(default=None, index=True)


class RecordRow(SQLModel, table=True):
    """A player's all-time record and Glicko-2 rating in one ruleset."""

    __tablename__ = "lobby_records"

    player_id: str = Field(primary_key=True, max_length=64)
    ruleset_id: str = Field(primary_key=True, max_length=32)
    games: int = 0
    wins: int = 0
    losses: int = 0
    ties: int = 0
    scored_games: int = 0
    score_sum: int = 0
    margin_sum: float = 0.0
    best_score: int = 0
    rating: float = Field(default=1500.0, index=True)
    deviation: float = 350.0
    volatility: float = 0.06
    updated_at: float = 0.0


class RequestRow(SQLModel, table=True):
    """The first answer to an idempotent request (``request_id`` per player and method)."""

    __tablename__ = "lobby_requests"

    player_id: str = Field(primary_key=True, max_length=64)
    method: str = Field(primary_key=True, max_length=32)
    request_id: str = Field(primary_key=True, max_length=64)
    response: bytes
    created_at: float = Field(index=True)


class TicketRow(SQLModel, table=True):
    """A quick-match ticket. ``status``: queued, matching (claimed by a lobby that is allocating
    its match since ``claimed_at``), matched, cancelled or expired. At most one queued or matching
    ticket per player (a partial unique index)."""

    __tablename__ = "lobby_tickets"

    id: str = Field(primary_key=True, max_length=64)
    player_id: str = Field(index=True, max_length=64)
    display_name: str = Field(default="", max_length=64)
    guest: bool = False
    ruleset_id: str = Field(max_length=32)
    language: str = Field(max_length=16)
    board_id: str = Field(max_length=64)
    seats: int = 2
    bot_after_s: float | None = None
    bot_level: int = 3
    status: str = Field(index=True, max_length=16)
    claimed_at: float | None = None
    match_id: str = Field(default="", max_length=64)
    address: str = Field(default="", max_length=256)
    seat: int | None = None
    version: int = 0
    created_at: float = Field(index=True)
    updated_at: float = Field(default=0.0, index=True)


class SignInFailureRow(SQLModel, table=True):
    """The recent failed sign-ins of one throttle key (``store.count_sign_in_attempt``). ``key``: the
    SHA-256 (hex) of the name's skeleton, so the names tried (perhaps a password typed in the
    wrong field) are not stored; ``failures``: a JSON list of their times (Unix seconds, oldest
    first; at most the policy's ``limit``, all within its window); ``expires_at``: when the newest
    leaves the window (then the row means nothing, and housekeeping deletes it)."""

    __tablename__ = "lobby_sign_in_failures"

    key: str = Field(primary_key=True, max_length=64)
    failures: str = "[]"
    expires_at: float = Field(index=True)


class TournamentRow(SQLModel, table=True):
    """A tournament; ``data`` is the JSON form of its settings (divisions included) and
    directors; ``version`` grows with every change of the tournament or its entrants and games."""

    __tablename__ = "lobby_tournaments"

    id: str = Field(primary_key=True, max_length=64)
    status: str = Field(index=True, max_length=16)
    data: str
    created_at: float = Field(index=True)
    updated_at: float
    version: int = 0


class TournamentEntrantRow(SQLModel, table=True):
    """An entrant of a tournament (a player, or a bot: ``bot_level`` > 0)."""

    __tablename__ = "lobby_tournament_entrants"

    tournament_id: str = Field(primary_key=True, max_length=64)
    entrant_id: str = Field(primary_key=True, max_length=64)
    player_id: str = Field(index=True, max_length=64)
    display_name: str = Field(default="", max_length=64)
    bot_level: int = 0
    guest: bool = False
    division: str = Field(max_length=32)
    seed_rating: float = 1500.0
    checked_in: bool = False
    withdrawn: bool = False
    registered_at: float = 0.0
    invited: bool = False


class TournamentRoundRow(SQLModel, table=True):
    """A paired round of a division: its primary key makes pairing a round happen once."""

    __tablename__ = "lobby_tournament_rounds"

    tournament_id: str = Field(primary_key=True, max_length=64)
    division: str = Field(primary_key=True, max_length=32)
    round: int = Field(primary_key=True)
    method: str = Field(max_length=32)
    paired_at: float


class TournamentGameRow(SQLModel, table=True):
    """A game of a pairing and its result (``match_id`` once its match is created)."""

    __tablename__ = "lobby_tournament_games"

    tournament_id: str = Field(primary_key=True, max_length=64)
    division: str = Field(primary_key=True, max_length=32)
    round: int = Field(primary_key=True)
    pairing: int = Field(primary_key=True)
    game: int = Field(primary_key=True)
    first_id: str = Field(max_length=64)
    second_id: str | None = Field(default=None, max_length=64)
    status: str = Field(index=True, max_length=16)
    match_id: str = Field(default="", index=True, max_length=64)
    address: str = Field(default="", max_length=256)
    first_score: int = 0
    second_score: int = 0
    first_result: str | None = Field(default=None, max_length=8)
    forfeit: bool = False
    updated_at: float = 0.0


class TournamentLogRow(SQLModel, table=True):
    """A director's action on a tournament."""

    __tablename__ = "lobby_tournament_log"

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: str = Field(index=True, max_length=64)
    at: float
    director_id: str = Field(max_length=64)
    action: str = Field(max_length=32)
    detail: str = ""
