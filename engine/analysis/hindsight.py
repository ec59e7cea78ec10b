"""Hindsight: after a turn, the best moves the player could have played instead."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wordarena.engine.analysis.position import check_position
from wordarena.engine.analysis.sight import visible_moves
from wordarena.engine.analysis.strength import rank_text
from wordarena.engine.game.actions import Action, Play
from wordarena.engine.game.play import evaluate_play
from wordarena.engine.game.state import GameState
from wordarena.engine.movegen import Move, describe_move
from wordarena.engine.movegen.api import board_ruleset
from wordarena.engine.tiles import is_action
from wordarena.engine.warofwords.arena import portal_links
from wordarena.engine.warofwords.clouds import preview_allowed


@dataclass(frozen=True)
class Alternative:
    """A move that could have been played, and how much more (or less) it scored."""

    move: Move
    position: str
    word: str
    difference: int  # move.score - played score
    notation: str  # ``engine.notation``: "8H WORD"


@dataclass(frozen=True)
class Hindsight:
    """The verdict on one turn."""

    played_score: int
    rank: int  # of what was played among all legal moves (0 when it was not a legal play)
    total: int
    best: tuple[Alternative, ...]

    @property
    def missed(self) -> int:
        """Points left on the table by not playing the best move (0 when it was played)."""
        return max(0, self.best[0].difference) if self.best else 0

    def describe(self) -> str:
        if not self.best:
            return "no legal play was possible"
        top = self.best[0]
        head = f"played {self.played_score}"
        if self.rank:
            head += f" ({rank_text(self.rank, self.total)})"
        return f"{head}; best {top.notation} for {top.move.score} ({top.difference:+d})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "played_score": self.played_score, "rank": self.rank, "total": self.total,
            "best": [{"position": a.position, "word": a.word, "notation": a.notation,
                      "score": a.move.score, "difference": a.difference} for a in self.best],
        }


def hindsight(
    state: GameState, action: Action | None, seat: int | None = None, top: int = 3
) -> Hindsight:
    """The ``top`` best moves ``seat`` (default: the seat to move) had in ``state`` (the position
    *before* the turn), compared with ``action`` (what was played; a pass, an exchange or None
    score 0). Only moves the seat could read off the board then count (``visible_moves``), and
    a play that reached under a cloud has no rank."""
    check_position(state)
    who = state.to_move if seat is None else seat
    moves = visible_moves(state, who)
    played = 0
    rank = 0
    # War of Words: hindsight compares letters only — the word a play made, not its action
    # tiles (move generation ignores action tiles on the rack).
    letters = tuple(p for p in action.placements if not is_action(p.letter)) \
        if isinstance(action, Play) else ()
    if letters:
        verdict = evaluate_play(state, letters, who)
        played = verdict.score  # 0 when the placement or the rack refuses the play
        if verdict.breakdown is not None and not verdict.invalid_words and preview_allowed(state, letters):
            rank = 1 + sum(1 for m in moves if m.score > played)
    ruleset = board_ruleset(state)
    best = tuple(
        Alternative(m, info.position, info.word, m.score - played, info.notation)
        for m in moves[:top]
        for info in [describe_move(ruleset, state.cells, m, effects=state.board_effects,
                                    links=portal_links(state))]
    )
    return Hindsight(played, rank, len(moves), best)
