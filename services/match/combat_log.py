"""War of Words' combat log in words: what each effect did, naming only the squares shown."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: The tile behind an engine note whose data does not name it (as old logs stored it too).
NOTE_SOURCES = {"irradiated": "nuke", "electrified": "lightning", "grown": "rain",
                "fire-spread": "fire", "blackhole-size": "blackhole"}


_TITLES = {"blackhole": "Black Hole", "nuke": "Nuclear Bomb", "pirate": "Pirate Ship"}


def note_source(name: str, data: dict[str, Any]) -> str:
    """The tile behind a note that does not name it: a Black Hole swallows tiles on its 7x7, a
    collapsing Quicksand the Shields on its Sand (its note then stands on the Shield's square)."""
    if name == "swallowed":
        on = [t[1] for t in data.get("tiles", ()) if len(t) > 1]
        return "quicksand" if data.get("at") in on else "blackhole"
    return NOTE_SOURCES.get(name, name)


def tile_title(name: str) -> str:
    """An action tile's name in words (``Black Hole``, ``3W multiplier tile``)."""
    if name[:1].isdigit():
        return f"{name} multiplier tile"
    return _TITLES.get(name, name.capitalize())


def note_reason(name: str, source: str, at: Any, data: dict[str, Any], shown: Sequence[str]) -> str:
    """What an effect did, in words, naming only the squares ``shown`` (the effect's own square
    ``at`` is shown when the caller sends it)."""
    tile = tile_title(source)
    where = f" at {at}" if at else ""
    squares = " ".join(shown)
    on = f" on {squares}" if squares else ""
    points = f": {int(data.get('points', 0)):+d}" if data.get("points") else ""
    if name == "blackhole-size":
        size = int(data.get("size", 0))
        return f"{tile}{where} " + (f"grew to {size}x{size}" if size > 1 else "opened (1x1)")
    if name == "collapsed":
        left = f", leaving multipliers{on}" if squares else ""
        return f"{tile}{where} collapsed{left}"
    if name == "grown":
        return f"{tile}{where} grew the multipliers{on}"
    if name == "reveal-11L":
        return f"an 11L appeared{where} where {tile} destroyed scenery"
    if name == "placed":
        return f"{tile} put on {at}" if at else f"{tile} put down"
    if name == "electrified":
        before, after = data.get("before"), data.get("after")
        return f"{tile}{where} electrified the water: x{before} -> x{after}"
    if name == "swallowed":
        taken = [f"the {tile_title(str(t[0]))} on {t[1]}" for t in data.get("tiles", ())
                 if len(t) > 1 and t[1] in shown]
        return f"{tile}{where} swallowed " + (", ".join(taken) if taken else "tiles")
    if name == "moved" and source != "moved":
        start = f" from {shown[0]}" if shown else ""
        return f"{tile} moved{start} to {at}"
    if name == "fire-spread":
        return f"Fire spread to {squares}" if squares else "Fire spread"
    if name == "expired":
        return f"{tile}{where} ended"
    return f"{name}{where}{points}"

