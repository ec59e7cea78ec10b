"""Hindsight over a whole game record: for each turn, the best moves the player had instead."""

from __future__ import annotations

from collections.abc import Container, Iterator
from dataclasses import dataclass

from wordarena.engine.analysis.hindsight import Hindsight, hindsight
from wordarena.engine.game.actions import Action, Play
from wordarena.engine.game.state import GameState
from wordarena.engine.interchange.check import Step, replay_record
from wordarena.engine.interchange.gcg import GameRecord, MoveKind
from wordarena.engine.notation import format_play
from wordarena.engine.placement import Placement
from wordarena.engine.rulesets.model import Ruleset

TURNS = (MoveKind.PLAY, MoveKind.PASS, MoveKind.EXCHANGE)


@dataclass(frozen=True)
class TurnReview:
    """One turn of a record and its Hindsight verdict."""

    line: int
    nick: str
    played: str  # as the record writes it: "8D WINDY", "pass", "exchange ABC"
    verdict: Hindsight

    def to_dict(self) -> dict[str, object]:
        return {"line": self.line, "player": self.nick, "played": self.played,
                **self.verdict.to_dict()}


def review_record(
    record: GameRecord, ruleset: Ruleset, lexicon: Container[str], top: int = 3
) -> Iterator[TurnReview]:
    """Replay ``record`` and judge every turn whose rack is known against ``lexicon``."""
    for step in replay_record(record, ruleset):
        move = step.move
        if step.before is None or move.kind not in TURNS or not move.rack:
            continue
        position = step.before.evolve(lexicon=lexicon, check_words=True)
        verdict = hindsight(position, _played(step, step.before), move.seat, top)
        yield TurnReview(move.line, move.nick, _written(step), verdict)


def _played(step: Step, before: GameState) -> Action | None:
    """The play as the tiles it added to the board (passes and exchanges score nothing)."""
    if step.move.kind is not MoveKind.PLAY:
        return None
    cols = before.ruleset.board.cols
    placements = tuple(
        Placement(*divmod(i, cols), tile.letter, tile.blank)
        for i, (old, tile) in enumerate(zip(before.cells, step.state.cells, strict=True))
        if old is None and tile is not None
    )
    return Play(step.move.seat, placements) if placements else None


def _written(step: Step) -> str:
    move = step.move
    if move.kind is MoveKind.PLAY:
        return format_play(move.position, move.word)
    return "pass" if move.kind is MoveKind.PASS else f"exchange {move.word}"
