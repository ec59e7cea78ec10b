"""Hindsight and move generation for War of Words (issue 7: "Hindsight and bots for
`warofwords`: letters-only best move at least") on a position with action tiles on the rack and
effects on the board.

Rule sentences: "For each W Multiplier under letters that were played during this turn, multiply
the entire word's score …" (a multiplier tile placed on the board counts: the generator and
Hindsight see the board as action tiles left it); "Any Action Tiles may be played as well as a
word during a single turn" (Hindsight compares the word, ignoring the action tiles).
"""

from __future__ import annotations

import pytest
from wow_helpers import game, put, sq

from wordarena.engine.analysis import hindsight
from wordarena.engine.game import Play, apply
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.movegen import generate_moves
from wordarena.engine.rulesets.layout import Square
from wordarena.engine.warofwords.arena import Marker, SquareChange


@pytest.fixture(scope="module")
def position():  # type: ignore[no-untyped-def]
    lexicon = load_lexicon("en")
    state = game(racks=(("R", "A", "T", "E", "S", "@bomb", "@5W", "N"), ("E",)),
                 tiles=[("8F", "TIN", 0), ("2A", "QUIZ", 1)],
                 effects=[SquareChange(sq("H9"), Square(word_mult=8)),
                          Marker("poison", sq("B3"), 0), Marker("shield", sq("L12"), 1)])
    return state.evolve(lexicon=lexicon, electrification=tuple(2 for _ in state.electrification))


def test_generated_moves_score_as_the_engine_plays_them_on_a_changed_board(position) -> None:  # type: ignore[no-untyped-def]
    """"W Multipliers are additive with each other": a placed 8W counts for generated moves, and
    every generated move (action tiles on the rack ignored) scores what ``apply`` gives it."""
    moves = generate_moves(position, 0)
    assert moves and all(not t[1].startswith("@") for m in moves for t in m.tiles)
    assert any(sq("H9") in {i for i, _, _ in m.tiles} for m in moves[:3])
    for move in moves[:25]:
        _, events = apply(position, move.to_play(0))
        assert events[0].data["score"] == move.score


def test_hindsight_compares_the_word_of_a_play_with_action_tiles(position) -> None:  # type: ignore[no-untyped-def]
    """"Any Action Tiles may be played as well as a word during a single turn": Hindsight ranks
    the word the play made (its action tiles aside) among the letters-only best moves."""
    action = Play(0, (put("H9", "E"), put("H10", "A"), put("H11", "T"), put("B2", "@bomb")))
    played = apply(position, action)[1][0].data["score"]
    verdict = hindsight(position, action, 0, top=3)
    assert verdict.played_score == played > 0
    assert verdict.rank > 1 and verdict.total > 100
    assert verdict.best[0].move.score >= played and verdict.missed == verdict.best[0].move.score - played


def test_hindsight_of_an_action_only_play(position) -> None:  # type: ignore[no-untyped-def]
    """"In lieu of playing a word, one or more Action Tiles may be played": it scored no word,
    so every letters-only move is shown against 0."""
    verdict = hindsight(position, Play(0, (put("B2", "@bomb"),)), 0)
    assert verdict.played_score == 0 and verdict.rank == 0 and verdict.best
