"""What each destructive action tile destroys (the destructive phase of a turn), and the
growing tiles' stages. Every point lost is logged by ``Arena.destroy`` as an ``effect`` event.
"""

from __future__ import annotations

from wordarena.engine.rulesets.layout import TITANIUM, WATER
from wordarena.engine.warofwords.arena import REVEAL_PIRATE, REVEAL_PLAYER, Arena
from wordarena.engine.warofwords.catalog import FACINGS

MAX_ELECTRIFICATION = 512


def reach(arena: Arena, kind: str, index: int, facing: str = "") -> list[int]:
    """The squares a destructive tile of ``kind`` on ``index`` acts on, in the order it acts:
    a Bomb's or Whirlwind's 3x3, a Blaster's line, Lightning's own square, every square for a
    Nuclear Bomb, a Pirate Ship's shore."""
    if kind in ("bomb", "whirlwind"):
        return arena.area(index, 3)
    if kind == "blaster":
        return blaster_line(arena, index, facing)
    if kind == "lightning":
        return [index]
    if kind == "nuke":
        return list(range(len(arena.cells)))
    if kind == "pirate":
        return pirate_raid(arena, index)
    raise ValueError(kind)  # pragma: no cover - the catalog lists every destructive kind above


def destroy_with(arena: Arena, kind: str, index: int, by: int, facing: str = "") -> None:
    """Resolve one destructive tile of ``kind`` on ``index`` played (or moved) by ``by`` on
    the squares of its ``reach``."""
    squares = reach(arena, kind, index, facing)
    if kind == "lightning":
        lightning(arena, index, by)
    elif kind == "nuke":
        nuke(arena, index, by)
    else:
        arena.destroy(squares, effect=kind, by=by, at=index, multipliers=kind == "whirlwind",
                      reveal=REVEAL_PIRATE if kind == "pirate" else REVEAL_PLAYER)


def blaster_line(arena: Arena, index: int, facing: str) -> list[int]:
    """The squares a Blaster hits: from the next square in its facing to the board's edge or
    the first Titanium square (which stops it and is not hit)."""
    dr, dc = FACINGS[facing]
    r, c = divmod(index, arena.cols)
    out = []
    r, c = r + dr, c + dc
    while 0 <= r < arena.rows and 0 <= c < arena.cols:
        i = r * arena.cols + c
        if arena.squares[i].terrain == TITANIUM:
            break
        out.append(i)
        r, c = r + dr, c + dc
    return out


def lightning(arena: Arena, index: int, by: int) -> None:
    """Lightning destroys what lies on its square; on Water it doubles the electrification of
    that Water patch (all Water on joined-water boards), up to 512."""
    arena.destroy([index], effect="lightning", by=by, at=index)
    if arena.squares[index].terrain != WATER:
        return
    patch = arena.layout.water_patch[index]
    if patch < 0:
        return
    before = arena.electrification[patch]
    arena.electrification[patch] = min(MAX_ELECTRIFICATION, before * 2)
    arena.note("electrified", by, index, patch=patch, before=before,
               after=arena.electrification[patch])


def nuke(arena: Arena, index: int, by: int) -> None:
    """The Nuclear Bomb destroys every letter and scenery tile on the board, costs nobody any
    points, and irradiates the board. Shields do not stop it."""
    everything = range(len(arena.cells))
    arena.destroy(everything, effect="nuke", by=by, at=index, shieldable=False, penalise=False)
    arena.irradiated = True
    arena.note("irradiated", by, index)


def pirate_raid(arena: Arena, index: int) -> list[int]:
    """The shore a Pirate Ship raids: squares that are not Water, orthogonally next to a Water
    square of the ship's patch, within the 5x5 square centred on the ship."""
    patch = arena.layout.water_patch[index]
    out = []
    for i in arena.area(index, 5):
        if arena.squares[i].terrain == WATER:
            continue
        if any(arena.layout.water_patch[j] == patch and arena.squares[j].terrain == WATER
               for j in arena.neighbours(i)):
            out.append(i)
    return out
