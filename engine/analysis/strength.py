"""Word Strength: how good is a tentative play, among every legal move of the rack."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from wordarena.engine.analysis.position import check_position
from wordarena.engine.board import with_tiles
from wordarena.engine.errors import RuleError
from wordarena.engine.game.state import GameState
from wordarena.engine.movegen import Move, generate_moves
from wordarena.engine.movegen.api import board_ruleset
from wordarena.engine.placement import Placement, check_placement, check_tokens_on_rack, word_text
from wordarena.engine.scoring import score_play
from wordarena.engine.warofwords.arena import portal_links
from wordarena.engine.words import invalid_words, resolve_words


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


def play_score(
    state: GameState, placements: Sequence[Placement], seat: int
) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
    """(score, words as laid, words failing the lexicon) of a play; ``RuleError`` when it breaks
    a placement rule or uses tiles not on the rack."""
    check_tokens_on_rack(state.racks[seat], [p.token for p in placements])
    ruleset = board_ruleset(state)  # War of Words: the board as action tiles left it
    geometry = check_placement(ruleset, state.cells, placements, seat, portal_links(state))
    after = with_tiles(state.cells, geometry.placed)
    texts = [word_text(after, w) for w in geometry.words]
    letters = state.ruleset.tiles.letters
    if state.lexicon is not None:
        resolved = resolve_words(texts, state.lexicon, letters)
        bad = invalid_words(texts, resolved)
        words = [r or t for r, t in zip(resolved, texts, strict=True)]
    else:
        bad, words = (), texts
    tokens = [p.token for p in placements]
    breakdown = score_play(ruleset, after, geometry, words, tokens, state.board_effects)
    return breakdown.total, tuple(texts), bad


def word_strength(
    state: GameState, placements: Sequence[Placement], seat: int | None = None,
    moves: list[Move] | None = None,
) -> Strength:
    """Judge a tentative play of ``seat`` (default: the seat to move) in ``state``."""
    check_position(state)
    who = state.to_move if seat is None else seat
    all_moves = moves if moves is not None else generate_moves(state, who)
    try:
        score, words, bad = play_score(state, placements, who)
    except RuleError as exc:
        return Strength(False, 0, (), (), str(exc), exc.code, 0, len(all_moves),
                        all_moves[0] if all_moves else None, tuple(all_moves))
    key = tuple(sorted((p.row * state.ruleset.board.cols + p.col, p.letter, p.blank)
                       for p in placements))
    best = next((m for m in all_moves if m.key != key), None)
    if bad:
        return Strength(False, score, words, bad, "not in the word list: " + ", ".join(bad),
                        "word-not-in-lexicon", 0, len(all_moves), best, tuple(all_moves))
    rank = 1 + sum(1 for m in all_moves if m.score > score)
    return Strength(True, score, words, (), "", "", rank, len(all_moves), best, tuple(all_moves))
