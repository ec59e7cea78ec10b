"""Leave values: what the tiles a player keeps are worth, per ruleset family.

A leave's value is the sum of its tiles' values, plus a penalty for each repeated tile and a
penalty for an unbalanced vowel/consonant mix. The numbers are derived by self-play (see
``engine.bots.derive`` and docs/bots.md) and shipped as ``data/leaves-<family>.json``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from wordarena.engine.tiles import is_action

VOWELS = frozenset("AEIOUÄÖÜĄĘÓ")


@dataclass(frozen=True)
class LeaveTable:
    """Per-token values and the shape penalties of one family."""

    family: str
    values: dict[str, float] = field(default_factory=dict)
    duplicate: float = -2.0  # per extra copy of a letter kept
    balance: float = -1.0  # per vowel (or consonant) beyond a balanced leave
    games: int = 0  # self-play games the values were derived from
    scale: float = 1.0  # weight of the leave against the score (tuned by self-play)

    def value(self, tiles: Iterable[str]) -> float:
        """The equity of keeping ``tiles`` (action tiles are worth 0 here)."""
        kept = [t for t in tiles if not is_action(t)]
        if not kept:
            return 0.0
        total = sum(self.values.get(t, 0.0) for t in kept)
        counts = Counter(kept)
        total += self.duplicate * sum(n - 1 for n in counts.values() if n > 1)
        vowels = sum(1 for t in kept if t in VOWELS)
        consonants = sum(1 for t in kept if t not in VOWELS and len(t) == 1 and t.isalpha())
        total += self.balance * max(0, abs(vowels - consonants) - 1)
        return total * self.scale

    def to_json(self) -> dict[str, object]:
        return {"family": self.family, "games": self.games, "duplicate": self.duplicate,
                "balance": self.balance, "scale": self.scale, "values": self.values}


@cache
def leave_table(family: str) -> LeaveTable:
    """The shipped leave table of ``family`` (an empty table when none is shipped)."""
    path = resources.files("wordarena.engine.bots") / "data" / f"leaves-{family}.json"
    if not path.is_file():
        return LeaveTable(family)
    data = json.loads(path.read_text(encoding="utf-8"))
    return LeaveTable(family, {str(k): float(v) for k, v in data["values"].items()},
                      float(data["duplicate"]), float(data["balance"]), int(data.get("games", 0)),
                      float(data.get("scale", 1.0)))
