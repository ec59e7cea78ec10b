"""Level 5 with the exact end-game search against level 5 without it, per family.

Since 8 December 2026 level 5 plays the exact end-game search (``engine.bots.endgame``, node
budget ``ENDGAME_NODES``, no clock) once the bag is empty in a 2-player game the search covers
(classic, scrabble, wordtiles); before, it played for score (in classic: its best spread after
the opponent's best-scoring reply). This plays the two on the same deals, each deal twice with
the seats swapped, and prints the new level 5's win share (ties half) ± SE, its spread ± SE and
how many games came out identical. War of Words is not searched: its games come out identical.

    nice -n 10 .venv/bin/python bench/level5_endgame.py --family classic --games 1000 --seed 70000
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from wordarena.engine.bots import Bot, play_game
from wordarena.engine.families import get_ruleset
from wordarena.engine.lexicon import load_lexicon

FAMILIES = ("classic", "scrabble", "wordtiles", "warofwords")


class PlaysForScore(Bot):
    """Level 5 as it was before the end-game search (its own end game, ``Bot._endgame``)."""

    def _solved(self, state):  # type: ignore[no-untyped-def]
        return None if self.level == 5 else super()._solved(state)


def run(family: str, games: int, seed: int, first: int = 0) -> str:
    ruleset = get_ruleset(family)
    lexicon = load_lexicon(ruleset.lexicon)
    wins, spreads, same = [], [], 0
    t0 = time.process_time()
    for g in range(first, first + games):
        deal, new_seat = seed + g // 2, g % 2
        old = PlaysForScore(5, deal, lexicon)
        new = Bot(5, deal, lexicon)
        seats = [new, old] if new_seat == 0 else [old, new]
        scores = play_game(ruleset, seats, deal, lexicon).scores
        if new_seat == 0:  # the deal with level 5 as before in both seats (once a deal)
            twin = [PlaysForScore(5, deal, lexicon), PlaysForScore(5, deal, lexicon)]
            base = play_game(ruleset, twin, deal, lexicon).scores
        mine = scores[new_seat] - max(s for i, s in enumerate(scores) if i != new_seat)
        same += list(scores) == list(base)  # the search changed nothing in this game
        spreads.append(mine)
        wins.append(1.0 if mine > 0 else 0.5 if mine == 0 else 0.0)
    n = len(wins)
    p = sum(wins) / n
    m = sum(spreads) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in spreads) / (n - 1) / n) if n > 1 else 0.0
    return (f"{family}: {n} games (deals {seed + first // 2}..{seed + (first + games) // 2 - 1}), "
            f"level 5 with the search wins {p:.1%} ± {math.sqrt(p * (1 - p) / n):.1%}, "
            f"spread {m:+.1f} ± {sd:.1f}; {same} games as without it; "
            f"{time.process_time() - t0:.0f} s CPU")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", action="append", choices=FAMILIES)
    ap.add_argument("--games", type=int, default=200, help="games per family (even)")
    ap.add_argument("--seed", type=int, default=70_000)
    ap.add_argument("--first", type=int, default=0, help="first game (even)")
    args = ap.parse_args(argv)
    for family in args.family or FAMILIES:
        print(run(family, args.games, args.seed, args.first), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
