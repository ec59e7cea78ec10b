"""The CLI's bot level arguments: 1..6, or ``hardest`` for the highest level (6, simulation)."""

from __future__ import annotations

import argparse

import pytest

from wordarena.clients.cli.common import bot_level
from wordarena.engine.bots import LEVELS


def test_hardest_is_the_highest_level_and_numbers_are_checked() -> None:
    assert bot_level("hardest") == bot_level(" Hardest ") == max(LEVELS) == 6
    assert [bot_level(str(n)) for n in range(1, 7)] == [1, 2, 3, 4, 5, 6]
    for bad in ("0", "7", "strong", ""):
        with pytest.raises(argparse.ArgumentTypeError, match=r"1\.\.6 or hardest"):
            bot_level(bad)


def test_the_table_commands_take_hardest() -> None:
    from wordarena.clients.cli.main import build_parser

    parser = build_parser()
    args = parser.parse_args(["table", "create", "--bot", "hardest"])
    assert args.bot == [6]
    assert parser.parse_args(["table", "bot", "T1", "--level", "hardest"]).level == 6
    with pytest.raises(SystemExit):
        parser.parse_args(["table", "bot", "T1", "--level", "7"])


def test_table_create_sets_the_bots_think_time() -> None:
    from wordarena.clients.cli.main import build_parser
    from wordarena.clients.cli.table_cmd import settings_from_args

    args = build_parser().parse_args(["table", "create", "--bot", "hardest", "--bot-think", "800"])
    settings = settings_from_args(args)
    assert settings.bot_think_ms == 800
    assert [(b.seat, b.bot_level) for b in settings.bots] == [(1, 6)]
