"""End-game and pre-end-game positions from seeded self-play, for the end-game tests,
``bench/endgame.py`` and ``bench/preendgame.py``."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from wordarena.engine.bots.bot import Bot
from wordarena.engine.families import get_ruleset
from wordarena.engine.game.play import replace_at
from wordarena.engine.game.state import GameState
from wordarena.engine.game.turns import apply, start_game


def empty_bag_positions(
    family: str, seeds: range, lexicon: Any, levels: tuple[int, int] = (4, 5)
) -> Iterator[GameState]:
    """For each seed, the first position of a 2-player game between bots of ``levels``
    (game and bots seeded by the seed) with the bag empty; games that end before are skipped."""
    return first_positions(family, seeds, lexicon, levels, lambda s: not s.bag)


def bag_positions(
    family: str, seeds: range, lexicon: Any, tiles: int, levels: tuple[int, int] = (5, 5)
) -> Iterator[GameState]:
    """For each seed, the first position with exactly ``tiles`` tiles in the bag (a
    pre-end-game) of such a game; games whose bag never holds exactly that many are skipped."""
    return first_positions(family, seeds, lexicon, levels, lambda s: len(s.bag) == tiles)


def first_positions(
    family: str, seeds: range, lexicon: Any, levels: tuple[int, int],
    found: Callable[[GameState], bool],
) -> Iterator[GameState]:
    """For each seed, the first position of the seeded game between bots of ``levels`` where
    ``found`` holds (no play pending); games that end or pass it by first are skipped."""
    ruleset = get_ruleset(family)
    for seed in seeds:
        state, _ = start_game(ruleset, 2, seed, lexicon)
        bots = [Bot(levels[0], seed, lexicon), Bot(levels[1], seed + 1, lexicon)]
        while not state.over and not (state.pending is None and found(state)):
            if not state.bag and state.pending is None:
                break  # the bag only empties: a bag size not met by now never will be
            state, _ = apply(state, bots[state.to_move].choose(state))
        if not state.over and state.pending is None and found(state):
            yield state


def small_racks(state: GameState, seed: int, most: int = 2, total: int = 3) -> GameState:
    """``state`` with each rack cut to 1..``most`` of its tiles, ``total`` at most between the
    two (seeded): small end games a brute-force search can play out."""
    rng = random.Random(f"small-racks/{seed}")
    racks = state.racks
    room = total
    for seat in rng.sample((0, 1), 2):
        rack = list(racks[seat])
        rng.shuffle(rack)
        keep = rng.randint(1, max(1, min(most, len(rack), room - 1)))
        room -= keep
        racks = replace_at(racks, seat, tuple(rack[:keep]))
    return state.evolve(racks=racks)
