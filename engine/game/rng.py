"""Seeded randomness: the n-th random decision of a match comes from (seed, n) alone, so a
replay from the seed makes exactly the same draws."""

from __future__ import annotations

import random


def rng_for(seed: int, counter: int) -> random.Random:
    """A fresh generator for the ``counter``-th random decision of the match ``seed``."""
    return random.Random(f"wordarena/{seed}/{counter}")
