"""Who won (``engine.game.outcome``): the one decision the engine's winners, the match server's
GameOver and result report and the lobby's records all use, under the rule texts."""

from __future__ import annotations

import pytest

from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Kick, Outcome, Resign, Seat, apply, outcomes, start_game
from wordarena.engine.game.outcome import winners

A, R, LF, T, K = Seat.ACTIVE, Seat.RESIGNED, Seat.LEFT, Seat.TIMED_OUT, Seat.KICKED
W, L, TIE, N = Outcome.WIN, Outcome.LOSS, Outcome.TIE, Outcome.NO_RESULT


@pytest.mark.parametrize(("family", "seats", "scores", "reason", "early", "expected"), [
    # "The player with the most points wins"; "Games can end in a tie"
    ("scrabble", [A, A], [300, 250], "out", (), [W, L]),
    ("classic", [A, A, A], [200, 200, 100], "zero-turns", (), [TIE, TIE, L]),
    # inactive players cannot win, "even if the game ends and they have the most points"
    ("warofwords", [LF, A, A], [300, 200, 250], "out", (), [L, L, W]),
    # Words With Friends: "Resign: ... it counts as a loss"; the one left wins
    ("classic", [R, A], [400, 100], "resigned", (), [L, W]),
    # Word Tiles: "When your time runs out, you drop out ... If one player remains, they win"
    ("wordtiles", [T, A, LF], [90, 10, 50], "left", (), [L, W, L]),
    # War of Words: leaving in the first round incurs no loss ...
    ("warofwords", [LF, A, A], [0, 10, 5], "out", {0}, [N, W, L]),
    ("warofwords", [R, A], [0, 5], "resigned", {0}, [N, W]),
    # ... in War of Words only
    ("wordtiles", [LF, A, A], [0, 10, 5], "out", {0}, [L, W, L]),
    # ... and a kicked player always loses
    ("warofwords", [K, A], [0, 5], "kicked", {0}, [L, W]),
    # War of Words kick: "if ... the remaining player has a higher score, [they] receive a win"
    ("warofwords", [K, A], [30, 40], "kicked", (), [L, W]),
    ("warofwords", [K, A], [50, 40], "kicked", (), [L, N]),
    ("warofwords", [K, A], [40, 40], "kicked", (), [L, N]),
    # "If the game ends because the second-to-last player resigns, the remaining player wins",
    # even behind, and even when someone was kicked earlier
    ("warofwords", [K, R, A], [90, 80, 10], "resigned", (), [L, L, W]),
    # the kick rule is War of Words': elsewhere the one player left wins
    ("classic", [K, A], [50, 40], "kicked", (), [L, W]),
])
def test_outcomes_follow_the_rules(family: str, seats: list[Seat], scores: list[int], reason: str,
                                   early: set[int], expected: list[Outcome]) -> None:
    got = outcomes(family, seats, scores, reason, early)
    assert list(got) == expected
    assert winners(got) == tuple(i for i, o in enumerate(expected) if o in (W, TIE))


def test_the_engine_names_the_winners_outcomes_decides() -> None:
    state, _ = start_game(get_ruleset("classic", "en"), 2, 5, None, False)
    over, _ = apply(state, Resign(0))
    assert over.result is not None and over.result.winners == (1,)
    ruleset = get_ruleset("warofwords", "en")
    state, _ = start_game(ruleset, 2, 5, None, False)
    kicked, _ = apply(state.evolve(scores=(10, 5)), Kick(0, by=1))
    assert kicked.result is not None and kicked.result.winners == ()
    assert outcomes(ruleset.family, kicked.seats, kicked.result.scores, kicked.result.reason) == (L, N)
