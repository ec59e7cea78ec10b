"""``wordarena selfplay``: two bot levels play a series; prints win rates and average spreads,
and with ``--save DIR`` writes each game's GCG record there.

    wordarena selfplay --ruleset classic --levels 5,3 --games 200 [--seed 0] [--json] [--save DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from wordarena.engine.bots import LEVELS, GameOutcome, play_series
from wordarena.engine.errors import EngineError
from wordarena.engine.families import parse_ruleset_id
from wordarena.engine.interchange import GameRecord, record_from_events, write_gcg
from wordarena.engine.lexicon import LexiconError, load_lexicon


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("selfplay", help="bot against bot: win rates and spreads")
    parser.add_argument("--ruleset", default="classic", help="family[/language[/board]]")
    parser.add_argument("--levels", default="5,3", help="two bot levels, e.g. 5,3 (1-6)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--save", metavar="DIR",
                        help="write each game's GCG record to DIR "
                             "(RULESET-seedSEED-gameN.gcg, the ruleset id's / as _)")
    parser.set_defaults(func=run)


def _levels(text: str) -> tuple[int, int]:
    try:
        a, b = (int(x) for x in text.split(","))
    except ValueError:
        raise ValueError(f"--levels: {text!r} is not two levels like 5,3") from None
    for level in (a, b):
        if level not in LEVELS:
            raise ValueError(f"--levels: {level} is not a bot level (1-{max(LEVELS)})")
    return a, b


def run(args: argparse.Namespace) -> int:
    try:
        levels = _levels(args.levels)
        ruleset = parse_ruleset_id(args.ruleset)
        lexicon = load_lexicon(ruleset.lexicon)
    except (ValueError, EngineError, LexiconError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    save = None
    if args.save:
        folder = Path(args.save)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(f"error: --save {args.save}: {exc.strerror or exc}", file=sys.stderr)
            return 2

        def save(number: int, seated: tuple[int, int], outcome: GameOutcome) -> None:
            (folder / record_name(ruleset.id, args.seed, number)).write_text(
                write_gcg(series_record(outcome, seated, args.seed + number)), encoding="utf-8")

    stats = play_series(ruleset, levels, max(1, args.games), lexicon, args.seed, on_game=save)
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


def record_name(ruleset_id: str, seed: int, number: int) -> str:
    """The file name of game ``number`` (from 0) of a series from ``seed``:
    ``classic_en-seed0-game001.gcg``."""
    return f"{ruleset_id.replace('/', '_')}-seed{seed}-game{number + 1:03d}.gcg"


def series_record(outcome: GameOutcome, seated: tuple[int, int], seed: int) -> GameRecord:
    """The record of one self-play game, players named by seat and level."""
    players = [(f"bot{seat + 1}", f"Bot level {level} ({LEVELS[level]})")
               for seat, level in enumerate(seated)]
    return record_from_events(outcome.events, players,
                              title=f"selfplay: level {seated[0]} vs level {seated[1]}, seed {seed}")
