"""Word Strength: how good is a tentative play, among every legal move of the rack.

The play is judged by the one play evaluator (``engine.game.play.evaluate_play``), so Word
Strength names the rule ``apply`` would refuse it for, and the score ``apply`` would credit."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from wordarena.engine.analysis.position import check_position
from wordarena.engine.analysis.sight import visible_moves
from wordarena.engine.errors import Rule
from wordarena.engine.game.play import evaluate_play
from wordarena.engine.game.state import GameState
from wordarena.engine.movegen import Move
from wordarena.engine.placement import Placement


@dataclass(frozen=True)
class Strength:
    """The verdict on a tentative play."""

    valid: bool
    score: int  # what the play scores (even when a word fails: what it would score)
    words: tuple[str, ...]  # words formed, as laid (wildcards as "*")
    invalid_words: tuple[str, ...] = ()
    reason: str = ""  # why the play is refused, when it is
    code: str = ""  # the rule broken (engine.errors.Rule value), when it is
    rank: int = 0  # 1 = best; moves scoring more than this play, plus one
    total: int = 0  # legal moves of the rack
    best: Move | None = None  # the best legal move other than this play
    moves: tuple[Move, ...] = field(default=(), repr=False)

    @property
    def percent(self) -> int:
        """Top N %: the share of legal moves scoring at least as much (rounded up)."""
        return math.ceil(100 * self.rank / self.total) if self.total else 0

    def describe(self) -> str:
        """``"valid, 24 points: 4th of 612, top 1 %"`` (or why it fails)."""
        if not self.valid:
            bad = f" ({', '.join(self.invalid_words)})" if self.invalid_words else ""
            return f"invalid{bad}: {self.reason}"
        return f"valid, {self.score} points: {rank_text(self.rank, self.total)}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid, "score": self.score, "words": list(self.words),
            "invalid_words": list(self.invalid_words), "reason": self.reason, "code": self.code,
            "rank": self.rank, "total": self.total, "percent": self.percent,
            "best": None if self.best is None else {"score": self.best.score,
                                                    "tiles": self.best.notation()},
        }


def rank_text(rank: int, total: int) -> str:
    """``"4th of 612, top 1 %"``."""
    if not total:
        return "no legal move"
    percent = math.ceil(100 * rank / total)
    return f"{_ordinal(rank)} of {total}, top {percent} %"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def word_strength(
    state: GameState, placements: Sequence[Placement], seat: int | None = None,
    moves: list[Move] | None = None,
) -> Strength:
    """Judge a tentative play of ``seat`` (default: the seat to move) in ``state``."""
    check_position(state)
    who = state.to_move if seat is None else seat
    all_moves = moves if moves is not None else visible_moves(state, who)
    verdict = evaluate_play(state, placements, who)
    exc = verdict.error
    if exc is not None and exc.rule is not Rule.WORD_NOT_IN_LEXICON:
        return Strength(False, 0, (), (), str(exc), exc.code, 0, len(all_moves),
                        all_moves[0] if all_moves else None, tuple(all_moves))
    # Word Strength judges the words against the word list even where the family defers the
    # check (wordtiles' accept or check): ``invalid_words`` is filled whenever there is a lexicon.
    score, words, bad = verdict.score, verdict.texts, verdict.invalid_words
    key = tuple(sorted((p.row * state.ruleset.board.cols + p.col, p.letter, p.blank)
                       for p in placements))
    best = next((m for m in all_moves if m.key != key), None)
    if bad:
        return Strength(False, score, words, bad, "not in the word list: " + ", ".join(bad),
                        Rule.WORD_NOT_IN_LEXICON.value, 0, len(all_moves), best, tuple(all_moves))
    rank = 1 + sum(1 for m in all_moves if m.score > score)
    return Strength(True, score, words, (), "", "", rank, len(all_moves), best, tuple(all_moves))
