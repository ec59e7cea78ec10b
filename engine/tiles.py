"""Tiles and tile sets.

A tile on a rack or in the bag is a *token*: a letter (``"A"``, ``"Ñ"``), the blank ``"?"``,
the War of Words wildcard ``"*"``, or an action tile named ``"@name"`` (``"@bomb"``). A tile on
the board is a ``Tile``: the letter it shows, whether it is a blank, and the seat that played it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from wordarena.engine.errors import InputError

BLANK = "?"
WILDCARD = "*"
ACTION_PREFIX = "@"


def is_action(token: str) -> bool:
    """True for an action tile token (``@bomb``)."""
    return token.startswith(ACTION_PREFIX)


def is_letter_token(token: str) -> bool:
    """True for tokens that count as letters (letters, blanks, wildcards), not action tiles."""
    return not is_action(token)


def remove_tokens(rack: Iterable[str], tokens: Iterable[str]) -> tuple[str, ...]:
    """``rack`` without ``tokens`` (each removed once, rack order kept): what is left after a
    play or an exchange — the leave."""
    left = Counter(tokens)
    out = []
    for t in rack:
        if left[t]:
            left[t] -= 1
        else:
            out.append(t)
    return tuple(out)


class Tile(NamedTuple):
    """A tile lying on the board."""

    letter: str
    blank: bool
    owner: int

    @property
    def wildcard(self) -> bool:
        return self.letter == WILDCARD

    @property
    def token(self) -> str:
        """The rack token this tile came from."""
        return BLANK if self.blank else self.letter


@dataclass(frozen=True)
class TileSet:
    """The tiles of one game in one language: counts and values per token."""

    id: str
    language: str
    counts: Mapping[str, int]
    values: Mapping[str, int]
    letters: tuple[str, ...] = field(default=())
    derivation: str = ""
    #: Counts that were different under an older rules version (``engine.game.state.RULES``):
    #: version -> {token: count}, for replaying games played under it.
    earlier: Mapping[int, Mapping[str, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.letters:
            letters = tuple(t for t in self.counts if len(t) == 1 and t not in (BLANK, WILDCARD))
            object.__setattr__(self, "letters", letters)

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> TileSet:
        """Build from ``{"id", "language", "tiles": {token: [count, value]}}``."""
        try:
            tiles = data["tiles"]
            assert isinstance(tiles, Mapping)
            counts = {str(t): int(cv[0]) for t, cv in tiles.items()}
            values = {str(t): int(cv[1]) for t, cv in tiles.items()}
            earlier_data = data.get("earlier_rules", {})
            assert isinstance(earlier_data, Mapping)
            earlier = {int(v): {str(t): int(n) for t, n in changed.items()}
                       for v, changed in earlier_data.items()}
            return cls(
                id=str(data["id"]),
                language=str(data["language"]),
                counts=counts,
                values=values,
                derivation=str(data.get("derivation", "")),
                earlier=earlier,
            )
        except (KeyError, TypeError, ValueError, AssertionError, IndexError) as exc:
            raise InputError(f"malformed tile set: {exc!r}", str(data.get("id", "?"))) from exc

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @cached_property  # read per simulated reply (``simulation._final_reply``)
    def has_actions(self) -> bool:
        """True when the set holds action tiles (War of Words): tiles that make no letter but
        leave effects on the board between turns."""
        return any(is_action(t) for t in self.counts)

    def value(self, token: str) -> int:
        """Point value of a token (0 for blanks, wildcards and action tiles)."""
        return self.values.get(token, 0)

    def has_letter(self, letter: str) -> bool:
        """True if ``letter`` exists in this set (a blank may only stand for such a letter)."""
        return letter in self.values and letter not in (BLANK, WILDCARD)

    def initial_bag(self, rules: int | None = None) -> tuple[str, ...]:
        """Every tile of the set, in a fixed order (shuffling is the game's job); under an older
        ``rules`` version, with the counts of that version (``earlier``)."""
        counts = dict(self.counts)
        for version in sorted(self.earlier, reverse=True):
            if rules is not None and rules <= version:
                counts.update(self.earlier[version])
        return tuple(t for t, n in sorted(counts.items()) for _ in range(n))

    def check_tokens(self, tokens: Iterable[str], where: str = "rack") -> None:
        """Raise ``InputError`` if a token is unknown or appears more often than the set has."""
        for token, n in Counter(tokens).items():
            if token not in self.counts:
                raise InputError(f"tile {token!r} is not in the {self.id} tile set", where)
            if n > self.counts[token]:
                raise InputError(
                    f"{n} x {token!r} but the {self.id} set has only {self.counts[token]}", where
                )

    def describe(self) -> dict[str, object]:
        """A JSON-ready description for clients."""
        return {
            "id": self.id,
            "language": self.language,
            "total": self.total,
            "tiles": {t: [self.counts[t], self.values.get(t, 0)] for t in sorted(self.counts)},
        }
