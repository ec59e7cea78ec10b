"""End-game positions from seeded self-play, for the end-game tests and ``bench/endgame.py``."""

from __future__ import annotations

import random
from collections.abc import Iterator
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
    ruleset = get_ruleset(family)
    for seed in seeds:
        state, _ = start_game(ruleset, 2, seed, lexicon)
        bots = [Bot(levels[0], seed, lexicon), Bot(levels[1], seed + 1, lexicon)]
        while not state.over and (state.bag or state.pending is not None):
            state, _ = apply(state, bots[state.to_move].choose(state))
        if not state.over:
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
