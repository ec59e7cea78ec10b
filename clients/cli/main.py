"""``wordarena``: the command-line entry point.

Sub-commands live in ``clients/cli/*_cmd.py`` modules, each exposing ``add_parser(subparsers)``
which registers its parser(s) and sets ``func`` (``args -> exit code``). :data:`COMMANDS` names the
module of each command, so that a run imports only the module of the command it runs: building
every parser would import gRPC, protobuf and rich for ``wordarena analyze`` too (about 0.3 s of
the 0.45 s that command took). Without a known command (``--help``, a typo) every module is
loaded, so the full list and argparse's suggestions stay. A unit test checks the table against
what the modules register, so adding a command is adding a module and its line here.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Iterable, Sequence

import wordarena.clients.cli as cli_package

# command (and alias) -> the *_cmd module that registers it
COMMANDS: dict[str, str] = {
    "analyze": "analyze_cmd",
    "gcg": "gcg_cmd",
    "lexicon": "lexicon_cmd",
    **dict.fromkeys(
        (
            "move",
            "pass",
            "swap",
            "resign",
            "accept",
            "check",
            "leave",
            "state",
            "stream",
            "bag",
            "preview",
            "hindsight",
            "strength",
            "chat",
            "log",
            "kick",
            "define",
        ),
        "match_cmd",
    ),
    "play": "play_cmd",
    "watch": "play_cmd",
    "record": "records_cmd",
    "player-record": "records_cmd",
    "stats": "records_cmd",
    "replay": "replay_cmd",
    "rules": "rules_cmd",
    "selfplay": "selfplay_cmd",
    "serve": "serve_cmd",
    **dict.fromkeys(("login", "whoami", "table", "quickmatch", "matches", "leaderboard"), "table_cmd"),
    "tournament": "tournament_cmd",
}


def command_modules() -> list[str]:
    """Every ``*_cmd`` module of the CLI package, by name."""
    return sorted(
        info.name for info in pkgutil.iter_modules(cli_package.__path__) if info.name.endswith("_cmd")
    )


def build_parser(modules: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The CLI's parser, with the sub-commands of ``modules`` (default: every ``*_cmd``)."""
    parser = argparse.ArgumentParser(
        prog="wordarena",
        description="wordarena: crossword-board word games (classic, wordtiles, warofwords, "
        "scrabble) — play, analyse, check records, run the servers.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in command_modules() if modules is None else modules:
        module = importlib.import_module(f"wordarena.clients.cli.{name}")
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (0 ok, 1 findings/refusal, 2 usage error)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # the top-level parser has no options of its own but --help, so a command comes first
    module = COMMANDS.get(argv[0]) if argv else None
    parser = build_parser(None if module is None else [module])
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
