"""Hindsight "best by simulation": a turn's best plays judged the way the level-6 bot judges them
(``engine.bots.simulation``), from what the player could see then.

The simulation deals the tiles the seat had not seen (the bag and the other racks, as one pool)
at random, so neither another player's rack nor the bag's order enters the verdict. It runs a
fixed number of rounds with no time budget, seeded from the game's seed and the turn, so the
same turn always gets the same answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from wordarena.engine.analysis.position import check_position
from wordarena.engine.bots.bot import Bot
from wordarena.engine.bots.leaves import leave_table
from wordarena.engine.bots.simulation import (
    Candidate,
    SimSettings,
    candidates_of,
    simulate,
)
from wordarena.engine.game.state import GameState
from wordarena.engine.movegen import generate_moves

#: How Hindsight simulates: enough rounds for a stable ranking of a few candidates.
HINDSIGHT_SIM = SimSettings(candidates=6, iterations=48, min_iterations=48, budget_s=0.0)


@dataclass(frozen=True)
class SimulatedAlternative:
    """One candidate and its simulated result (``move`` None: the exchange of ``exchange``)."""

    candidate: Candidate

    @property
    def iterations(self) -> int:
        return self.candidate.n


def best_by_simulation(
    state: GameState, seat: int, top: int = 3, settings: SimSettings = HINDSIGHT_SIM
) -> tuple[SimulatedAlternative, ...]:
    """The best plays ``seat`` had in ``state`` (the position before its turn), at least ``top``
    of them by static equity (and the exchange, when one was allowed), ranked by simulation."""
    check_position(state)
    moves = generate_moves(state, seat)
    table = leave_table(state.ruleset.family, state.ruleset.language)
    count = max(top, settings.candidates)
    exchange = Bot(5, lexicon=state.lexicon).best_exchange(state, seat) if state.bag else None
    found = candidates_of(state, seat, moves, table, count, exchange)
    if not found:
        return ()
    result = simulate(state, seat, found, state.lexicon, table, settings, seed=state.seed * 1009 + state.turn)
    return tuple(SimulatedAlternative(c) for c in result.ranked)
