"""Sanity checks of a position handed to analysis (racks and tile counts)."""

from __future__ import annotations

from collections import Counter

from wordarena.engine.errors import InputError
from wordarena.engine.game.state import GameState


def check_position(state: GameState) -> None:
    """Raise ``InputError`` naming the field when a rack holds a tile the ruleset lacks, a rack
    is too long, or the board and racks hold more of a tile than the set has."""
    tiles = state.ruleset.tiles
    used: Counter[str] = Counter(t.token for t in state.cells if t is not None)
    _check_used(state, used, "board")
    for seat, rack in enumerate(state.racks):
        where = f"rack {seat + 1}"
        for token in rack:
            if token not in tiles.counts:
                raise InputError(f"tile {token!r} is not in the {tiles.id} set", where)
        if len(rack) > state.ruleset.rack_size:
            raise InputError(f"{len(rack)} tiles but racks hold {state.ruleset.rack_size}", where)
        used += Counter(rack)
        _check_used(state, used, where)


def _check_used(state: GameState, used: Counter[str], where: str) -> None:
    tiles = state.ruleset.tiles
    for token, n in used.items():
        if n > tiles.counts.get(token, 0):
            raise InputError(
                f"{n} x {token!r} on the board and racks, but the {tiles.id} set has "
                f"{tiles.counts.get(token, 0)}", where)
