"""An immutable match, as decisions read it: the engine state, who sits where, the options, the
log's positions (``seq``, ``game_seq``), the request ids already answered, the clocks and the chat
counts. The shell's ``Runtime`` (the live match, with its stream subscribers and tasks) makes one
with ``Runtime.snapshot`` under the match's lock."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from wordarena.engine.game import GameState
from wordarena.engine.rulesets.model import Ruleset

__all__ = ["Match", "Options", "SeatInfo", "controlled_seats"]


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who sits at a seat."""

    player_id: str
    display_name: str
    guest: bool = False
    bot: bool = False
    bot_level: int = 0
    bot_think_ms: int = 0  # a bot's think time per move (0 = the server's default)

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "display_name": self.display_name, "guest": self.guest,
                "bot": self.bot, "bot_level": self.bot_level, "bot_think_ms": self.bot_think_ms}


def controlled_seats(seats: tuple[SeatInfo, ...] | list[SeatInfo], player_id: str) -> list[int]:
    """Of ``seats``, those ``player_id`` may act for (several in pass-and-play)."""
    return [i for i, s in enumerate(seats) if not s.bot and s.player_id == player_id]


@dataclass(frozen=True, slots=True)
class Options:
    """Match options as stored (JSON)."""

    challenge_mode: int = 0
    per_player_seconds: float = 0.0  # 0 = untimed
    idle_kick_seconds: float = 3 * 86400.0  # the per-turn deadline (classic, warofwords; else 0)
    pass_and_play: bool = False
    unrated: bool = False
    spectators_allowed: bool = False
    no_show_seconds: float = 0.0  # the first-move deadline (0 = none)

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Options:
        return cls(**{k: d[k] for k in cls.__slots__ if k in d})


@dataclass(frozen=True, slots=True)
class Match:
    """What a decision about a match reads; never changed (``decide`` returns the next one)."""

    match_id: str
    ruleset: Ruleset
    seats: tuple[SeatInfo, ...]
    options: Options
    created_at: float
    state: GameState
    #: The latest stored seq (chat included) and the latest that changed the game (not chat).
    seq: int
    game_seq: int
    status: str = "in-progress"
    #: The method each answered (player id, request id) was first used for.
    requests: Mapping[tuple[str, str], str] = field(default_factory=dict)
    clocks: tuple[float, ...] | None = None  # remaining seconds per seat at ``turn_start``
    turn_start: float = 0.0  # when the seat to move began its turn (epoch seconds)
    last_move: tuple[float, ...] = ()  # when each seat last moved
    #: Seats that made a move of their own (no time-out or kick): they have shown.
    moved: frozenset[int] = frozenset()
    #: Chat messages stored, by player id, and in the observers' channel.
    chats: Mapping[str, int] = field(default_factory=dict)
    observer_chats: int = 0
    #: SendChat's token buckets by player id: (tokens, time of the last refill).
    chat_buckets: Mapping[str, tuple[float, float]] = field(default_factory=dict)

    def controlled_seats(self, player_id: str) -> list[int]:
        """Seats the player may act for (several in pass-and-play)."""
        return controlled_seats(self.seats, player_id)

    def answered(self, player_id: str, request_id: str) -> bool:
        """Whether this request id of this player has an answer already."""
        return bool(request_id) and (player_id, request_id) in self.requests
