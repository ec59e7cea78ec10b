"""Game time, pure: what the game clocks show, when a seat times out, when it may be kicked.

Each family's timing comes from its ruleset (``ClockRule``) and the match options:

- a game clock (Word Tiles; Scrabble; classic / War of Words when a table sets one): the
  remaining time of every seat, charged to the seat to move for the time since its turn began;
  a seat whose clock runs out times out — in Scrabble only once it has run ``max_overtime`` past
  zero; until then its time over goes to the engine with every action (``overtime``), which
  takes the overtime penalty off at the game's end;
- a per-turn deadline (classic, War of Words; ``turn_deadline``): classic times the seat out
  when it passes; in War of Words the others may then kick it;
- a first-move deadline (``Options.no_show_seconds``, ``no_show_deadline``), any family: a seat
  that has not made a move of its own by then did not show and is timed out.

Every function takes the time as an argument and reads a ``Timed`` (a ``Match``, or the shell's
live ``Runtime``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from wordarena.engine.game import GameState
from wordarena.engine.rulesets.model import Ruleset
from wordarena.services.match.core.match import Options, SeatInfo

__all__ = [
    "Timed", "charged_clocks", "clock_left", "idle_since", "no_show_deadline", "overtime",
    "overtime_allowed", "time_out_at", "turn_deadline",
]


class Timed(Protocol):
    """What the timing of a match reads."""

    @property
    def ruleset(self) -> Ruleset: ...
    @property
    def state(self) -> GameState: ...
    @property
    def status(self) -> str: ...
    @property
    def options(self) -> Options: ...
    @property
    def created_at(self) -> float: ...
    @property
    def turn_start(self) -> float: ...
    @property
    def clocks(self) -> Sequence[float] | None: ...
    @property
    def last_move(self) -> Sequence[float]: ...
    @property
    def moved(self) -> Collection[int]: ...
    @property
    def seats(self) -> Sequence[SeatInfo]: ...


def overtime_allowed(m: Timed) -> bool:
    """True when the game clock may run past zero (scrabble's overtime penalty)."""
    return m.clocks is not None and m.ruleset.clock.overtime_points > 0


def clock_left(m: Timed, seat: int, now: float) -> float | None:
    """Seconds left on ``seat``'s game clock at ``now`` (None when untimed); below zero by the
    time over in a family with overtime (scrabble), down to minus its maximum overtime."""
    if m.clocks is None:
        return None
    left = m.clocks[seat]
    if not m.state.over and seat == m.state.to_move and m.status == "in-progress":
        left -= now - m.turn_start
    return max(left, -float(m.ruleset.clock.max_overtime if overtime_allowed(m) else 0))


def charged_clocks(m: Timed, now: float) -> list[float] | None:
    """The clocks after charging the seat to move for the time since its turn began."""
    if m.clocks is None:
        return None
    out = list(m.clocks)
    if not m.state.over:
        out[m.state.to_move] = clock_left(m, m.state.to_move, now) or 0.0
    return out


def overtime(m: Timed, clocks: Sequence[float] | None) -> list[float] | None:
    """Each seat's time over on ``clocks`` (the engine's overtime data), or None when the match's
    clock has no overtime."""
    if clocks is None or not overtime_allowed(m):
        return None
    return [max(-left, 0.0) for left in clocks]


def idle_since(m: Timed, seat: int) -> float:
    """Since when ``seat`` has been idle: its turn's start or its last move, the later."""
    return max(m.turn_start, m.last_move[seat] if m.last_move else m.created_at)


def turn_deadline(m: Timed, seat: int) -> float | None:
    """When ``seat``'s per-turn deadline passes if it is to move (correspondence families; none
    in pass-and-play or for bots)."""
    if not m.ruleset.clock.turn_deadline or m.options.pass_and_play or m.seats[seat].bot \
            or m.state.over or seat != m.state.to_move:
        return None
    return idle_since(m, seat) + m.options.idle_kick_seconds


def no_show_deadline(m: Timed, seat: int) -> float | None:
    """When ``seat`` is timed out for not showing: its turn's start plus the no-show time while it
    is to move and has made no move of its own; None otherwise (bots always show)."""
    if not m.options.no_show_seconds or m.options.pass_and_play or m.seats[seat].bot \
            or m.state.over or seat != m.state.to_move or seat in m.moved:
        return None
    return m.turn_start + m.options.no_show_seconds


def time_out_at(m: Timed) -> float | None:
    """When the seat to move is timed out (None: never, as things stand): its game clock's end
    (plus the maximum overtime in Scrabble), its per-turn deadline in a family without Kick Idle
    Player (classic), or its first-move deadline."""
    if m.state.over or m.status != "in-progress":
        return None
    seat = m.state.to_move
    due: list[float] = []
    if m.clocks is not None:
        limit = m.ruleset.clock.max_overtime if overtime_allowed(m) else 0
        due.append(m.turn_start + m.clocks[seat] + limit)
    deadline = turn_deadline(m, seat)
    if deadline is not None and not m.ruleset.idle_kick:
        due.append(deadline)
    no_show = no_show_deadline(m, seat)
    if no_show is not None:
        due.append(no_show)
    return min(due, default=None)
