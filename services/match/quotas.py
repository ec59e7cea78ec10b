"""How much analysis a player may ask of a match server, and how many simulations may wait for
its bot workers.

Hindsight and Word Strength run the move generator over a whole rack (milliseconds of the
analysis threads); Hindsight by simulation plays out candidates over dozens of worlds (up to a
second of a bot worker, in the queue the bots' own moves wait in). A call costs the client
nothing, so without a limit one player could keep the analysis threads busy for everyone and
put every bot's next move behind a crowd of simulations. So:

* each player has a token bucket (``AnalysisLimits.rate`` a second after ``burst``, the
  ``--analysis-rate`` / ``--analysis-burst`` flags): a Hindsight or Word Strength call takes one
  token, a simulated Hindsight ``SIMULATION_COST`` more;
* at most ``SIMULATIONS_PER_WORKER`` simulations per bot worker are in flight (waiting or
  running) in the server at once, whoever asks.

A call over either limit is refused before any work, with RESOURCE_EXHAUSTED and a
``google.rpc.RetryInfo``; a refusal takes nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from wordarena.services.common.errors import too_many
from wordarena.services.common.ratelimit import Buckets, TokenBucket
from wordarena.services.match import wallclock

#: What a simulated Hindsight takes of a player's analysis budget beyond the static one.
SIMULATION_COST = 5
#: Simulations in flight per bot worker, at most: a bot's next move waits behind no more.
SIMULATIONS_PER_WORKER = 2
#: How long a client refused for busy workers is told to wait.
BUSY_RETRY_S = 1.0


@dataclass(frozen=True)
class AnalysisLimits:
    """Per player: analysis calls a second after a burst (``--analysis-rate``, ``--analysis-burst``)."""

    rate: float = 2.0
    burst: int = 20


class AnalysisQuota:
    """The limits of one match server (module doc)."""

    def __init__(self, limits: AnalysisLimits, bot_workers: Callable[[], int]) -> None:
        self.limits = limits
        self.buckets = Buckets(TokenBucket(limits.rate, limits.burst))
        self.bot_workers = bot_workers  # the server's bot workers now
        self.simulations = 0

    @property
    def max_simulations(self) -> int:
        """Simulations in flight at most."""
        return SIMULATIONS_PER_WORKER * max(1, self.bot_workers())

    @contextlib.contextmanager
    def admit(self, player_id: str, simulate: bool = False) -> Iterator[None]:
        """One analysis call of ``player_id`` (with a simulation: ``simulate``, which holds a
        place among those in flight until the call ends), or RESOURCE_EXHAUSTED."""
        if simulate and self.simulations >= self.max_simulations:
            raise too_many(f"the server's simulations are all busy ({self.max_simulations} in "
                           f"flight); retry in {BUSY_RETRY_S:g}s", BUSY_RETRY_S)
        cost = 1 + (SIMULATION_COST if simulate else 0)
        wait = self.buckets.take(player_id, wallclock.monotonic(), cost)
        if wait is not None:
            raise too_many(f"too much analysis asked: at most {self.limits.rate:g} a second after "
                           f"{self.limits.burst} (a simulation counts {SIMULATION_COST + 1}); "
                           f"retry in {wait:.1f}s", wait)
        self.simulations += simulate
        try:
            yield
        finally:
            self.simulations -= simulate
