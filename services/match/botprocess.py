"""What runs inside a bot worker process (``botworkers``): a bot's choice and the worker's own
upkeep, importing the engine only.

The forkserver preloads this module, so it holds the engine and nothing of the server (gRPC,
SQLAlchemy, structlog): 24 MB resident instead of 83. A worker itself still imports the server's
main module, as ``multiprocessing`` has every child of a forkserver or of ``spawn`` do (the
server's console script, run under another name): a level-6 worker in classic held about 100 MB
resident, 75 MB proportional (``bench/bot_latency.py`` prints it).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from wordarena.engine.bots import LEVELS, Bot
from wordarena.engine.bots.simulation import DEFAULT_BUDGET_S, SimSettings
from wordarena.engine.game import Action, GameState
from wordarena.engine.lexicon import load_lexicon

T = TypeVar("T")

#: How much lower a worker's CPU priority is than the server's (``os.nice``).
NICENESS = 5

#: The lexicons this worker loaded ahead of any work (``load``).
WARMED: set[str] = set()


def choose(state: GameState, seat: int, level: int, think_ms: int = 0) -> Action:
    """The action of the bot of ``level`` sitting at ``seat`` (the seat to move, or the seat that
    must accept or check a pending play) in ``state``; ``think_ms`` is a level-6 bot's time
    budget (0 = ``DEFAULT_BUDGET_S``)."""
    if seat != state.to_move:
        raise ValueError(f"seat {seat} is not to move (seat {state.to_move} is)")
    lvl = level if level in LEVELS else min(max(level, min(LEVELS)), max(LEVELS))
    sim = SimSettings(budget_s=think_ms / 1000 if think_ms else DEFAULT_BUDGET_S)
    bot = Bot(lvl, seed=(state.seed * 31 + seat) * 1009 + state.turn, sim=sim)
    return bot.choose(state)


def in_worker(fn: Callable[..., T], state: GameState, *args: Any) -> T:
    """``fn(state, *args)`` with the state's lexicon, which travels by name, loaded here."""
    return fn(state.evolve(lexicon=load_lexicon(state.ruleset.lexicon)), *args)


def load(lexicon: str) -> None:
    """Load ``lexicon`` ahead of any work (``BotWorkers.warm``)."""
    load_lexicon(lexicon)
    WARMED.add(lexicon)


def start(server_pid: int) -> None:
    """A worker's initializer: think at a lower priority than the server (``NICENESS``), and end
    when the server does (``watch_server``)."""
    os.nice(NICENESS)
    threading.Thread(target=watch_server, args=(server_pid,), name="server-watch", daemon=True).start()


def watch_server(server_pid: int, every_s: float = 0.5) -> None:
    """Exit this worker once the server process is gone. A worker's parent is the forkserver,
    which lives as long as its workers, and the pool's pipes do not close either (the worker
    holds both ends of its own queue), so only the server's pid tells."""
    while True:
        time.sleep(every_s)
        try:
            os.kill(server_pid, 0)
        except (ProcessLookupError, PermissionError):  # gone (its pid another user's now)
            os._exit(0)
