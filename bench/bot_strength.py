"""Bot strength: level 6 (simulation) against level 5, per family, with standard errors.

    nice -n 10 .venv/bin/python bench/bot_strength.py --games 40 --family classic
    nice -n 10 .venv/bin/python bench/bot_strength.py --iterations 16 --budget 0   # repeatable

Each pair of games uses one seed (game g and g+1 deal the same bag) with the levels swapping
seats, so the first player's advantage and the luck of the draw cancel out as far as they can.
Level 6 simulates ``--candidates`` plays for at most ``--iterations`` rounds within
``--budget`` seconds a move (0 = no time limit: the games are then repeatable on any machine).
Printed per family: level 6's win share (ties half) ± one standard error √(p(1−p)/n), the
average spread (level 6 − level 5) ± its standard error, games, and CPU seconds per level-6
move. ``--json FILE`` appends one line per family.

The p95 of a level-6 move through the match server (gRPC, a bot seat) is measured by
``bench/bot_latency.py``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, field

from wordarena.engine.bots import Bot, play_game
from wordarena.engine.bots.simulation import SimSettings
from wordarena.engine.families import get_ruleset
from wordarena.engine.lexicon import load_lexicon

FAMILIES = ("classic", "scrabble", "wordtiles", "warofwords")


@dataclass
class Tally:
    """Results of level 6 against level 5 in one family."""

    family: str
    wins: float = 0.0  # ties count half
    spreads: list[int] = field(default_factory=list)
    moves: int = 0  # level-6 moves
    cpu: float = 0.0  # CPU seconds spent in level-6 moves

    @property
    def games(self) -> int:
        return len(self.spreads)

    def share(self) -> tuple[float, float]:
        n = self.games
        p = self.wins / n if n else 0.0
        return p, math.sqrt(p * (1 - p) / n) if n else 0.0

    def spread(self) -> tuple[float, float]:
        n = self.games
        if n < 2:
            return (float(self.spreads[0]) if n else 0.0), 0.0
        m = sum(self.spreads) / n
        var = sum((x - m) ** 2 for x in self.spreads) / (n - 1)
        return m, math.sqrt(var / n)

    def line(self) -> str:
        p, se = self.share()
        s, sse = self.spread()
        per_move = self.cpu / self.moves if self.moves else 0.0
        return (
            f"{self.family:<11} level 6 vs 5: {self.games} games, wins {p:.1%} ± {se:.1%}, "
            f"spread {s:+.1f} ± {sse:.1f}, {per_move:.2f} s CPU per level-6 move"
        )


class Timed(Bot):
    """A level-6 bot that counts its moves and their CPU time."""

    tally: Tally | None = None

    def choose(self, state):  # type: ignore[no-untyped-def]
        t0 = time.process_time()
        try:
            return super().choose(state)
        finally:
            if self.tally is not None:
                self.tally.moves += 1
                self.tally.cpu += time.process_time() - t0


def run(family: str, games: int, settings: SimSettings, seed: int) -> Tally:
    """``games`` games of level 6 against level 5 in ``family`` (seats alternating)."""
    ruleset = get_ruleset(family)
    lexicon = load_lexicon(ruleset.lexicon)
    tally = Tally(family)
    for g in range(games):
        deal = seed + g // 2  # a pair of games per deal, the levels swapping seats
        six = Timed(6, seed + g, lexicon, sim=settings)
        six.tally = tally
        five = Bot(5, seed + g + 10_000, lexicon)
        first = g % 2  # seat of level 6
        seated = [six, five] if first == 0 else [five, six]
        outcome = play_game(ruleset, seated, deal, lexicon)
        mine, theirs = outcome.scores[first], outcome.scores[1 - first]
        tally.spreads.append(mine - theirs)
        tally.wins += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        print(f"  {family} game {g + 1}/{games}: {mine}-{theirs}", file=sys.stderr, flush=True)
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per family (even)")
    parser.add_argument("--family", action="append", choices=FAMILIES)
    parser.add_argument("--candidates", type=int, default=SimSettings.candidates)
    parser.add_argument("--iterations", type=int, default=SimSettings.iterations)
    parser.add_argument("--budget", type=float, default=SimSettings.budget_s, help="s a move")
    parser.add_argument("--plies", type=int, default=SimSettings.plies, choices=(2, 3))
    parser.add_argument("--confidence", type=float, default=SimSettings.confidence,
                        help="standard errors a challenger must beat level 5's play by")
    parser.add_argument("--seed", type=int, default=50_000)
    parser.add_argument("--json", help="append the results to this file")
    args = parser.parse_args(argv)
    settings = SimSettings(candidates=args.candidates, iterations=args.iterations,
                           budget_s=args.budget, plies=args.plies, confidence=args.confidence)
    print(f"level 6 ({settings}) vs level 5, seed {args.seed}")
    for family in args.family or FAMILIES:
        tally = run(family, args.games, settings, args.seed)
        print(tally.line(), flush=True)
        if args.json:
            p, se = tally.share()
            s, sse = tally.spread()
            with open(args.json, "a", encoding="utf-8") as out:
                out.write(
                    json.dumps(
                        {
                            "family": family,
                            "games": tally.games,
                            "win": p,
                            "win_se": se,
                            "spread": s,
                            "spread_se": sse,
                            "cpu_per_move": tally.cpu / max(1, tally.moves),
                            "settings": vars(args),
                        }
                    )
                    + "\n"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
