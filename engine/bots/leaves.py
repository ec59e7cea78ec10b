"""Leave values: what the tiles a player keeps are worth, per ruleset family and language.

A leave's value is the sum of its tiles' values, plus a value for each extra copy of a tile
(per tile where the self-play data measured one — two I's cost more than two E's —, else one
penalty for every tile), a value for each pair of different tiles kept together (Q with U,
a consonant with a vowel …; when the table has them) and a penalty for an unbalanced
vowel/consonant mix. The numbers are
derived by self-play (see ``training.derive_leaves``, ``training.leavefit`` and docs/bots.md)
and shipped as ``data/leaves-<family>-<language>.json``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from wordarena.engine.tiles import is_action, remove_tokens

VOWELS = frozenset("AEIOUÄÖÜĄĘÓ")


def shape(kept: Iterable[str]) -> tuple[Counter[str], int]:
    """The counts of each tile of a leave (action tiles left out) and its vowel/consonant
    imbalance beyond one (blanks and wildcards are neither)."""
    counts = Counter(t for t in kept if not is_action(t))
    vowels = sum(n for t, n in counts.items() if t in VOWELS)
    consonants = sum(n for t, n in counts.items() if t not in VOWELS and len(t) == 1 and t.isalpha())
    return counts, max(0, abs(vowels - consonants) - 1)


@dataclass(frozen=True)
class LeaveTable:
    """Per-token values and the shape penalties of one family and language."""

    family: str
    values: dict[str, float] = field(default_factory=dict)
    duplicate: float = -2.0  # per extra copy of a letter kept (tiles without their own value)
    balance: float = -1.0  # per vowel (or consonant) beyond a balanced leave
    games: int = 0  # self-play games the values were derived from
    scale: float = 1.0  # weight of the leave against the score (tuned by self-play)
    duplicates: dict[str, float] = field(default_factory=dict)  # per extra copy, per tile
    language: str = "en"
    pairs: dict[str, float] = field(default_factory=dict)  # "A B" (sorted): both kept together
    # Leave values already computed, by (rack, tiles used): a bot weighs hundreds of moves a
    # turn from one rack, whose leaves repeat (with pairs a leave costs up to 21 lookups, and
    # working out the leave itself as much again: self-play ran 2.7x slower without it).
    memo: dict[tuple[tuple[str, ...], tuple[str, ...]], float] = field(
        default_factory=dict, compare=False, repr=False)

    def value(self, tiles: Iterable[str]) -> float:
        """The equity of keeping ``tiles`` (action tiles are worth 0 here)."""
        return self._value(tuple(tiles))

    def after(self, rack: tuple[str, ...], used: Iterable[str]) -> float:
        """The value of what is left of ``rack`` after playing (or exchanging) ``used``."""
        key = (rack, tuple(sorted(used)))
        found = self.memo.get(key)
        if found is None:
            if len(self.memo) > 200_000:
                self.memo.clear()
            found = self.memo[key] = self._value(remove_tokens(rack, key[1]))
        return found

    def _value(self, tiles: tuple[str, ...]) -> float:
        counts, imbalance = shape(tiles)
        if not counts:
            return 0.0
        total = 0.0
        for t, n in counts.items():
            total += self.values.get(t, 0.0) * n
            if n > 1:
                total += self.duplicates.get(t, self.duplicate) * (n - 1)
        if self.pairs and len(counts) > 1:
            kept = sorted(counts)
            for k, a in enumerate(kept):
                for b in kept[k + 1 :]:
                    total += self.pairs.get(f"{a} {b}", 0.0)
        total += self.balance * imbalance
        return total * self.scale

    def to_json(self) -> dict[str, object]:
        return {"family": self.family, "language": self.language, "games": self.games,
                "duplicate": self.duplicate, "duplicates": self.duplicates,
                "pairs": self.pairs, "balance": self.balance, "scale": self.scale, "values": self.values}


@cache
def leave_table(family: str, language: str = "en") -> LeaveTable:
    """The shipped leave table of ``family`` in ``language`` (the family's English one when
    the language has none; an empty table when the family has none)."""
    folder = resources.files("wordarena.engine.bots") / "data"
    path = folder / f"leaves-{family}-{language}.json"
    if not path.is_file():
        path = folder / f"leaves-{family}-en.json"
    if not path.is_file():
        return LeaveTable(family, language=language)
    return table_from_json(json.loads(path.read_text(encoding="utf-8")), family, language)


def table_from_json(data: dict[str, Any], family: str = "", language: str = "en") -> LeaveTable:
    """The leave table a ``LeaveTable.to_json`` document holds (``family`` and ``language`` when
    it names none)."""
    return LeaveTable(str(data.get("family", family)),
                      {str(k): float(v) for k, v in data["values"].items()},
                      float(data["duplicate"]), float(data["balance"]), int(data.get("games", 0)),
                      float(data.get("scale", 1.0)),
                      {str(k): float(v) for k, v in data.get("duplicates", {}).items()},
                      str(data.get("language", language)),
                      {str(k): float(v) for k, v in data.get("pairs", {}).items()})


def load_leaves(path: str | Path) -> LeaveTable:
    """The leave table in the JSON file ``path`` (as ``derive fit`` writes them)."""
    return table_from_json(json.loads(Path(path).read_text(encoding="utf-8")))
