"""The Armory as data: every War of Words action tile wordarena knows, what kind it is, where
it may be put and how long it lives.

An action tile is the rack token ``"@" + name`` (``@bomb``, ``@3W``, ``@star``). The rules that
the text leaves to "the Armory" are wordarena's and are written down in ``docs/warofwords.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from wordarena.engine.tiles import ACTION_PREFIX


class Kind(StrEnum):
    """How an action tile acts."""

    SQUARE = "square"  # changes its square for good: multiplier tiles, Star
    DESTRUCTIVE = "destructive"  # acts once, in the destructive phase of the turn it is played
    PERSISTENT = "persistent"  # stays on the board and acts at the end of every turn
    BOARD = "board"  # changes the whole board at once (Sandstorm)


class Target(StrEnum):
    """Which squares an action tile may be put on."""

    EMPTY = "empty"  # no letter, no scenery / titanium, no other action tile
    ANY = "any"  # any square of the board (letters, scenery and terrain included)
    WATER = "water"  # a Water square
    SAND = "sand"  # a Sand square


FACINGS: dict[str, tuple[int, int]] = {
    "up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1),
}


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """One action tile: its name, kind, where it may go, and what it does (for clients)."""

    name: str
    kind: Kind
    target: Target
    description: str
    letter_mult: int = 1  # multiplier tiles: nL
    word_mult: int = 1  # multiplier tiles: nW
    needs_facing: bool = False  # Blaster
    movable: bool = False  # Rain, Whirlwind: their owner may move them during a turn
    shieldable: bool = True  # False: Shields cannot stop it (Black Hole, Quicksand)

    @property
    def token(self) -> str:
        return ACTION_PREFIX + self.name


def _specs() -> dict[str, ActionSpec]:
    specs = [
        ActionSpec("bomb", Kind.DESTRUCTIVE, Target.ANY,
                   "destroys letters, wildcards and scenery in the 3x3 square centred on it"),
        ActionSpec("blaster", Kind.DESTRUCTIVE, Target.ANY,
                   "destroys letters, wildcards and scenery in one direction until Titanium",
                   needs_facing=True),
        ActionSpec("lightning", Kind.DESTRUCTIVE, Target.ANY,
                   "destroys what lies on its square; on Water doubles the patch's "
                   "electrification (at most 512)"),
        ActionSpec("nuke", Kind.DESTRUCTIVE, Target.ANY,
                   "Nuclear Bomb: destroys every letter and scenery tile, nobody loses points, "
                   "and irradiates the board (every letter worth 1 from then on)"),
        ActionSpec("pirate", Kind.DESTRUCTIVE, Target.WATER,
                   "Pirate Ship: raids the shore of its Water patch within two squares"),
        ActionSpec("shield", Kind.PERSISTENT, Target.ANY,
                   "protects the 3x3 square centred on it from other players' destruction"),
        ActionSpec("poison", Kind.PERSISTENT, Target.ANY,
                   "every turn: owners of letters in its 3x3 lose 1 (or the multiplier's number)"),
        ActionSpec("medic", Kind.PERSISTENT, Target.ANY,
                   "every turn: owners of letters in its 3x3 gain 1 (or the multiplier's number)"),
        ActionSpec("rain", Kind.PERSISTENT, Target.ANY,
                   "every turn: as Medic, and multipliers in its 3x3 grow by 1", movable=True),
        ActionSpec("fire", Kind.PERSISTENT, Target.ANY,
                   "every turn: burns letters and scenery under it, then may spread"),
        ActionSpec("blackhole", Kind.PERSISTENT, Target.ANY,
                   "grows 1x1, 3x3, 5x5, 7x7 destroying everything, then collapses",
                   shieldable=False),
        ActionSpec("whirlwind", Kind.PERSISTENT, Target.ANY,
                   "for 3 of its owner's turns destroys letters, scenery and multipliers in "
                   "its 3x3", movable=True),
        ActionSpec("quicksand", Kind.PERSISTENT, Target.SAND,
                   "on Sand: grows 1x1, 3x3, 5x5 re-scoring letters, then collapses",
                   shieldable=False),
        ActionSpec("sandstorm", Kind.BOARD, Target.ANY,
                   "for the next 3 turns Quicksand scores double"),
        ActionSpec("portal", Kind.PERSISTENT, Target.EMPTY,
                   "pairs with the next Portal put down: a word reaching one portal square "
                   "continues from the square after the other"),
        ActionSpec("star", Kind.SQUARE, Target.EMPTY,
                   "makes a plain square a Star (words may stand on it unconnected)"),
    ]
    for n in range(2, 9):
        specs.append(ActionSpec(f"{n}L", Kind.SQUARE, Target.EMPTY,
                                f"multiplier tile: a letter played here is worth {n}x",
                                letter_mult=n))
        specs.append(ActionSpec(f"{n}W", Kind.SQUARE, Target.EMPTY,
                                f"multiplier tile: adds {n} to the word factor", word_mult=n))
    return {s.name: s for s in specs}


ACTIONS: dict[str, ActionSpec] = _specs()


def spec_of(token: str) -> ActionSpec | None:
    """The spec of an action token (``@bomb``), or None if it is not a known action tile."""
    if not token.startswith(ACTION_PREFIX):
        return None
    return ACTIONS.get(token[len(ACTION_PREFIX):])
