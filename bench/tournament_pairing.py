"""Tournament pairing benchmark: a Swiss of N entrants over R rounds with random results.

Prints, for each field size, the median and worst time to pair one round (standings included),
and how many pairs repeated (a repeat is paired only when no repeat-free pairing was found).
Run: ``.venv/bin/python bench/tournament_pairing.py``.
"""

from __future__ import annotations

import random
import statistics
import time

from wordarena.services.lobby.tournaments.pairing import pair_key, swiss
from wordarena.services.lobby.tournaments.ranking import GameResult, Side, rank_entrants


def run(n: int, rounds: int, seed: int = 1) -> tuple[list[float], int]:
    """Times of each round's pairing and the number of repeated pairs."""
    rng = random.Random(seed)
    entrants = [(f"e{i:03d}", 1200.0 + rng.random() * 800) for i in range(n)]
    games: list[GameResult] = []
    met: set[frozenset[str]] = set()
    byes: set[str] = set()
    times: list[float] = []
    repeats = 0
    for _ in range(rounds):
        t0 = time.perf_counter()
        ranked = [s.entrant_id for s in rank_entrants(entrants, games)]
        pairs = swiss(ranked, met, byes)
        times.append(time.perf_counter() - t0)
        for p in pairs:
            if p.second is None:
                byes.add(p.first)
                games.append(GameResult(p.first, None))
                continue
            key = pair_key(p.first, p.second)
            repeats += key in met
            met.add(key)
            a, b = rng.randint(250, 500), rng.randint(250, 500)
            side = Side.WIN if a > b else Side.LOSS if a < b else Side.TIE
            games.append(GameResult(p.first, p.second, a, b, side))
    return times, repeats


def main() -> None:
    """Prints one line per field size."""
    for n, rounds in ((8, 7), (12, 11), (16, 5), (64, 8), (255, 10), (256, 12)):
        times, repeats = run(n, rounds)
        print(
            f"swiss {n:3d} entrants x {rounds:2d} rounds: median {statistics.median(times) * 1e3:7.2f} ms, "
            f"worst {max(times) * 1e3:7.2f} ms per round, repeated pairs {repeats}"
        )


if __name__ == "__main__":
    main()
