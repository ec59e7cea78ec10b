"""What the networked sub-commands share: ``--lobby`` / ``--json`` options, running a command with
errors turned into plain words and exit codes, and printing results."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from rich.console import Console

from wordarena.clients.cli.client import (
    EXIT_OK,
    EXIT_UNREACHABLE,
    Client,
    ClientError,
    default_lobby,
    to_dict,
)
from wordarena.clients.cli.safe import safe_json, safe_text

__all__ = ["EXIT_OK", "Client", "ClientError", "add_common", "console", "emit", "json_text", "run",
           "to_dict"]

EPILOG = ("Exit codes: 0 ok, 1 refused by the rules (or not found / not allowed), 2 usage or "
          "input error, 3 server unreachable.")


def add_common(parser: argparse.ArgumentParser, *, json_flag: bool = True) -> None:
    """``--lobby`` (env WORDARENA_LOBBY) and ``--json`` on a sub-command."""
    parser.add_argument("--lobby", default=None, metavar="HOST:PORT",
                        help=f"lobby address (env WORDARENA_LOBBY; default {default_lobby()})")
    if json_flag:
        parser.add_argument("--json", action="store_true", help="machine-readable JSON output")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait per call")
    parser.epilog = EPILOG


def console(stderr: bool = False) -> Console:
    """A rich console (colours only on a terminal)."""
    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def emit(args: argparse.Namespace, data: Any, text: str | Any | None = None) -> None:
    """Print ``data`` as JSON with ``--json``, else ``text`` (a string or a rich renderable)."""
    if getattr(args, "json", False):
        if hasattr(data, "DESCRIPTOR"):
            data = to_dict(data)
        print(json_text(data), flush=True)
    elif text is not None:
        if isinstance(text, str):
            print(safe_text(text, keep_newlines=True), flush=True)
        else:
            console().print(text)


def json_text(data: Any) -> str:
    """One JSON document on one line; characters that could act on a terminal are escaped."""
    return safe_json(json.dumps(data, ensure_ascii=False, indent=None, sort_keys=False))


def run(fn: Callable[[argparse.Namespace, Client], int | None]) -> Callable[[argparse.Namespace], int]:
    """Wrap a command body: make the client, turn ClientError into a message and an exit code."""

    def command(args: argparse.Namespace) -> int:
        try:
            client = Client(getattr(args, "lobby", None), timeout=getattr(args, "timeout", 10.0))
        except Exception as exc:  # pragma: no cover - config unreadable in odd ways
            print(f"error: {exc}", file=sys.stderr)
            return 2
        try:
            return int(fn(args, client) or EXIT_OK)
        except ClientError as exc:
            report_error(args, exc)
            return exc.exit_code
        finally:
            client.close()

    return command


def report_error(args: argparse.Namespace, exc: ClientError) -> None:
    """Show a ClientError: JSON on stdout with ``--json`` (and the words on stderr)."""
    if getattr(args, "json", False):
        print(json_text(exc.to_json()), flush=True)
    prefix = "unreachable" if exc.exit_code == EXIT_UNREACHABLE else "error"
    print(f"{prefix}: {exc.message}", file=sys.stderr, flush=True)


HARDEST = "hardest"


def bot_level(text: str) -> int:
    """An argparse type for a bot level: a number of ``engine.bots.LEVELS`` or ``hardest`` (the
    highest level, 6: simulation)."""
    from wordarena.engine.bots import HARDEST as HARDEST_LEVEL
    from wordarena.engine.bots import LEVELS

    if text.strip().lower() == HARDEST:
        return HARDEST_LEVEL
    try:
        level = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a bot level (1..{max(LEVELS)} or "
                                         f"{HARDEST})") from None
    if level not in LEVELS:
        raise argparse.ArgumentTypeError(f"{level} is not a bot level (1..{max(LEVELS)} or "
                                         f"{HARDEST})")
    return level
