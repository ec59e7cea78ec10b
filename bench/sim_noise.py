"""What level 6's choice would gain from a longer search: its mid-game choices at the shipped
think time and at ``--longer`` times it, valued by an independent, much larger simulation.

The positions are mid-game ones (more than ``CLOSE_POOL`` tiles unseen, so the candidates are
ranked by spread) of seeded level-5 self-play: in each game the first position with at most
``--stages`` tiles in the bag, for each stage. In each, level 5 (best static equity), level 6 as
shipped (``SimSettings()``: the think time on this machine's clock) and level 6 with ``--longer``
times the think time and worlds choose among the same candidates; then a reference simulation
(``--reference`` worlds for every candidate, no pruning, other worlds than the choosers' own)
values every candidate. A choice's value is the reference's mean spread for it; the figures are
the paired differences between choosers, position by position (the reference is independent of
the choices, so the differences are unbiased). ``--variant`` adds a third simulation: the
shipped settings with some fields changed. Multiply by level 6's mid-game moves a game (about
10 in classic) for points a game.

    .venv/bin/python bench/sim_noise.py [--family classic] [--games 20] [--first 92000]
                                        [--stages 80 60 40 25] [--longer 4] [--reference 1000]
                                        [--variant prune=paired]

Needs a core of its own for each process: the think times are wall-clock. A figure script, not a
timed test.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import time
from collections.abc import Iterator
from typing import Any

from wordarena.engine.bots import Bot
from wordarena.engine.bots.endcorpus import first_positions
from wordarena.engine.bots.leaves import leave_table
from wordarena.engine.bots.simulation import (
    CLOSE_POOL,
    Candidate,
    SimSettings,
    candidates_of,
    simulate,
    unseen_pool,
)
from wordarena.engine.families import get_ruleset
from wordarena.engine.game.state import GameState
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.movegen import generate_moves


def variant(text: str) -> dict[str, Any]:
    """``--variant`` FIELD=VALUE,...: SimSettings fields, typed as the shipped values are."""
    shipped = SimSettings()
    fields: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        if not hasattr(shipped, name):
            raise argparse.ArgumentTypeError(f"SimSettings has no field {name!r}")
        fields[name] = type(getattr(shipped, name))(value)
    return fields


def positions(family: str, seeds: range, lexicon: Any, stages: list[int]) -> Iterator[GameState]:
    """Per stage, per seed: the first position of a level-5 game with at most that many tiles
    in the bag, while more than ``CLOSE_POOL`` tiles are unseen by the seat to move."""
    for stage in stages:
        for state in first_positions(family, seeds, lexicon, (5, 5),
                                     lambda s, most=stage: len(s.bag) <= most):
            if len(unseen_pool(state, state.to_move)) > CLOSE_POOL:
                yield state


def key(cand: Candidate) -> tuple[Any, ...]:
    """A candidate's identity across separate simulations of one position."""
    return (cand.move, cand.exchange)


def choosers(longer: float, fields: dict[str, Any]) -> dict[str, SimSettings]:
    """The simulations that choose: as shipped, ``longer`` times longer and (``fields``) a
    variant of the shipped settings."""
    shipped = SimSettings()
    found = {"shipped": shipped,
             "longer": dataclasses.replace(shipped, budget_s=shipped.budget_s * longer,
                                           iterations=int(shipped.iterations * longer))}
    if fields:
        found["variant"] = dataclasses.replace(shipped, **fields)
    return found


def choices(state: GameState, lexicon: Any, settings: dict[str, SimSettings], reference: int
            ) -> tuple[dict[str, tuple[Any, ...]], dict[tuple[Any, ...], float], dict[str, float]]:
    """(each chooser's choice, the reference's mean spread per candidate, CPU per chooser)."""
    seat = state.to_move
    table = leave_table(state.ruleset.family, state.ruleset.language)
    exchange = Bot(5, 0, lexicon).best_exchange(state, seat)
    moves = generate_moves(state, seat, lexicon)
    shipped = settings["shipped"]

    def fresh() -> list[Candidate]:
        return candidates_of(state, seat, moves, table, shipped.candidates, exchange)

    picked = {"level 5": key(max(fresh(), key=lambda c: c.equity))}
    cpu = {"level 5": 0.0}
    for name, sim in settings.items():
        t = time.process_time()
        result = simulate(state, seat, fresh(), lexicon, table, sim, state.seed)
        cpu[name] = time.process_time() - t
        picked[name] = key(result.ranked[0])
    # other worlds than the choosers' (their seed is the position's), every candidate each one
    judge = SimSettings(iterations=reference, min_iterations=reference, budget_s=0.0)
    ranked = simulate(state, seat, fresh(), lexicon, table, judge, state.seed + 7_919).ranked
    return picked, {key(c): c.mean for c in ranked}, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", default="classic", choices=("classic", "scrabble", "wordtiles"))
    ap.add_argument("--games", type=int, default=20, help="self-play games the positions come from")
    ap.add_argument("--first", type=int, default=92_000, help="first game's seed")
    ap.add_argument("--stages", type=int, nargs="+", default=[80, 60, 40, 25],
                    help="bag sizes: a position per game at the first bag at most this size")
    ap.add_argument("--longer", type=float, default=4.0, help="the longer search's multiple")
    ap.add_argument("--reference", type=int, default=1000, help="the reference's worlds")
    ap.add_argument("--variant", type=variant, default={},
                    help="a third simulation: the shipped settings but these (prune=paired,...)")
    args = ap.parse_args()

    lexicon = load_lexicon(get_ruleset(args.family).lexicon)
    settings = choosers(args.longer, args.variant)
    names = ["level 5", *settings]
    value: dict[str, list[float]] = {c: [] for c in names}
    cpu: dict[str, list[float]] = {c: [] for c in names}
    best_gap: list[float] = []
    picks: list[dict[str, tuple[Any, ...]]] = []
    for n, state in enumerate(positions(args.family, range(args.first, args.first + args.games),
                                        lexicon, args.stages), 1):
        picked, means, spent = choices(state, lexicon, settings, args.reference)
        for c in names:
            value[c].append(means[picked[c]])
            cpu[c].append(spent[c])
        best_gap.append(max(means.values()) - means[picked["shipped"]])
        picks.append(picked)
        print(f"  position {n} (bag {len(state.bag)}): " + ", ".join(
            f"{c} {means[picked[c]]:+.2f}" for c in names), flush=True)

    def paired(a: str, b: str) -> str:
        d = [x - y for x, y in zip(value[a], value[b], strict=True)]
        se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else math.inf
        same = sum(1 for p in picks if p[a] == p[b])
        return (f"{a} − {b}: {statistics.fmean(d):+.2f} ± {se:.2f} points a move "
                f"({same} of {len(d)} the same choice)")

    print(f"{args.family}, {len(best_gap)} mid-game positions, reference {args.reference} worlds:")
    for a, b in (("shipped", "level 5"), ("longer", "shipped"), ("variant", "shipped")):
        if a in value:
            print("  " + paired(a, b))
    print(f"  shipped below the reference's own best (biased up: its maximum): "
          f"{statistics.fmean(best_gap):.2f} points a move")
    print("  CPU a choice: " + ", ".join(f"{c} {statistics.fmean(cpu[c]):.2f} s" for c in names[1:]))


if __name__ == "__main__":
    main()
