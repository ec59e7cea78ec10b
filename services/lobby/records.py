"""Match outcomes under each family's leaving rules, and the records they add up to.

Outcomes (``decide_outcomes``, ``check_outcomes``)
---------------------------------------------------
Who won is the engine's one decision (``engine.game.outcome.outcomes``: each family's leaving
rules); the lobby asks it for reports without outcomes and checks reported outcomes against it.
The lobby's types are the engine's (``Seat``, ``Outcome``): one spelling. Pass-and-play and
unrated matches are not recorded at all.

Records (``PlayerRecord``)
--------------------------
Per player and ruleset: ``games`` (rated matches with a WIN, LOSS or TIE), ``wins``, ``losses``,
``ties``; ``average_score`` = mean final score over *scored games*; ``weighted_score`` = mean over
the same games of (own final score − mean final score of the opponents), a margin-of-victory
measure; ``best_score``. Scored games are those where the seat's score counts: a player who left
early never has their average or weighted score adjusted (war-of-words-2.txt).

Ratings
-------
Glicko-2 (``services.lobby.glicko2``), one rating period per match. A multi-player match counts as
pairwise games between recorded seats: a WIN beats everyone else, a TIE draws with other TIEs
and beats the losers; among losers, active seats beat inactive ones and then the higher final score
wins (equal scores draw). NO_RESULT seats are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from wordarena.engine.game import Seat, outcomes
from wordarena.engine.game.outcome import Outcome
from wordarena.services.lobby.glicko2 import DEFAULT_RATING, Rating, rate

__all__ = [
    "Outcome",
    "PlayerRecord",
    "Seat",
    "SeatEnd",
    "apply_result",
    "check_outcomes",
    "decide_outcomes",
    "pairwise_scores",
]


@dataclass(frozen=True, slots=True)
class SeatEnd:
    """A seat at the end of a match, as the match server reports it."""

    seat: int
    player_id: str
    score: int
    status: Seat = Seat.ACTIVE
    left_in_first_round: bool = False
    score_counts: bool = True

    @property
    def active(self) -> bool:
        """True when the seat was still playing at the end."""
        return self.status is Seat.ACTIVE


def decide_outcomes(family: str, seats: Sequence[SeatEnd], ended_by_kick: bool = False) -> list[Outcome]:
    """Each seat's outcome under the family's leaving rules (see the module docstring): the
    engine's one decision, ``engine.game.outcome.outcomes``, on the reported seats."""
    decided = outcomes(
        family,
        [s.status for s in seats],
        [s.score for s in seats],
        "kicked" if ended_by_kick else "",
        {k for k, s in enumerate(seats) if s.left_in_first_round},
    )
    return list(decided)


def check_outcomes(family: str, seats: Sequence[SeatEnd], reported: Sequence[Outcome]) -> str | None:
    """Why reported outcomes break the rules (None when they are consistent): they must be the
    engine's own decision (``decide_outcomes``) on the reported seats — either one where a seat
    was kicked, since a report does not say whether the kick ended the game."""
    if len(reported) != len(seats):
        return "one outcome per seat is needed"
    kicked = any(s.status is Seat.KICKED for s in seats)
    allowed = [decide_outcomes(family, seats, by_kick) for by_kick in ((False, True) if kicked else (False,))]
    if list(reported) in allowed:
        return None
    due = allowed[0]
    k = next(i for i, (got, want) in enumerate(zip(reported, due, strict=True)) if got is not want)
    s = seats[k]
    return (f"seat {s.seat} ({s.status.value}, {s.score}) is {due[k].value} under the rules, "
            f"not {reported[k].value}")


def _rank_key(s: SeatEnd, o: Outcome) -> tuple[int, int]:
    tier = {Outcome.WIN: 3, Outcome.TIE: 2}.get(o, 1 if s.active else 0)
    return (tier, s.score if tier < 2 else 0)


def pairwise_scores(
    seats: Sequence[SeatEnd], outcomes: Sequence[Outcome]
) -> dict[int, list[tuple[int, float]]]:
    """``{seat: [(opponent seat, score 0/0.5/1)]}`` over the recorded (not NO_RESULT) seats."""
    rec = [(s, o) for s, o in zip(seats, outcomes, strict=True) if o != Outcome.NO_RESULT and s.player_id]
    res: dict[int, list[tuple[int, float]]] = {s.seat: [] for s, _ in rec}
    for s, o in rec:
        for t, p in rec:
            if t.seat == s.seat:
                continue
            a, b = _rank_key(s, o), _rank_key(t, p)
            res[s.seat].append((t.seat, 1.0 if a > b else 0.0 if a < b else 0.5))
    return res


@dataclass(frozen=True)
class PlayerRecord:
    """A player's record in one ruleset."""

    games: int = 0
    wins: int = 0
    losses: int = 0
    ties: int = 0
    scored_games: int = 0
    score_sum: int = 0
    margin_sum: float = 0.0
    best_score: int = 0
    rating: Rating = DEFAULT_RATING

    @property
    def average_score(self) -> float:
        """Mean final score over scored games (0 when none)."""
        return self.score_sum / self.scored_games if self.scored_games else 0.0

    @property
    def weighted_score(self) -> float:
        """Mean of (own score − mean opponents' score) over scored games (0 when none)."""
        return self.margin_sum / self.scored_games if self.scored_games else 0.0


def apply_result(
    records: dict[str, PlayerRecord], seats: Sequence[SeatEnd], outcomes: Sequence[Outcome]
) -> dict[str, PlayerRecord]:
    """The new records of the human players of one rated match (bots, ids ``bot:*``, are skipped).

    ``records`` holds each human player's record before the match (missing = new player).
    """
    pairs = pairwise_scores(seats, outcomes)
    by_seat = {s.seat: s for s in seats}
    before = {s.player_id: records.get(s.player_id, PlayerRecord()) for s in seats}
    out: dict[str, PlayerRecord] = {}
    for s, o in zip(seats, outcomes, strict=True):
        if s.player_id.startswith("bot:") or not s.player_id or o == Outcome.NO_RESULT:
            continue
        r = before[s.player_id]
        r = replace(
            r,
            games=r.games + 1,
            wins=r.wins + (o == Outcome.WIN),
            losses=r.losses + (o == Outcome.LOSS),
            ties=r.ties + (o == Outcome.TIE),
        )
        if s.score_counts and not (not s.active and s.status is not Seat.TIMED_OUT):
            others = [t.score for t in seats if t.seat != s.seat]
            margin = s.score - (sum(others) / len(others) if others else 0.0)
            r = replace(
                r,
                scored_games=r.scored_games + 1,
                score_sum=r.score_sum + s.score,
                margin_sum=r.margin_sum + margin,
                best_score=max(r.best_score, s.score),
            )
        opp = [(before[by_seat[t].player_id].rating, score) for t, score in pairs.get(s.seat, [])]
        r = replace(r, rating=rate(r.rating, opp))
        out[s.player_id] = r
    return out
