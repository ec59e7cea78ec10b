"""The Tile Bag: what one seat has not seen yet."""

from __future__ import annotations

from collections import Counter

from wordarena.engine.analysis.position import check_position
from wordarena.engine.errors import InputError
from wordarena.engine.game.state import GameState
from wordarena.engine.warofwords.clouds import hidden_squares


def tile_bag(state: GameState, seat: int) -> dict[str, int]:
    """Unseen tiles from ``seat``'s point of view (the bag, every other rack and, in War of
    Words, the tiles under clouds: "you can't see under clouds"), by token, in the tile set's
    order (letters, then blanks / wildcards / action tiles)."""
    check_position(state)
    if not 0 <= seat < state.players:
        raise InputError(f"there is no seat {seat}", "seat")
    unseen: Counter[str] = Counter(state.bag)
    for other, rack in enumerate(state.racks):
        if other != seat:
            unseen.update(rack)
    for index in hidden_squares(state):
        tile = state.cells[index]
        if tile is not None:
            unseen[tile.token] += 1
    order = {token: k for k, token in enumerate(state.ruleset.tiles.letters)}
    return {t: unseen[t] for t in sorted(unseen, key=lambda t: (order.get(t, len(order)), t))}
