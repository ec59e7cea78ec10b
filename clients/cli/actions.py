"""War of Words action tiles as the CLI names them: the rack token a player types (``@bomb``,
``@3W``), the contract's ``ActionKind`` (+ factor) it stands for, and the two-character code
drawn on a board square (``Bm``, ``B>`` for a Blaster facing right).

The token names are the engine's (``engine.warofwords.catalog``); the codes are unique, so a
code on the board names one tile (the legend lists them, see ``legend.legend_renderable``).
"""

from __future__ import annotations

from dataclasses import dataclass

from wordarena.engine.warofwords.catalog import ACTIONS
from wordarena.v1 import common_pb2

FACINGS: dict[str, int] = {"up": common_pb2.FACING_UP, "down": common_pb2.FACING_DOWN,
                           "left": common_pb2.FACING_LEFT, "right": common_pb2.FACING_RIGHT}
FACING_NAMES: dict[int, str] = {v: k for k, v in FACINGS.items()}
_FACING_ARROWS = {common_pb2.FACING_UP: "^", common_pb2.FACING_DOWN: "v",
                  common_pb2.FACING_LEFT: "<", common_pb2.FACING_RIGHT: ">"}


@dataclass(frozen=True)
class ActionName:
    """How one action tile kind is named: engine token name, contract kind, board code."""

    name: str  # the engine's name, typed after '@': "bomb", "blackhole"
    kind: int  # common_pb2.ActionKind
    code: str  # two characters on the board
    title: str  # the tile's name in words


_NAMES = (
    ActionName("bomb", common_pb2.ACTION_KIND_BOMB, "Bm", "Bomb"),
    ActionName("blaster", common_pb2.ACTION_KIND_BLASTER, "Bl", "Blaster"),
    ActionName("lightning", common_pb2.ACTION_KIND_LIGHTNING, "Lg", "Lightning"),
    ActionName("nuke", common_pb2.ACTION_KIND_NUCLEAR_BOMB, "Nk", "Nuclear Bomb"),
    ActionName("pirate", common_pb2.ACTION_KIND_PIRATE_SHIP, "Pi", "Pirate Ship"),
    ActionName("shield", common_pb2.ACTION_KIND_SHIELD, "Sh", "Shield"),
    ActionName("poison", common_pb2.ACTION_KIND_POISON, "Ps", "Poison"),
    ActionName("medic", common_pb2.ACTION_KIND_MEDIC, "Md", "Medic"),
    ActionName("rain", common_pb2.ACTION_KIND_RAIN, "Rn", "Rain"),
    ActionName("fire", common_pb2.ACTION_KIND_FIRE, "Fi", "Fire"),
    ActionName("blackhole", common_pb2.ACTION_KIND_BLACK_HOLE, "BH", "Black Hole"),
    ActionName("whirlwind", common_pb2.ACTION_KIND_WHIRLWIND, "Ww", "Whirlwind"),
    ActionName("quicksand", common_pb2.ACTION_KIND_QUICKSAND, "Qs", "Quicksand"),
    ActionName("sandstorm", common_pb2.ACTION_KIND_SANDSTORM, "Ss", "Sandstorm"),
    ActionName("star", common_pb2.ACTION_KIND_STAR, "St", "Star"),
    ActionName("portal", common_pb2.ACTION_KIND_PORTAL, "Pt", "Portal"),
)
BY_NAME: dict[str, ActionName] = {a.name: a for a in _NAMES}
BY_KIND: dict[int, ActionName] = {a.kind: a for a in _NAMES}
_MULTIPLIER_KINDS = {common_pb2.ACTION_KIND_LETTER_MULTIPLIER: "L",
                     common_pb2.ACTION_KIND_WORD_MULTIPLIER: "W"}


def from_token(token: str) -> tuple[int, int]:
    """``@bomb`` → (ACTION_KIND_BOMB, 0), ``@3W`` → (ACTION_KIND_WORD_MULTIPLIER, 3); (0, 0) when
    the token names no action tile. Case-insensitive (``@3w``, ``@Bomb``)."""
    name = token.removeprefix("@").strip()
    if len(name) == 2 and name[0].isdigit() and name[1].upper() in "LW":
        factor = int(name[0])
        kind = (common_pb2.ACTION_KIND_LETTER_MULTIPLIER if name[1].upper() == "L"
                else common_pb2.ACTION_KIND_WORD_MULTIPLIER)
        return (kind, factor) if f"{factor}{name[1].upper()}" in ACTIONS else (0, 0)
    found = BY_NAME.get(name.lower())
    return (found.kind, 0) if found else (0, 0)


def token(kind: int, factor: int = 0) -> str:
    """The rack token of a contract action tile: ``@bomb``, ``@3W`` (``@?`` when unknown)."""
    if kind in _MULTIPLIER_KINDS:
        return f"@{factor}{_MULTIPLIER_KINDS[kind]}"
    found = BY_KIND.get(kind)
    return "@" + found.name if found else "@?"


def board_code(tile: common_pb2.Tile) -> str:
    """Two characters for an action tile on a square: ``Bm``, ``3W``, ``B>`` (Blaster facing
    right)."""
    if tile.action in _MULTIPLIER_KINDS:
        return f"{tile.action_factor}{_MULTIPLIER_KINDS[tile.action]}"
    if tile.action == common_pb2.ACTION_KIND_BLASTER and tile.facing in _FACING_ARROWS:
        return "B" + _FACING_ARROWS[tile.facing]
    found = BY_KIND.get(tile.action)
    return found.code if found else "@?"


def describe(tok: str) -> str:
    """What an action tile does, in words (the engine catalog's description)."""
    kind, factor = from_token(tok)
    spec = ACTIONS.get(token(kind, factor).removeprefix("@")) if kind else None
    if spec is None:
        return "an action tile"
    if kind not in BY_KIND:  # a multiplier tile: its description says so
        return spec.description[0].upper() + spec.description[1:]
    return f"{BY_KIND[kind].title}: {spec.description}"


def names() -> list[str]:
    """Every action token, in catalog order (for help texts)."""
    return ["@" + n for n in ACTIONS]
