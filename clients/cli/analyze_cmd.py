"""``wordarena analyze``: every legal move of a CGP position (or the top N), best first.

    wordarena analyze --cgp "<CGP>" [--ruleset R] [--language L] [--top N] [--json]

The JSON form is stable: ``{"ruleset", "rack", "total", "moves": [...]}`` where each move is
``{"rank", "score", "position", "word", "words", "tiles": [{"square", "row", "col", "letter",
"blank"}], "breakdown"}`` (see docs/movegen.md). Errors name the field at fault and exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from wordarena.engine.analysis import check_position
from wordarena.engine.board import square_name
from wordarena.engine.errors import EngineError, InputError
from wordarena.engine.families import get_ruleset, parse_ruleset_id
from wordarena.engine.game.state import GameState
from wordarena.engine.interchange.cgp import parse_cgp, position_from_cgp
from wordarena.engine.lexicon import LexiconError, load_lexicon
from wordarena.engine.movegen import Move, describe_move, generate_moves
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.words import resolve_words


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("analyze", help="every legal move of a CGP position")
    parser.add_argument("--cgp", required=True, help="the position, as a CGP line")
    parser.add_argument("--ruleset", help="family[/language[/board]] (default: from the CGP)")
    parser.add_argument("--language", help="language of the ruleset (with --ruleset family)")
    parser.add_argument("--top", type=int, default=0, help="only the N best moves (0: all)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(func=run)


def _ruleset(args: argparse.Namespace) -> Ruleset | None:
    if not args.ruleset:
        if args.language:
            family = _cgp_family(args.cgp)
            return get_ruleset(family, args.language)
        return None
    if args.language and "/" not in args.ruleset:
        return get_ruleset(args.ruleset, args.language)
    return parse_ruleset_id(args.ruleset)


def _cgp_family(text: str) -> str:
    named = parse_cgp(text).option("ruleset")
    return named.split("/")[0] if named else "scrabble"


def load_position(args: argparse.Namespace) -> GameState:
    """The position of ``--cgp`` under ``--ruleset``/``--language``, with its lexicon."""
    ruleset = _ruleset(args)
    state = position_from_cgp(args.cgp, ruleset)
    try:
        lexicon = load_lexicon(state.ruleset.lexicon)
    except LexiconError as exc:
        raise InputError(str(exc), "lexicon") from exc
    state = state.evolve(lexicon=lexicon, check_words=True)
    check_position(state)
    return state


def move_json(state: GameState, move: Move, rank: int) -> dict[str, Any]:
    """One move as the stable JSON object of ``analyze --json``."""
    info = describe_move(state.ruleset, state.cells, move, effects=state.board_effects)
    cols = state.ruleset.board.cols
    if state.lexicon is not None and any("*" in w for w in info.words):
        resolved = resolve_words(list(info.words), state.lexicon, state.ruleset.tiles.letters)
        words = [r or w for r, w in zip(resolved, info.words, strict=True)]
    else:
        words = list(info.words)
    return {
        "rank": rank,
        "score": move.score,
        "position": info.position,
        "word": info.word,
        "words": words,
        "tiles": [
            {"square": square_name(i // cols, i % cols), "row": i // cols, "col": i % cols,
             "letter": letter, "blank": blank}
            for i, letter, blank in move.tiles
        ],
        "breakdown": info.breakdown.to_dict(),
    }


def run(args: argparse.Namespace) -> int:
    try:
        state = load_position(args)
        moves = generate_moves(state)
    except EngineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    shown = moves[: args.top] if args.top > 0 else moves
    rows = [move_json(state, m, k + 1) for k, m in enumerate(shown)]
    rack = "".join(state.racks[state.to_move])
    if args.json:
        print(json.dumps({"ruleset": state.ruleset.id, "rack": rack, "total": len(moves),
                          "moves": rows}, ensure_ascii=False))
        return 0
    print(f"{state.ruleset.id}  rack {rack}  {len(moves)} legal moves")
    for row in rows:
        new = "".join(t["letter"].lower() if t["blank"] else t["letter"] for t in row["tiles"])
        print(f"{row['rank']:>5}. {row['score']:>4}  {row['position']:<4} {row['word']:<15} "
              f"[{new}]  {' '.join(row['words'][1:])}")
    return 0
