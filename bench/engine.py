"""Engine benchmark: validate + score + apply one play on a mid-game board, per ruleset.

Prints, for each ruleset, the median time of ``apply`` for one play (lexicon check included),
and the default lexicon's load time and memory. Run: ``.venv/bin/python bench/engine.py``.
"""

from __future__ import annotations

import statistics
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Decide, GameState, Play, apply, set_rack, start_game
from wordarena.engine.lexicon import Lexicon
from wordarena.engine.notation import placements_from_word

# A mid-game board: six words around the centre (geometry only; set up without word checks).
SETUP = [("8D", "HOUSE"), ("D4", "BATC."), ("E8", ".PEN"), ("11C", "BA.E"), ("G8", ".TAR"),
         ("4A", "SCA.")]
TIMED = ("I4", "ZEROS")  # forms ZEROS and HOUSES


def mid_game(family: str, lexicon: Lexicon) -> tuple[GameState, Play]:
    ruleset = get_ruleset(family, "en")
    state, _ = start_game(ruleset, 2, seed=7, check_words=False)
    for k, (position, word) in enumerate([*SETUP, TIMED]):
        seat = k % 2
        placements = placements_from_word(ruleset.board, state.cells, position, word)
        tiles = tuple(p.token for p in placements)
        state = set_rack(state, seat, tiles)
        state = state.evolve(to_move=seat, pending=None)
        play = Play(seat, placements)
        if (position, word) == TIMED:
            return state.evolve(lexicon=lexicon, check_words=True), play
        state, _ = apply(state, play)
        if state.pending is not None:
            state, _ = apply(state, Decide(1 - seat, accept=True))
    raise AssertionError("unreachable")


def median_us(fn: Callable[[], object], repeat: int = 2000) -> float:
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples) * 1e6


def lexicon_figures() -> tuple[float, float, Lexicon]:
    path = Path(__file__).resolve().parent.parent / "engine" / "lexicon" / "data" / "en.dawg"
    tracemalloc.start()
    t = time.perf_counter()
    lexicon = Lexicon.load(path)  # a cold load of the shipped file, not the in-process cache
    seconds = time.perf_counter() - t
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds * 1000, peak / 2**20, lexicon


def main() -> None:
    load_ms, mem_mb, lexicon = lexicon_figures()
    print(f"lexicon en: {len(lexicon)} words, load {load_ms:.1f} ms, memory {mem_mb:.1f} MB")
    print(f"{'ruleset':<12} {'apply play (median)':>22}")
    for family in ("classic", "scrabble", "wordtiles", "warofwords"):
        state, play = mid_game(family, lexicon)
        after, events = apply(state, play)
        us = median_us(lambda s=state, p=play: apply(s, p))
        extra = ""
        if after.pending is not None:
            decide = Decide(after.to_move, accept=False)
            us_check = median_us(lambda a=after, d=decide: apply(a, d))
            extra = f"   check pending: {us_check:.0f} us"
        print(f"{family:<12} {us:>19.0f} us   score {events[0].data['score']}{extra}")


if __name__ == "__main__":
    main()
