"""``wordarena``: the command-line entry point.

Sub-commands live in ``clients/cli/*_cmd.py`` modules, each exposing ``add_parser(subparsers)``
which registers its parser(s) and sets ``func`` (``args -> exit code``). They are discovered
here, so adding a command is adding a module.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

import wordarena.clients.cli as cli_package


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wordarena",
        description="wordarena: crossword-board word games (classic, wordtiles, warofwords, "
        "scrabble) — play, analyse, check records, run the servers.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(cli_package.__path__), key=lambda m: m.name):
        if info.name.endswith("_cmd"):
            module = importlib.import_module(f"wordarena.clients.cli.{info.name}")
            module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (0 ok, 1 findings/refusal, 2 usage error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
