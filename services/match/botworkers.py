"""Bot workers: the processes on which bot seats think, and Hindsight simulates.

A level-6 bot simulates in Python for up to its think time (1.5 s by default). On a thread of the
match server it holds the GIL that the event loop needs for every other match: one thinking
thread took the event loop's p95 lag from 7 to 12 ms, two threads to 51 ms (bench/results/bots-history.md), so
the server could let only one bot think at a time and bot moves queued behind each other. In
worker processes they think side by side, one a core, and the event loop keeps its GIL. Hindsight
"best by simulation" (``analysis.simulated_plays``: 48 worlds, up to a second of Python) runs
here too (``run``), in the same queue as the bots' moves.

- At most ``workers`` bots think at once (by default the machine's cores, at most
  ``DEFAULT_WORKERS_MAX``); more moves wait in the pool's queue.
- The workers run at a lower CPU priority (``botprocess.NICENESS``): when the cores are busy the
  event loop, which answers every match, comes first, and a bot thinks less within its
  wall-clock think time rather than slowing the answers.
- The workers start from a ``forkserver``: a clean process, started once, that imports the
  worker's side (``botprocess``: the engine, nothing of the server) and forks each worker. A
  worker is never a fork of the server with its gRPC threads, and a new one does not import
  everything again.
- A match with a bot seat warms the workers when it is created (``warm``): they start and load
  its lexicon while the player thinks, not in the bot's first move (up to 4 s on a busy machine).
- A state travels without its lexicon (``GameState.lexicon``: a compiled word graph, not data to
  copy per move); the worker loads the lexicon by name, once (``load_lexicon`` caches it), and
  gives the state back its lexicon before the work (``botprocess.in_worker``).
- A worker that dies (killed, out of memory) breaks the pool. The move that found it broken gets
  a new pool and is asked again, once.
- A worker exits when the server process is gone, even after ``kill -9``
  (``botprocess.watch_server``), and at once when the server stops (``shutdown``).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from wordarena.engine.game import Action, GameState
from wordarena.services.common import logs
from wordarena.services.match import botprocess, metrics

log = logs.get_logger(__name__)
T = TypeVar("T")

#: The default number of workers is the machine's cores, at most this many: each worker holds
#: the engine and the lexicons it has loaded.
DEFAULT_WORKERS_MAX = 4

_preload = threading.Lock()


def default_workers() -> int:
    """The bot workers a server starts when it is not told: the cores it may run on, at most
    ``DEFAULT_WORKERS_MAX`` (a container's CPU limit is not seen: set ``--bot-workers`` there)."""
    return max(1, min(DEFAULT_WORKERS_MAX, len(os.sched_getaffinity(0))))


def _context() -> multiprocessing.context.ForkServerContext:
    ctx = multiprocessing.get_context("forkserver")
    with _preload:  # the forkserver imports the worker's side (the engine) before its first fork
        ctx.set_forkserver_preload([botprocess.__name__])
    return ctx


class BotWorkers:
    """A bounded pool of bot processes, made when the first match with a bot seat is created
    (``warm``) or a bot first moves (a server without bot seats starts none). ``think``: what a
    worker runs for a move (``botprocess.choose``; a picklable stand-in in tests)."""

    def __init__(
        self, workers: int = 0, think: Callable[[GameState, int, int, int], Action] = botprocess.choose
    ) -> None:
        self.workers = workers if workers > 0 else default_workers()
        self.think = think
        self._pool: ProcessPoolExecutor | None = None
        self._closed = False
        self._warmed: set[str] = set()

    def _executor(self) -> ProcessPoolExecutor:
        if self._closed:
            raise RuntimeError("the bot workers are shut down")
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=_context(),
                                             initializer=botprocess.start, initargs=(os.getpid(),))
        return self._pool

    def warm(self, lexicon: str) -> None:
        """Start the workers and load ``lexicon`` in them, without waiting (once per lexicon; a
        failure is left for the move that needs it to report)."""
        if self._closed or lexicon in self._warmed:
            return
        self._warmed.add(lexicon)
        try:
            pool = self._executor()
            for _ in range(self.workers):  # each submit starts a worker while none is idle
                pool.submit(botprocess.load, lexicon)
        except BrokenProcessPool:
            self._warmed.discard(lexicon)

    async def choose(self, state: GameState, seat: int, level: int, think_ms: int) -> Action:
        """The action of the bot of ``level`` at ``seat`` (``botprocess.choose``), thought out in a
        worker process."""
        return await self.run("bot", self.think, state, seat, level, think_ms)

    async def run(self, use: str, fn: Callable[..., T], state: GameState, *args: Any) -> T:
        """``fn(state, *args)`` in a worker process (``fn`` a module-level function, ``args`` and
        the answer picklable); ``use`` labels the ``wordarena_movegen_seconds`` histogram (the
        wait for a worker included)."""
        portable = state.evolve(lexicon=None)
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            pool = self._executor()
            try:
                with metrics.MOVEGEN_SECONDS.labels(use).time():
                    return await loop.run_in_executor(pool, botprocess.in_worker, fn, portable, *args)
            except BrokenProcessPool:
                log.warning("a bot worker died; starting new ones", attempt=attempt)
                if self._pool is pool:
                    self._pool = None
                    self._warmed.clear()
                    pool.shutdown(wait=False, cancel_futures=True)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def shutdown(self) -> None:
        """Stop the workers at once: queued moves are dropped and a move being thought out is cut
        short (its worker ended), so the server's process exits without waiting for it (the
        interpreter joins the pool at exit: up to a bot's think time, 30 s at most)."""
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is not None:
            workers = list((pool._processes or {}).values())  # no public way before Python 3.14
            pool.shutdown(wait=False, cancel_futures=True)
            for worker in workers:
                worker.terminate()
