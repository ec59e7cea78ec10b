"""What a player (or the match server on their behalf) can do. Every action names its seat."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wordarena.engine.errors import InputError
from wordarena.engine.placement import Placement


@dataclass(frozen=True, slots=True)
class Move:
    """warofwords: move the player's own Rain or Whirlwind from one square to another."""

    from_row: int
    from_col: int
    to_row: int
    to_col: int


@dataclass(frozen=True, slots=True)
class Play:
    """Put tiles on the board (in War of Words: letters and / or action tiles, and moves of
    the player's Rain / Whirlwind, which alone are not a turn)."""

    seat: int
    placements: tuple[Placement, ...]
    moves: tuple[Move, ...] = ()


@dataclass(frozen=True, slots=True)
class Pass:
    seat: int


@dataclass(frozen=True, slots=True)
class Exchange:
    """Swap these rack tokens for as many from the bag."""

    seat: int
    tiles: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Resign:
    """Give up (classic: counts as a loss; warofwords: 'Forfeit Game')."""

    seat: int


@dataclass(frozen=True, slots=True)
class Decide:
    """wordtiles: accept the pending play, or check its words in the dictionary."""

    seat: int
    accept: bool


@dataclass(frozen=True, slots=True)
class TimeOut:
    """The seat's clock ran out (issued by the match server)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Leave:
    """The seat left the match (wordtiles: drops out; warofwords: 'Leave Game')."""

    seat: int


@dataclass(frozen=True, slots=True)
class Kick:
    """warofwords: another player kicked an idle seat (the server checks the idle time)."""

    seat: int
    by: int


Action = Play | Pass | Exchange | Resign | Decide | TimeOut | Leave | Kick

_KINDS: dict[str, Callable[..., Action]] = {
    "play": Play, "pass": Pass, "exchange": Exchange, "resign": Resign, "decide": Decide,
    "timeout": TimeOut, "leave": Leave, "kick": Kick,
}
_NAMES = {cls: name for name, cls in _KINDS.items()}


def action_to_dict(action: Action) -> dict[str, Any]:
    """JSON-ready form (stored in the event log, so that a match can be replayed)."""
    out: dict[str, Any] = {"kind": _NAMES[type(action)], "seat": action.seat}
    if isinstance(action, Play):
        out["placements"] = [[p.row, p.col, p.letter, p.blank] + ([p.facing] if p.facing else [])
                             for p in action.placements]
        if action.moves:
            out["moves"] = [[m.from_row, m.from_col, m.to_row, m.to_col] for m in action.moves]
    elif isinstance(action, Exchange):
        out["tiles"] = list(action.tiles)
    elif isinstance(action, Decide):
        out["accept"] = action.accept
    elif isinstance(action, Kick):
        out["by"] = action.by
    return out


def action_from_dict(data: dict[str, Any]) -> Action:
    """Inverse of ``action_to_dict``; malformed data raises ``InputError`` naming the field."""
    try:
        kind = data["kind"]
        seat = int(data["seat"])
        if kind == "play":
            placements = tuple(
                Placement(int(p[0]), int(p[1]), str(p[2]), bool(p[3]),
                          str(p[4]) if len(p) > 4 else "")
                for p in data["placements"]
            )
            moves = tuple(Move(*(int(v) for v in m)) for m in data.get("moves", ()))
            return Play(seat, placements, moves)
        if kind == "exchange":
            return Exchange(seat, tuple(str(t) for t in data["tiles"]))
        if kind == "decide":
            return Decide(seat, bool(data["accept"]))
        if kind == "kick":
            return Kick(seat, int(data["by"]))
        return _KINDS[kind](seat)
    except KeyError as exc:
        raise InputError(f"missing or unknown field {exc}", "action") from exc
    except (TypeError, ValueError, IndexError) as exc:
        raise InputError(f"malformed action: {exc}", "action") from exc
