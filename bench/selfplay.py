"""Self-play speed: games per second for the strongest and the weakest bot, per ruleset.

    .venv/bin/python bench/selfplay.py [--games 10] [--family classic ...]
"""

from __future__ import annotations

import argparse
import sys
import time

from wordarena.engine.bots import Bot, play_game
from wordarena.engine.families import get_ruleset
from wordarena.engine.lexicon import load_lexicon

FAMILIES = ("classic", "scrabble", "wordtiles", "warofwords")


def games_per_second(family: str, level: int, games: int) -> tuple[float, float]:
    """(games/s, turns/s) of ``level`` against itself, in CPU time."""
    ruleset = get_ruleset(family)
    lexicon = load_lexicon(ruleset.lexicon)
    turns = 0
    t0 = time.process_time()
    for g in range(games):
        outcome = play_game(ruleset, [Bot(level, g, lexicon), Bot(level, g + 1, lexicon)], g,
                            lexicon)
        turns += outcome.turns
    seconds = time.process_time() - t0
    return games / seconds, turns / seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--family", action="append", choices=FAMILIES)
    args = parser.parse_args(argv)
    print(f"{'ruleset':<12}{'bot':<14}{'games/s':>9}{'turns/s':>9}")
    for family in args.family or FAMILIES:
        for level, name in ((5, "strong (5)"), (1, "beginner (1)")):
            gps, tps = games_per_second(family, level, args.games)
            print(f"{family:<12}{name:<14}{gps:>9.2f}{tps:>9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
