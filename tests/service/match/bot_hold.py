"""A bot worker's move held until the test lets it go: ``BotWorkers(think=partial(held, folder))``.

For each move the worker writes ``started-<its pid>-<a clock>`` in ``folder``, holding the level
and think time it was asked for, and waits for a file ``release`` there; then it thinks as a
worker does. It runs in the worker process, so it must be importable there (this module, by
name)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from wordarena.engine.game import Action, GameState
from wordarena.services.match import botprocess


def held(folder: str, state: GameState, seat: int, level: int, think_ms: int) -> Action:
    """``botprocess.choose``, once the test has created ``folder/release``."""
    where = Path(folder)
    (where / f"started-{os.getpid()}-{time.monotonic_ns()}").write_text(f"{level} {think_ms}")
    deadline = time.monotonic() + 60
    while not (where / "release").exists():
        if time.monotonic() > deadline:
            raise TimeoutError("the test never released the bot")
        time.sleep(0.01)
    return botprocess.choose(state, seat, level, think_ms)


def started(folder: Path) -> list[tuple[int, str]]:
    """The held moves started so far: (the worker's pid, "level think_ms")."""
    return [(int(p.name.split("-")[1]), p.read_text()) for p in sorted(folder.glob("started-*"))]


def lexicon_was_loaded(state: GameState, seat: int, level: int, think_ms: int) -> Action:
    """A stand-in bot that tells whether its worker had loaded the match's lexicon ahead of the
    move (``botprocess.WARMED``): it passes if so, else it exchanges nothing (a move the server
    refuses)."""
    from wordarena.engine.game import Exchange, Pass

    return Pass(seat) if state.ruleset.lexicon in botprocess.WARMED else Exchange(seat, ())
