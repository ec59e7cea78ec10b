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

``--optimal``: whether the move the search returns at the end of its budget is an optimal move
(the issue's "finds the best sequence"), proved or not. Each position is first solved exactly
with ``--truth-nodes`` nodes (the ground truth; a position that is not exact even then is
"unknown" and never counted as found), then searched as level 6 does (``--budget`` seconds of
wall clock) and with a node limit (``--nodes``, a repeatable budget); each budgeted move's true
value is ``action_value`` (the engine applies it, the position after it is solved exactly),
compared with the root's. Where the ground truth is unknown, the line says only whether the
budgeted move is the deep search's (``?=deep``, ``?/=deep``: not a proof either way). The
ground truth and the moves' values are cached in ``--truth FILE`` (JSON), so a rerun only
searches within the budgets. ``--budget 0`` or ``--nodes 0`` leaves that run out.

    .venv/bin/python bench/endgame.py --optimal [--truth FILE] [--nodes 2000000]
                                      [--truth-nodes 20000000]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from wordarena.engine.bots import Bot
from wordarena.engine.bots.endcorpus import empty_bag_positions
from wordarena.engine.bots.endgame import action_value, solve_endgame, supports
from wordarena.engine.game import Action, action_to_dict, apply
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


# --optimal: the node-limited run's default (about what an idle core of the 2-core bench machine
# searches in 2 s with the C search on these positions: bench/results/bots-history.md) and the ground truth's.
NODES = 2_000_000
TRUTH_NODES = 20_000_000


def key_of(action: Action) -> str:
    """An action as a cache key (its JSON form)."""
    return json.dumps(action_to_dict(action), sort_keys=True)


def fingerprint(state: GameState) -> str:
    """The position (board, racks, scores, seat to move, zero-turn run) as a digest: a cached
    ground truth is used only for the same position (the self-play corpus changes with the bots)."""
    parts = (state.ruleset.family, state.cells, state.racks, state.scores, state.to_move, state.zero_run)
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:20]


class Truth:
    """The ground truth per position and the true values of moves, cached in a JSON file."""

    def __init__(self, path: Path | None, lexicon: Any, limit: int, engine: str) -> None:
        self.path, self.lexicon, self.limit, self.engine = path, lexicon, limit, engine
        self.data: dict[str, Any] = {}
        if path is not None and path.exists():
            self.data = json.loads(path.read_text())

    def save(self) -> None:
        if self.path is not None:
            self.path.write_text(json.dumps(self.data, indent=1, sort_keys=True))

    def root(self, name: str, state: GameState) -> dict[str, Any]:
        """The position's exact solution (``exact`` False: not within the node limit)."""
        found = self.data.get(name)
        if (
            found is None
            or found.get("position") != fingerprint(state)
            or (not found["exact"] and found["limit"] < self.limit)
        ):
            t0 = time.process_time()
            result = solve_endgame(state, self.lexicon, math.inf, node_limit=self.limit, engine=self.engine)
            found = self.data[name] = {
                "value": result.value,
                "exact": result.exact,
                "nodes": result.nodes,
                "limit": self.limit,
                "cpu": round(time.process_time() - t0, 2),
                "position": fingerprint(state),
                "action": key_of(result.action),
                "moves": {key_of(result.action): [result.value, result.exact]},
            }
            self.save()
        return found

    def value(self, name: str, state: GameState, action: Action) -> tuple[int, bool]:
        """The action's true value (``action_value``), cached."""
        moves = self.data[name]["moves"]
        key = key_of(action)
        if key not in moves or (not moves[key][1] and self.limit > self.data[name]["limit"]):
            moves[key] = list(
                action_value(state, self.lexicon, action, node_limit=self.limit, engine=self.engine)
            )
            self.save()
        value, exact = moves[key]
        return value, exact


def optimal(args: argparse.Namespace, lexicon: Any) -> int:
    """The ``--optimal`` mode (see the module doc)."""
    truth = Truth(args.truth, lexicon, args.truth_nodes, args.engine)
    runs = {"time": f"{args.budget:g} s wall clock", "nodes": f"{args.nodes:,} nodes"}
    for run, off in (("time", args.budget <= 0), ("nodes", args.nodes <= 0)):
        if off:  # --budget 0 / --nodes 0: that run left out
            del runs[run]
    tallies = {run: {"proved": 0, "optimal": 0, "lost": 0, "known": 0, "same": 0} for run in runs}
    unknown = total = 0
    speeds: list[float] = []
    print(
        f"{args.family}: seeds {args.first}-{args.first + args.games - 1}, engine {args.engine}; "
        f"truth: {args.truth_nodes:,} nodes; runs: {', '.join(runs.values())}"
    )
    print("seed tiles truth | run: proved optimal lost nodes seconds | ...")
    seeds = range(args.first, args.first + args.games)
    for state in positions(args.family, seeds, lexicon, args.tiles):
        total += 1
        name = f"{args.family}/{state.seed}/{args.tiles}"
        root = truth.root(name, state)
        tiles = sum(len(r) for r in state.racks)
        cells = [f"{state.seed:4d} {tiles:5d} {root['value'] if root['exact'] else 'unknown':>5}"]
        for run in runs:
            t0 = time.process_time()
            if run == "time":
                result = solve_endgame(state, lexicon, args.budget, engine=args.engine)
                if not result.exact:  # the whole budget spent: the search's speed here
                    speeds.append(result.nodes / max(time.process_time() - t0, 1e-9))
            else:
                result = solve_endgame(state, lexicon, math.inf, node_limit=args.nodes, engine=args.engine)
            tally = tallies[run]
            tally["proved"] += result.exact
            verdict = "?"
            if not root["exact"]:  # only the deep search's move to compare with (not a proof)
                deep = root.get("action") or next(iter(root["moves"]))
                same = key_of(result.action) == deep
                tally["same"] += same
                verdict = "?=deep" if same else "?/=deep"
            else:
                value, exact = truth.value(name, state, result.action)
                if exact:
                    tally["known"] += 1
                    found = value == root["value"]
                    tally["optimal"] += found
                    tally["lost"] += root["value"] - value
                    verdict = "yes" if found else f"no -{root['value'] - value}"
            cells.append(
                f"{run}: {'exact' if result.exact else '-':5} {verdict:7} "
                f"{result.nodes:9,d} {result.seconds:5.2f}"
            )
        print(" | ".join(cells), flush=True)
        unknown += not root["exact"]
    print(f"{total} end games; ground truth unknown (not exact within {args.truth_nodes:,} nodes): {unknown}")
    if speeds:
        speeds.sort()
        print(
            f"the time run's speed where it spent its budget: median {speeds[len(speeds) // 2]:,.0f} "
            f"nodes per CPU s ({speeds[0]:,.0f}-{speeds[-1]:,.0f}, {len(speeds)} end games)"
        )
    for run, label in runs.items():
        tally = tallies[run]
        known = tally["known"]
        share = tally["optimal"] / max(known, 1)
        se = math.sqrt(share * (1 - share) / max(known, 1))
        print(
            f"{label}: proved exact {tally['proved']}/{total} = {tally['proved'] / max(total, 1):.1%}; "
            f"optimal move {tally['optimal']}/{known} = {share:.1%} ± {se:.1%} (SE); "
            f"mean points lost {tally['lost'] / max(known, 1):.2f}; "
            f"unknown: the deep search's move {tally['same']}/{unknown}"
        )
    return 0


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
    parser.add_argument("--optimal", action="store_true", help="is the budgeted move optimal?")
    parser.add_argument("--nodes", type=int, default=NODES, help="the node-limited run's nodes (--optimal)")
    parser.add_argument("--truth-nodes", type=int, default=TRUTH_NODES, help="the ground truth's node limit")
    parser.add_argument("--truth", type=Path, help="JSON cache of the ground truth (--optimal)")
    args = parser.parse_args(argv)
    lexicon = load_lexicon("en")
    if args.optimal:
        return optimal(args, lexicon)
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
    print(
        f"{args.family}: {total} end games, budget {args.budget:.1f} s wall clock each, engine {args.engine}"
    )
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
