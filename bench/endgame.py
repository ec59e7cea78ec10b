"""End-game search: the share of real end games it solves exactly within its budget, and its
speed (nodes per CPU second).

The end games are the first empty-bag positions of seeded self-play games (level 4 against
level 5, game ``seed`` for seeds ``--first`` ...), and, with ``--tiles N``, the same games played
on by their bots until both racks hold at most N tiles together.

    .venv/bin/python bench/endgame.py [--family classic] [--games 40] [--budget 2.0] [--tiles 0]
                                      [--engine auto|native|python]

``--engine``: the C search (``native``, engine.bots.endgame_native), the Python reference
(``python``) or whichever ``solve_endgame`` picks (``auto``). Both are the same search: at a
node limit they visit the same nodes; only their speed differs.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from typing import Any

from wordarena.engine.bots import Bot
from wordarena.engine.bots.endcorpus import empty_bag_positions
from wordarena.engine.bots.endgame import solve_endgame, supports
from wordarena.engine.game import apply
from wordarena.engine.game.state import GameState
from wordarena.engine.lexicon import load_lexicon


def positions(family: str, seeds: range, lexicon: Any, tiles: int) -> Iterator[GameState]:
    """The end games of the bench (see the module doc)."""
    for state in empty_bag_positions(family, seeds, lexicon):
        bots = [Bot(4, state.seed, lexicon), Bot(5, state.seed + 1, lexicon)]
        while tiles and sum(len(r) for r in state.racks) > tiles and not state.over:
            state, _ = apply(state, bots[state.to_move].choose(state))
        if supports(state):
            yield state


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", default="classic")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--budget", type=float, default=2.0, help="seconds (wall clock) each")
    parser.add_argument(
        "--tiles", type=int, default=0, help="play on until the racks hold at most this many tiles (0: no)"
    )
    parser.add_argument("--engine", default="auto", choices=("auto", "native", "python"))
    args = parser.parse_args(argv)
    lexicon = load_lexicon("en")
    solved = total = nodes = 0
    cpu = 0.0
    by_tiles: dict[int, list[int]] = {}
    for state in positions(args.family, range(args.first, args.first + args.games), lexicon, args.tiles):
        t0 = time.process_time()
        result = solve_endgame(state, lexicon, args.budget, engine=args.engine)
        cpu += time.process_time() - t0
        total += 1
        solved += result.exact
        nodes += result.nodes
        count = sum(len(r) for r in state.racks)
        by_tiles.setdefault(count, [0, 0])[result.exact] += 1
    print(f"{args.family}: {total} end games, budget {args.budget:.1f} s wall clock each, "
          f"engine {args.engine}")
    print(f"solved exactly within the budget: {solved}/{total} = {solved / max(total, 1):.1%}")
    print(
        f"nodes: {nodes}, {nodes / max(cpu, 1e-9):,.0f} nodes per CPU second, "
        f"{cpu / max(total, 1):.2f} CPU s per end game"
    )
    for count in sorted(by_tiles):
        failed, done = by_tiles[count]
        print(f"  {count:2d} tiles on the racks: {done}/{done + failed} solved")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
