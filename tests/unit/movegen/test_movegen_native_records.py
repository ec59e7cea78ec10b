"""The native core against the Python generator on every turn of the reference game records
(tests/unit/interchange/gcg: real English tournament games, and a Polish endgame), with the
racks the players held: the same moves, scores and order; and the play the record made is
among them with the engine's score for it."""

from __future__ import annotations

from pathlib import Path

import pytest
from mg_support import agreed_moves, native_covers

from wordarena.engine.families import get_ruleset
from wordarena.engine.interchange.check import replay_record
from wordarena.engine.interchange.gcg import MoveKind, parse_gcg
from wordarena.engine.lexicon import load_lexicon

GCG_DIR = Path(__file__).parents[1] / "interchange" / "gcg"
RECORDS = sorted(p.name for p in GCG_DIR.glob("*.gcg"))


@pytest.mark.parametrize("name", RECORDS)
def test_native_and_python_agree_on_every_turn_of_a_record(name: str) -> None:
    record = parse_gcg((GCG_DIR / name).read_bytes())
    language = "pl" if name.startswith("polish") else "en"
    lexicon = load_lexicon(language)
    turns = found = 0
    for step in replay_record(record, get_ruleset("scrabble", language)):
        if step.before is None or not step.move.rack:
            continue
        seat = step.move.seat
        position = step.before.evolve(lexicon=lexicon)
        moves = agreed_moves(position, seat)
        assert native_covers(position, seat)
        turns += 1
        if step.move.kind is MoveKind.PLAY and step.score is not None:
            played = tuple(
                (i, tile.letter, tile.blank)
                for i, (old, tile) in enumerate(zip(step.before.cells, step.state.cells, strict=True))
                if old is None and tile is not None
            )
            scores = [m.score for m in moves if m.key == played]
            found += bool(scores)
            assert scores in ([], [step.score]), (step.move.line, scores, step.score)
    if any(m.rack for m in record.moves):
        assert turns > 0 and found > 0, (turns, found)
