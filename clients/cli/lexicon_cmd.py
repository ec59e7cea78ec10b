"""``wordarena lexicon build|info|check``: compile word lists, inspect and query lexicons.

``build`` compiles raw word lists of a language into a lexicon file and prints what it kept
and rejected (by reason, with examples). ``info`` and ``check`` take a lexicon name (``en``,
``de`` …) or the path of a compiled ``.dawg`` file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wordarena.engine.lexicon import (
    LANGUAGES,
    Lexicon,
    LexiconError,
    available_lexicons,
    build_lexicon,
    load_lexicon,
    normalize_word,
)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``lexicon`` and its sub-commands on the main CLI's subparsers."""
    parser = subparsers.add_parser("lexicon", help="build, inspect and query lexicons")
    sub = parser.add_subparsers(dest="lexicon_command", required=True, metavar="ACTION")

    build = sub.add_parser("build", help="compile word lists into a lexicon file")
    build.add_argument("--language", required=True, choices=LANGUAGES)
    build.add_argument("--additions", type=Path, help="extra words, one per line (# comments)")
    build.add_argument("--output", required=True, type=Path, help="the .dawg file to write")
    build.add_argument("wordlists", nargs="+", type=Path, metavar="WORDLIST")
    build.set_defaults(func=run)

    info = sub.add_parser("info", help="language, size and shape of a lexicon")
    info.add_argument("lexicon", help=f"a name ({', '.join(available_lexicons())}) or a path")
    info.set_defaults(func=run)

    check = sub.add_parser("check", help="are these words in the lexicon?")
    check.add_argument("lexicon", help="a name or a path to a compiled lexicon")
    check.add_argument("words", nargs="+", metavar="WORD")
    check.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run a ``lexicon`` sub-command: 0 ok, 1 a word not found (check), 2 bad input."""
    try:
        if args.lexicon_command == "build":
            return _build(args)
        lexicon = _open(args.lexicon)
        if args.lexicon_command == "info":
            return _info(lexicon)
        return _check(lexicon, args.words)
    except LexiconError as exc:
        print(f"wordarena lexicon {args.lexicon_command}: error: {exc}", file=sys.stderr)
        return 2


def _build(args: argparse.Namespace) -> int:
    report = build_lexicon(args.wordlists, args.language, args.additions, output=args.output)
    print(report.summary())
    return 0


def _open(name_or_path: str) -> Lexicon:
    if name_or_path in available_lexicons():
        return load_lexicon(name_or_path)
    return Lexicon.load(name_or_path)


def _info(lexicon: Lexicon) -> int:
    print(f"language: {lexicon.language}")
    print(f"alphabet: {''.join(lexicon.alphabet)}")
    print(f"words:    {len(lexicon)}")
    print(f"nodes:    {lexicon.node_count}")
    print(f"edges:    {lexicon.edge_count}")
    return 0


def _check(lexicon: Lexicon, words: list[str]) -> int:
    missing = 0
    for raw in words:
        word = normalize_word(raw, lexicon.language, case_marks_proper=False)
        found = word is not None and word in lexicon
        missing += not found
        print(f"{word or raw}\t{'valid' if found else 'not a word'}")
    return 1 if missing else 0
