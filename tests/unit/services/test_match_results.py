"""Outcomes the match server reports under the leaving rules, and their agreement with what the
lobby accepts (``services.lobby.records.check_outcomes``)."""

from __future__ import annotations

import pytest

from wordarena.engine.game import Seat
from wordarena.engine.game.events import Event as EngineEvent
from wordarena.engine.game.outcome import Outcome
from wordarena.services.lobby import records
from wordarena.services.match.results import first_round_leavers, score_counts, seat_outcomes
from wordarena.v1 import common_pb2 as c

W, L, T, N = c.OUTCOME_WIN, c.OUTCOME_LOSS, c.OUTCOME_TIE, c.OUTCOME_NO_RESULT
TO_LOBBY = {W: Outcome.WIN, L: Outcome.LOSS, T: Outcome.TIE, N: Outcome.NO_RESULT}
STATUS = {s.value: s for s in Seat}  # one spelling: the engine's


@pytest.mark.parametrize(("family", "statuses", "scores", "reason", "early", "expected"), [
    # normal end: winner, loser; a tie
    ("classic", ["active", "active"], [10, 20], "out", [], [L, W]),
    ("classic", ["active", "active"], [15, 15], "zero-turns", [], [T, T]),
    # forfeit later in the game is a loss (even when ahead); the one left wins
    ("classic", ["resigned", "active"], [30, 10], "resigned", [], [L, W]),
    ("warofwords", ["left", "active"], [10, 5], "left", [], [L, W]),
    # War of Words: leaving or resigning in the first round is no result
    ("warofwords", ["left", "active"], [10, 5], "left", [0], [N, W]),
    ("warofwords", ["resigned", "active", "active"], [0, 10, 20], "out", [0], [N, L, W]),
    # ... but not in other families
    ("classic", ["left", "active"], [10, 5], "left", [0], [L, W]),
    # kicked: a loss; the remaining player wins only with the higher score (else no result)
    ("warofwords", ["kicked", "active"], [5, 10], "kicked", [], [L, W]),
    ("warofwords", ["kicked", "active"], [10, 10], "kicked", [], [L, N]),
    # Word Tiles: dropping out on time loses, the last player left wins
    ("wordtiles", ["timed-out", "timed-out", "active"], [50, 60, 10], "timed-out", [], [L, L, W]),
])
def test_outcomes(family: str, statuses: list[str], scores: list[int], reason: str, early: list[int],
                  expected: list[int]) -> None:
    got = seat_outcomes(family, statuses, scores, reason, early)
    assert got == expected
    seats = [records.SeatEnd(seat=i, player_id=f"p{i}", score=scores[i], status=STATUS[s],
                             left_in_first_round=o == N, score_counts=score_counts(s, o))
             for i, (s, o) in enumerate(zip(statuses, got, strict=True))]
    assert records.check_outcomes(family, seats, [TO_LOBBY[o] for o in got]) is None
    # One decision: the lobby, given the same seats and scores, decides the same outcomes.
    reported = [records.SeatEnd(seat=i, player_id=f"p{i}", score=scores[i], status=STATUS[s],
                                left_in_first_round=i in early) for i, s in enumerate(statuses)]
    decided = records.decide_outcomes(family, reported, ended_by_kick=reason == "kicked")
    assert decided == [TO_LOBBY[o] for o in got]


def test_inactive_never_wins_even_with_the_highest_score() -> None:
    assert seat_outcomes("classic", ["resigned", "active", "active"], [90, 10, 20], "out") == [L, L, W]


def test_first_round_leavers_and_score_counts() -> None:
    groups = [[EngineEvent("left", 1, {"first_round": True})],
              [EngineEvent("resigned", 2, {"first_round": False})],
              [EngineEvent("kicked", 0, {"first_round": True})], []]
    assert first_round_leavers(groups) == [1]
    assert score_counts("active", W) and score_counts("timed-out", L)
    assert not score_counts("left", L) and not score_counts("kicked", L) and not score_counts("left", N)
