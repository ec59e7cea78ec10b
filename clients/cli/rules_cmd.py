"""``wordarena rules list|describe``: the rulesets a client can pick, and what each one is."""

from __future__ import annotations

import argparse
import json

from wordarena.engine.errors import InputError
from wordarena.engine.rulesets import get_ruleset, list_rulesets


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("rules", help="list and describe rulesets")
    sub = parser.add_subparsers(dest="rules_command", required=True)
    lister = sub.add_parser("list", help="every family, language and board")
    lister.add_argument("--json", action="store_true")
    lister.set_defaults(func=_list)
    describe = sub.add_parser("describe", help="board, tiles and policies of one ruleset")
    describe.add_argument("family")
    describe.add_argument("--language", default="en")
    describe.add_argument("--board")
    describe.set_defaults(func=_describe)


def _list(args: argparse.Namespace) -> int:
    rows = list_rulesets()
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for row in rows:
        print(f"{row['family']:<11} {row['language']:<6} boards: {', '.join(row['boards'])}")
    return 0


def _describe(args: argparse.Namespace) -> int:
    try:
        ruleset = get_ruleset(args.family, args.language, args.board)
    except InputError as exc:
        print(f"error: {exc}")
        return 2
    print(json.dumps(ruleset.describe(), indent=1, ensure_ascii=False))
    return 0
