"""Tournament standings, pure: from the games played to a ranked table.

A game gives each side a WIN, LOSS or TIE and a spread (own score − opponent's score). A bye is a
win with the tournament's bye spread (``bye_spread``, +50 by default) and counts in ``byes``. A
forfeit is a win for the one side and a loss for the other with the spread the director set
(scores as recorded).

Ranking (the usual tie-breaks, in this order):

1. points: wins + ½ × ties;
2. spread: the sum of the game spreads (byes included);
3. opponents' points (Buchholz): the sum of the points of every opponent met (byes add nothing);
4. seed: the higher rating at registration;
5. the earlier registration (the order ``entrants`` are given in).

Entrants equal on 1–3 share a rank (seed and registration order them in the list only).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

__all__ = ["BYE_SPREAD", "GameResult", "Side", "Standing", "rank_entrants"]

#: The spread of a bye unless the tournament sets another.
BYE_SPREAD = 50


class Side(StrEnum):
    """One side's result of a game."""

    WIN = "win"
    LOSS = "loss"
    TIE = "tie"


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game of a pairing (``second`` None: a bye for ``first``)."""

    first: str
    second: str | None
    first_score: int = 0
    second_score: int = 0
    first_result: Side = Side.WIN

    def sides(self, bye_spread: int) -> list[tuple[str, str | None, Side, int]]:
        """``(entrant, opponent, result, spread)`` for each side."""
        if self.second is None:
            return [(self.first, None, Side.WIN, bye_spread)]
        other = {Side.WIN: Side.LOSS, Side.LOSS: Side.WIN, Side.TIE: Side.TIE}[self.first_result]
        d = self.first_score - self.second_score
        return [(self.first, self.second, self.first_result, d), (self.second, self.first, other, -d)]


@dataclass(frozen=True)
class Standing:
    """One entrant's line in the standings."""

    entrant_id: str
    rank: int = 0
    wins: int = 0
    losses: int = 0
    ties: int = 0
    spread: int = 0
    byes: int = 0
    opponents_points: float = 0.0
    seed_rating: float = 0.0
    opponents: tuple[str, ...] = field(default=(), repr=False)

    @property
    def points(self) -> float:
        """Wins plus half the ties."""
        return self.wins + self.ties / 2

    @property
    def games(self) -> int:
        """Games played (byes included)."""
        return self.wins + self.losses + self.ties


def rank_entrants(
    entrants: Sequence[tuple[str, float]], games: Iterable[GameResult], bye_spread: int = BYE_SPREAD
) -> list[Standing]:
    """The standings of ``entrants`` (id, seed rating) after ``games``, best first (see the module
    docstring). Games naming an entrant not listed are ignored (a removed entrant)."""
    rows = {eid: Standing(eid, seed_rating=rating) for eid, rating in entrants}
    for g in games:
        for eid, opp, side, spread in g.sides(bye_spread):
            s = rows.get(eid)
            if s is None:
                continue
            rows[eid] = replace(
                s,
                wins=s.wins + (side == Side.WIN),
                losses=s.losses + (side == Side.LOSS),
                ties=s.ties + (side == Side.TIE),
                spread=s.spread + spread,
                byes=s.byes + (opp is None),
                opponents=(*s.opponents, opp) if opp is not None else s.opponents,
            )
    points = {eid: s.points for eid, s in rows.items()}
    rows = {
        eid: replace(s, opponents_points=sum(points.get(o, 0.0) for o in s.opponents))
        for eid, s in rows.items()
    }
    order = {eid: i for i, (eid, _) in enumerate(entrants)}
    ordered = sorted(
        rows.values(),
        key=lambda s: (-s.points, -s.spread, -s.opponents_points, -s.seed_rating, order[s.entrant_id]),
    )
    out: list[Standing] = []
    prev: tuple[float, int, float] | None = None
    position = 0
    for i, s in enumerate(ordered):
        k = (s.points, s.spread, s.opponents_points)
        if k != prev:
            position, prev = i + 1, k
        out.append(replace(s, rank=position))
    return out
