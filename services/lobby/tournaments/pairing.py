"""Pairing methods: pure functions from standings and history to one round's pairings (no I/O).

Every method returns a list of ``Pairing``: two entrant ids (``first`` moves first in the pair's
first game), or a bye (``second`` None). Every active entrant appears in exactly one pairing.

* ``round_robin``: the circle method; everyone meets everyone once per cycle of ``n - 1`` rounds
  (``n`` rounds when ``n`` is odd: each round one entrant has the bye). A double round robin is
  two cycles, the second with the first mover swapped.
* ``swiss``: entrants ranked by standing (wins, then spread: the caller's order); one bye, when
  the count is odd, to the lowest-ranked entrant who has not had one (everyone has: the lowest);
  the rest paired top-down, each with the highest-ranked opponent not met before, backtracking
  so that no pair repeats while a repeat-free pairing exists (searched within ``SWISS_BUDGET``
  steps; past it, repeats are allowed, fewest first-found).
* ``king_of_the_hill``: 1v2, 3v4, … by standing; the last entrant has the bye when odd.
* ``elimination``: single elimination, seeded by rating (``bracket_order``: 1 meets the lowest
  seed, the top seeds get the byes of round 1); later rounds pair the survivors in bracket order.
* ``random_pairs``: a seeded shuffle, the bye to the last.
* ``manual``: the director's pairs, checked (known, active, each exactly once).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass

__all__ = [
    "SWISS_BUDGET",
    "Pairing",
    "PairingError",
    "bracket_order",
    "elimination",
    "king_of_the_hill",
    "manual",
    "pair_key",
    "random_pairs",
    "round_robin",
    "round_robin_rounds",
    "swiss",
]

#: Steps of the Swiss backtracking search before it settles for a pairing with repeats.
SWISS_BUDGET = 200_000


class PairingError(ValueError):
    """Pairings that cannot be made; ``field`` names the input at fault."""

    def __init__(self, message: str, field: str = "pairings") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True, slots=True)
class Pairing:
    """Two entrants who play each other, or a bye (``second`` None)."""

    first: str
    second: str | None = None

    @property
    def bye(self) -> bool:
        """True for a bye."""
        return self.second is None

    @property
    def entrants(self) -> tuple[str, ...]:
        """The one or two entrants of the pairing."""
        return (self.first,) if self.second is None else (self.first, self.second)


def pair_key(a: str, b: str) -> frozenset[str]:
    """The unordered key of a pair (for the history of who met whom)."""
    return frozenset((a, b))


def round_robin_rounds(n: int, double: bool = False) -> int:
    """How many rounds a (double) round robin of ``n`` entrants takes."""
    per_cycle = n - 1 if n % 2 == 0 else n
    return per_cycle * (2 if double else 1)


def round_robin(entrants: Sequence[str], round_index: int, double: bool = False) -> list[Pairing]:
    """Round ``round_index`` (0-based) of a round robin over ``entrants`` in seed order.

    The circle method: the first entrant stays put, the others rotate one place a round. In a
    double round robin the second cycle repeats the first with the first mover swapped; past the
    last round the cycles repeat."""
    _check_distinct(entrants)
    slots: list[str | None] = list(entrants)
    if len(slots) % 2:
        slots.append(None)
    n = len(slots)
    if n < 2:
        return [Pairing(e) for e in entrants]
    cycle = n - 1
    r = round_index % (2 * cycle if double else cycle)
    swap = r >= cycle
    r %= cycle
    rotated = [slots[0], *(slots[1:][-r:] + slots[1:][:-r] if r else slots[1:])]
    out: list[Pairing] = []
    for i in range(n // 2):
        a, b = rotated[i], rotated[n - 1 - i]
        if a is None or b is None:
            out.append(Pairing(a if a is not None else b))  # type: ignore[arg-type]
            continue
        if (i == 0 and r % 2) != swap:  # the fixed entrant alternates who moves first
            a, b = b, a
        out.append(Pairing(a, b))
    return out


def swiss(
    ranked: Sequence[str],
    met: Collection[frozenset[str]],
    had_bye: Collection[str] = (),
    budget: int = SWISS_BUDGET,
) -> list[Pairing]:
    """A Swiss round over ``ranked`` (best standing first): see the module docstring."""
    _check_distinct(ranked)
    met_set = set(met)
    if len(ranked) % 2 == 0:
        pairs = _swiss_pairs(list(ranked), met_set, budget) or _greedy(list(ranked), met_set)
        return pairs
    eligible = [e for e in reversed(ranked) if e not in had_bye] or [ranked[-1]]
    steps = budget
    for bye in eligible:  # the lowest eligible first; another only if that forces a repeat
        rest = [e for e in ranked if e != bye]
        pairs = _swiss_pairs(rest, met_set, steps // len(eligible) or 1)
        if pairs is not None:
            return [*pairs, Pairing(bye)]
    rest = [e for e in ranked if e != eligible[0]]
    return [*_greedy(rest, met_set), Pairing(eligible[0])]


def _swiss_pairs(ranked: list[str], met: set[frozenset[str]], budget: int) -> list[Pairing] | None:
    """Repeat-free pairs, top-down with backtracking; None when none exist (or the budget ran out)."""
    steps = [budget]

    def search(left: list[str]) -> list[Pairing] | None:
        if not left:
            return []
        top, rest = left[0], left[1:]
        for i, opp in enumerate(rest):
            steps[0] -= 1
            if steps[0] < 0:
                return None
            if pair_key(top, opp) in met:
                continue
            tail = search(rest[:i] + rest[i + 1 :])
            if tail is not None:
                return [Pairing(top, opp), *tail]
        return None

    return search(ranked)


def _greedy(ranked: list[str], met: set[frozenset[str]]) -> list[Pairing]:
    """Top-down pairs preferring an opponent not met before (repeats allowed)."""
    left = list(ranked)
    out: list[Pairing] = []
    while left:
        top = left.pop(0)
        i = next((j for j, o in enumerate(left) if pair_key(top, o) not in met), 0)
        out.append(Pairing(top, left.pop(i)))
    return out


def king_of_the_hill(ranked: Sequence[str]) -> list[Pairing]:
    """1v2, 3v4, … by standing; the last has the bye when the count is odd."""
    _check_distinct(ranked)
    out = [Pairing(ranked[i], ranked[i + 1]) for i in range(0, len(ranked) - 1, 2)]
    if len(ranked) % 2:
        out.append(Pairing(ranked[-1]))
    return out


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order for a bracket of ``size`` (a power of two):
    1 v size, and the top two seeds can meet only in the final."""
    order = [1]
    while len(order) < size:
        n = len(order) * 2
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


def elimination(seeded: Sequence[str], eliminated: Collection[str], round_index: int) -> list[Pairing]:
    """Round ``round_index`` (0-based) of a single elimination over ``seeded`` (best rating
    first) with ``eliminated`` out. Round 0 fills a bracket of the next power of two (the empty
    slots are byes for the top seeds); later rounds pair the survivors in bracket order."""
    _check_distinct(seeded)
    size = 1
    while size < len(seeded):
        size *= 2
    slots = [seeded[s - 1] if s <= len(seeded) else None for s in bracket_order(size)]
    if round_index == 0:
        out: list[Pairing] = []
        for a, b in zip(slots[::2], slots[1::2], strict=True):
            if a is not None:
                out.append(Pairing(a, b))
            elif b is not None:
                out.append(Pairing(b))
        return out
    alive = [e for e in slots if e is not None and e not in eliminated]
    if len(alive) < 2:
        return []
    if len(alive) % 2:
        raise PairingError("the previous elimination round is not finished", "round")
    return [Pairing(alive[i], alive[i + 1]) for i in range(0, len(alive), 2)]


def random_pairs(entrants: Sequence[str], seed: int) -> list[Pairing]:
    """Pairs from a shuffle seeded by ``seed`` (the same seed, the same pairs); the last of the
    shuffle has the bye when the count is odd."""
    _check_distinct(entrants)
    order = sorted(entrants)
    random.Random(seed).shuffle(order)
    return king_of_the_hill(order)


def manual(pairs: Sequence[tuple[str, str | None]], active: Collection[str]) -> list[Pairing]:
    """The director's pairs (second None = a bye), checked: every id an active entrant, every
    active entrant exactly once."""
    seen: set[str] = set()
    out: list[Pairing] = []
    for i, (a, b) in enumerate(pairs):
        for who in (a, b):
            if who is None:
                continue
            if who not in active:
                raise PairingError(f"pairings[{i}]: {who!r} is not an active entrant", f"pairings[{i}]")
            if who in seen:
                raise PairingError(f"pairings[{i}]: {who!r} is paired twice", f"pairings[{i}]")
            seen.add(who)
        out.append(Pairing(a, b))
    missing = sorted(set(active) - seen)
    if missing:
        raise PairingError(f"every active entrant must be paired; missing: {', '.join(missing)}")
    return out


def _check_distinct(entrants: Sequence[str]) -> None:
    if len(set(entrants)) != len(entrants):
        raise PairingError("an entrant is listed twice", "entrants")
