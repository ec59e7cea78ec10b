"""Inference: what the opponent kept, read from the play it just made.

A level-5 player (and, roughly, a good human) plays the best equity its rack allows. So the
tiles it kept after its last play are not any tiles: a rack that held a much better play (a
bingo, a Z on a triple) would not have made this one. Quackle and macondo call this
*inference*; level 6 uses it to deal its simulated worlds (``engine.bots.simulation.deal``):
the opponent's rack in a world is an inferred leave plus tiles drawn from the rest.

Only what the seat may see is read: the opponent's last play on the board (its squares, the
``owner`` of their tiles), the board before it (the board without those tiles), the size of
the opponent's rack, and the seat's unseen pool. Never the opponent's real rack.

The method is rejection sampling. The opponent's rack before its play was the tiles it laid
plus ``k`` more; from the seat's view those ``k`` were a random draw from the tiles it has not
seen (today's unseen pool: the bag then held what the opponent has drawn since). Each sample
draws ``k`` tiles and asks whether, with that rack, the play made was within ``margin`` points
of equity of the best play; the samples that pass are the inferred leaves.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wordarena.engine.board import without_tiles
from wordarena.engine.bots.leaves import LeaveTable
from wordarena.engine.bots.simulation import LeaveMemo, best_equity_move, leave_weight, unseen_pool
from wordarena.engine.game.state import GameState
from wordarena.engine.movegen import Move, generate_moves
from wordarena.engine.movegen.move import NewTile

#: Families whose last play can be read back off the board (War of Words' effects change the
#: board between turns; a pending Word Tiles play is not yet a choice the opponent stood by).
FAMILIES = frozenset({"classic", "scrabble", "wordtiles"})
MARGIN = 1.0  # points of equity a play may fall short of the rack's best and still be "its" play
SCAN = 100  # best-scoring plays weighed for a sampled rack (as a simulated reply weighs)
MIN_LEAVES = 8  # fewer consistent racks than this: the play does not fit the model; no inference
Clock = Callable[[], float]


@dataclass(frozen=True)
class LastPlay:
    """The opponent's last play as the seat sees it: who, the board before it, what it laid."""

    seat: int
    before: GameState  # the board without the play (racks and bag as the caller gave them)
    key: tuple[NewTile, ...]  # the play's squares, letters and blanks (``Move.key``)
    tokens: tuple[str, ...]  # the rack tokens it used


@dataclass(frozen=True)
class Inference:
    """The inferred leaves (with repeats: each is one consistent sample) and how many tried."""

    leaves: tuple[tuple[str, ...], ...]
    tried: int


def last_play(state: GameState, seat: int) -> LastPlay | None:
    """The opponent's play just before ``seat``'s turn, or None when there is none to read:
    not two players, a family not in :data:`FAMILIES`, a pending play, or the last play on the
    board not the opponent's latest turn (``zero_run`` > 0: it passed or exchanged since)."""
    if (state.players != 2 or state.ruleset.family not in FAMILIES or state.pending is not None
            or not state.last_play or state.zero_run):
        return None
    opponent = 1 - seat
    placed = sorted(state.last_play)
    tiles = [state.cells[i] for i in placed]
    laid = [t for t in tiles if t is not None and t.owner == opponent]
    if len(laid) != len(tiles):
        return None
    key = tuple((i, t.letter, t.blank) for i, t in zip(placed, laid, strict=True))
    tokens = tuple(t.token for t in laid)
    before = state.evolve(cells=without_tiles(state.cells, placed), pending=None, last_play=())
    return LastPlay(opponent, before, key, tokens)


def infer_leaves(
    state: GameState,
    seat: int,
    lexicon: Any,
    table: LeaveTable,
    samples: int,
    seed: int,
    budget_s: float = 0.0,
    margin: float = MARGIN,
    clock: Clock = time.perf_counter,
) -> Inference:
    """Up to ``samples`` sampled leaves of the opponent tested against its last play (module
    doc); within ``budget_s`` seconds when that is not 0. No leaves when nothing can be read
    or too few samples fit (:data:`MIN_LEAVES`)."""
    play = last_play(state, seat)
    size = state.ruleset.rack_size
    if play is None or samples <= 0 or len(state.racks[play.seat]) != size:
        return Inference((), 0)
    k = size - len(play.tokens)
    if k <= 0:  # it played out its whole rack: it kept nothing to infer
        return Inference((), 0)
    pool = unseen_pool(state, seat)
    # the bag when the play was made: today's plus what the opponent drew since (their count
    # is all that matters: it sets the leave's weight)
    bag = state.bag + play.tokens
    actual = score_of(play, lexicon)
    if actual is None:
        return Inference((), 0)
    memo = LeaveMemo(table)
    rng = random.Random(f"infer/{seed}")
    verdicts: dict[tuple[str, ...], bool] = {}
    leaves: list[tuple[str, ...]] = []
    started, tried = clock(), 0
    while tried < samples and not (budget_s and tried and clock() - started >= budget_s):
        tried += 1
        kept = tuple(sorted(rng.sample(pool, k)))
        fits = verdicts.get(kept)
        if fits is None:
            fits = verdicts[kept] = consistent(play, kept, actual, bag, lexicon, memo, margin)
        if fits:
            leaves.append(kept)
    return Inference(tuple(leaves) if len(leaves) >= MIN_LEAVES else (), tried)


def score_of(play: LastPlay, lexicon: Any) -> int | None:
    """The last play's score on the board before it (the generator's, with only its tiles)."""
    racks = list(play.before.racks)
    racks[play.seat] = play.tokens
    before = play.before.evolve(racks=tuple(racks))
    for move in generate_moves(before, play.seat, lexicon):
        if move.key == play.key:
            return move.score
    return None


def consistent(
    play: LastPlay, kept: tuple[str, ...], actual: int, bag: tuple[str, ...], lexicon: Any,
    memo: LeaveMemo, margin: float,
) -> bool:
    """Whether a rack of the play's tiles plus ``kept`` would have made the play: its equity
    within ``margin`` of the best the rack had."""
    rack = play.tokens + kept
    racks = list(play.before.racks)
    racks[play.seat] = rack
    before = play.before.evolve(racks=tuple(racks), bag=bag)
    weight = leave_weight(before)
    mine = actual + weight * memo.leave(rack, play.tokens)
    moves = generate_moves(before, play.seat, lexicon, limit=SCAN)
    best: Move | None = best_equity_move(before, play.seat, moves, memo, SCAN)
    if best is None:
        return True
    top = best.score + weight * memo.leave(rack, best.tokens)
    return mine >= top - margin

