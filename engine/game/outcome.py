"""Who won: each seat's outcome at the end of a game, under its family's rules. The one place
that decides it — the engine's own winners (``endgame``), the match server's ``GameOver`` and
result report, and the lobby's records all call ``outcomes``.

The rules, from the rule texts beside the design:

- Every family: an inactive seat (resigned, left, timed out, kicked) cannot win or tie: it loses
  (War of Words: "Inactive players cannot win the game, however, even if the game ends and they
  have the most points"; Words With Friends: "Resign: ... it counts as a loss"; Word Tiles:
  "When your time runs out, you drop out ... Leaving the game works the same way").
- War of Words: leaving or resigning during the first round of turns costs no loss ("During the
  first round of turns, any player may choose to Leave Game without incurring a loss"): the
  outcome is NO_RESULT.
- When one seat is left active, it wins (Word Tiles: "If one player remains, they win"; War of
  Words: "If the game ends because the second-to-last player resigns, the remaining player
  wins") — except after a War of Words kick: "If kicking the idle player results in the game
  ending, and the remaining player has a higher score, the remaining player receives a win";
  otherwise the remaining player gets neither a win nor a loss (NO_RESULT).
- Otherwise the highest final score among the active seats wins ("The player with the most
  points wins"); equal highest scores tie ("Games can end in a tie"); the other seats lose.
- Scrabble's chess clock (the tournament convention, docs/rules.md): final scores lose
  ``overtime_points`` (10) for every started minute a seat's clock ran past zero
  (``overtime_penalties``) before the winner is decided; a seat that reaches the maximum
  overtime has timed out (inactive, so it loses).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from enum import StrEnum

from wordarena.engine.game.state import Seat
from wordarena.engine.rulesets.model import ClockRule

#: Families in which leaving during the first round of turns is no loss, and a game ended by a
#: kick is won only with the higher score (War of Words' leaving rules).
WAR_OF_WORDS = "warofwords"
DEPARTED = frozenset({Seat.LEFT, Seat.RESIGNED})


class Outcome(StrEnum):
    """A seat's result (``wordarena.v1.Outcome`` on the wire)."""

    WIN = "win"
    LOSS = "loss"
    TIE = "tie"
    NO_RESULT = "no_result"


def outcomes(family: str, seats: Sequence[Seat], scores: Sequence[int], reason: str = "",
             first_round_left: Collection[int] = ()) -> tuple[Outcome, ...]:
    """Each seat's outcome (see the module doc).

    ``seats``: how each seat stood at the end; ``scores``: final scores (after end-of-game
    adjustments); ``reason``: why the game ended (``"kicked"`` matters: the game ended because an
    idle player was kicked); ``first_round_left``: seats that left or resigned during the first
    round of turns."""
    active = [i for i, s in enumerate(seats) if s is Seat.ACTIVE]
    wow = family == WAR_OF_WORDS
    if len(active) == 1:
        last = active[0]
        won = not (wow and reason == "kicked") or all(
            scores[last] > scores[i] for i in range(len(seats)) if i != last)
        winners = {last} if won else set()
    else:
        best = max((scores[i] for i in active), default=0)
        winners = {i for i in active if scores[i] == best}
    out: list[Outcome] = []
    for i, status in enumerate(seats):
        if status is not Seat.ACTIVE:
            free = wow and status in DEPARTED and i in first_round_left
            out.append(Outcome.NO_RESULT if free else Outcome.LOSS)
        elif i in winners:
            out.append(Outcome.TIE if len(winners) > 1 else Outcome.WIN)
        else:
            out.append(Outcome.NO_RESULT if len(active) == 1 else Outcome.LOSS)
    return tuple(out)


def winners(results: Sequence[Outcome]) -> tuple[int, ...]:
    """The seats that won or tied."""
    return tuple(i for i, o in enumerate(results) if o in (Outcome.WIN, Outcome.TIE))


def overtime_penalties(clock: ClockRule, overtime: Sequence[float], players: int) -> tuple[int, ...]:
    """Each seat's overtime penalty (<= 0): ``clock.overtime_points`` for every started minute
    of ``overtime`` (seconds over, per seat); all 0 when the family has no such penalty or no
    time over was reported."""
    if not clock.overtime_points or not overtime:
        return (0,) * players
    return tuple(-clock.overtime_points * math.ceil(max(t, 0.0) / 60) for t in overtime)
