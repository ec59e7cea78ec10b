"""The commands a match decides, each carrying the time it is decided at (``now``, epoch
seconds): the shell reads the clock, the core never does."""

from __future__ import annotations

from dataclasses import dataclass

from wordarena.engine.game import Action

__all__ = ["Act", "Chat", "Command", "Expire"]


@dataclass(frozen=True, slots=True)
class Act:
    """A player's action on the game (a turn, a decision, leaving, resigning, kicking) under
    ``request_id`` for ``method``; ``expected_seq`` None where the method has none (Leave, Kick).
    A Kick's idle time is checked here against ``Options.idle_kick_seconds``."""

    player_id: str
    request_id: str
    method: str
    action: Action
    expected_seq: int | None
    now: float


@dataclass(frozen=True, slots=True)
class Chat:
    """A chat message from ``seat`` (None: a spectator, in the observers' channel)."""

    player_id: str
    request_id: str
    seat: int | None
    now: float


@dataclass(frozen=True, slots=True)
class Expire:
    """The time-out of the seat to move, if it is due at ``now`` (the clock timer, or a request
    arriving after the time ran out)."""

    now: float


Command = Act | Chat | Expire
