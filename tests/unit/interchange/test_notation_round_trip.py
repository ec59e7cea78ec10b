"""Notation round trips: every play of the reference records and of seeded self-play games,
written by the engine's notation (``engine.notation``) and read back, puts the same tiles on the
same squares; the written position is the square where the main word starts."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
import soak
from gcg_support import ENGLISH, POLISH, load

from wordarena.engine.board import Cells, parse_position
from wordarena.engine.bots import Bot
from wordarena.engine.bots.selfplay import play_game
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Play
from wordarena.engine.game.state import GameState
from wordarena.engine.interchange.check import replay_record
from wordarena.engine.interchange.gcg import MoveKind
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.notation import placements_from_word, play_notation, word_from_placements
from wordarena.engine.placement import Placement, check_placement
from wordarena.engine.rulesets.layout import BoardLayout
from wordarena.engine.rulesets.model import Ruleset

SELFPLAY_GAMES = soak.pick(200, 30)  # self-play games: all under --soak, else a sample (tests/soak.py)


def _round_trip(layout: BoardLayout, cells: Cells, placements: Sequence[Placement], across: bool) -> str:
    """Write the play, read it back, check the same placements come back; the notation."""
    notation = play_notation(layout, cells, placements, across)
    position, word = notation.split(" ")
    again = placements_from_word(layout, cells, position, word)
    assert set(again) == set(placements) and len(again) == len(placements), notation
    return notation


def _start_of_main_word(layout: BoardLayout, cells: Cells, placements: Sequence[Placement],
                        across: bool) -> tuple[int, int]:
    """The first square of the run of tiles along ``across`` through the new tiles (computed
    here without the notation module)."""
    dr, dc = (0, 1) if across else (1, 0)
    new = {(p.row, p.col) for p in placements}
    r, c = min(new)
    while True:
        pr, pc = r - dr, c - dc
        if not layout.in_bounds(pr, pc):
            return r, c
        if (pr, pc) not in new and cells[layout.index(pr, pc)] is None:
            return r, c
        r, c = pr, pc


def _new_tiles(before: GameState, after: GameState) -> tuple[Placement, ...]:
    cols = before.ruleset.board.cols
    return tuple(
        Placement(*divmod(i, cols), tile.letter, tile.blank)
        for i, (old, tile) in enumerate(zip(before.cells, after.cells, strict=True))
        if old is None and tile is not None
    )


@pytest.mark.parametrize("name", [*ENGLISH, POLISH])
def test_reference_record_plays_round_trip_through_the_engine_notation(name: str) -> None:
    ruleset = get_ruleset("scrabble", "pl" if name == POLISH else "en")
    layout = ruleset.board
    plays = 0
    for step in replay_record(load(name), ruleset):
        move = step.move
        if move.kind is not MoveKind.PLAY or step.before is None or step.findings:
            continue
        placements = _new_tiles(step.before, step.state)
        row, col, across = parse_position(move.position, layout.rows, layout.cols)
        notation = _round_trip(layout, step.before.cells, placements, across)
        # The record's own position is where the main word starts, and so is ours.
        ours = parse_position(notation.split(" ")[0], layout.rows, layout.cols)
        assert ours == (row, col, across), (name, move.line, notation, move.position)
        plays += 1
    assert plays > 0


def _main_word_across(ruleset: Ruleset, cells: Cells, placements: tuple[Placement, ...]) -> bool:
    return check_placement(ruleset, cells, placements, 0).words[0].across


@pytest.mark.soak
def test_selfplay_plays_round_trip_through_the_engine_notation() -> None:
    plays = 0

    def check(before: GameState, action: object, _after: GameState) -> None:
        nonlocal plays
        if not isinstance(action, Play):
            return
        layout = before.ruleset.board
        placements = action.placements
        across = _main_word_across(before.ruleset, before.cells, placements)
        notation = _round_trip(layout, before.cells, placements, across)
        start = _start_of_main_word(layout, before.cells, placements, across)
        position, _ = word_from_placements(layout, before.cells, placements, across)
        assert parse_position(position, layout.rows, layout.cols)[:2] == start, notation
        plays += 1

    families = ("scrabble", "classic", "wordtiles")
    for k, family in enumerate(families):
        ruleset = get_ruleset(family, "en")
        lexicon = load_lexicon(ruleset.lexicon)
        for seed in range(k, SELFPLAY_GAMES, len(families)):  # the seeds shared out
            play_game(ruleset, [Bot(1, seed, lexicon), Bot(2, seed + 1, lexicon)], seed, lexicon,
                      on_turn=check)
    assert plays > SELFPLAY_GAMES * 5
