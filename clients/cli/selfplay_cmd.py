"""``wordarena selfplay``: two bot levels play a series; prints win rates and average spreads.

    wordarena selfplay --ruleset classic --levels 5,3 --games 200 [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys

from wordarena.engine.bots import LEVELS, play_series
from wordarena.engine.errors import EngineError
from wordarena.engine.families import parse_ruleset_id
from wordarena.engine.lexicon import LexiconError, load_lexicon


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("selfplay", help="bot against bot: win rates and spreads")
    parser.add_argument("--ruleset", default="classic", help="family[/language[/board]]")
    parser.add_argument("--levels", default="5,3", help="two bot levels, e.g. 5,3 (1-5)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=run)


def _levels(text: str) -> tuple[int, int]:
    try:
        a, b = (int(x) for x in text.split(","))
    except ValueError:
        raise ValueError(f"--levels: {text!r} is not two levels like 5,3") from None
    for level in (a, b):
        if level not in LEVELS:
            raise ValueError(f"--levels: {level} is not a bot level (1-5)")
    return a, b


def run(args: argparse.Namespace) -> int:
    try:
        levels = _levels(args.levels)
        ruleset = parse_ruleset_id(args.ruleset)
        lexicon = load_lexicon(ruleset.lexicon)
    except (ValueError, EngineError, LexiconError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    stats = play_series(ruleset, levels, max(1, args.games), lexicon, args.seed)
    if args.json:
        print(json.dumps({"ruleset": ruleset.id, "levels": list(levels), "games": stats.games,
                          "wins": stats.wins, "ties": stats.ties, "win_rate": stats.win_rate,
                          "average_spread": stats.average_spread}))
        return 0
    print(f"{ruleset.id}: {stats.describe()}")
    a, b = levels
    print(f"  level {a} ({LEVELS[a]}) win rate {stats.win_rate:.1%}, "
          f"level {b} ({LEVELS[b]}) win rate {1 - stats.win_rate:.1%}")
    return 0
