"""The legend: what each symbol on the board and each action tile on the rack means.

Symbols come from the board renderer itself (:func:`render.square_cell`), so the legend always
names exactly what is drawn; it lists the symbols present on the board shown (and the action
tiles on the rack), each once.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text

from wordarena.clients.cli import actions, effects, render
from wordarena.v1 import common_pb2

_TIMES = {2: "double", 3: "triple", 4: "quadruple"}
_COLOUR_WORDS = {common_pb2.TILE_COLOUR_YELLOW: ("yellow", 1), common_pb2.TILE_COLOUR_GREEN: ("green", 2),
                 common_pb2.TILE_COLOUR_BLUE: ("blue", 3), common_pb2.TILE_COLOUR_RED: ("red", 5)}
_SCENERY = {common_pb2.SCENERY_KIND_TITANIUM: "Titanium: no tile goes here; it stops Blasters and "
            "only a Black Hole destroys it"}
_FIXED = [("gold", render.LAST_MOVE_STYLE, "the tiles of the last move"),
          ("a", render.BLANK_TILE_STYLE, "a lower-case letter is a blank standing for that letter")]


def premium_meaning(p: common_pb2.Premium, additive: bool = False) -> str:
    """What a premium square does, in words."""
    if p.kind == common_pb2.PREMIUM_KIND_COLOUR:
        colour, value = _COLOUR_WORDS.get(p.colour, ("matching", 0))
        return f"colour square: a {colour} tile (worth {value}) placed here counts 3x"
    if p.kind == common_pb2.PREMIUM_KIND_LETTER_AND_WORD:
        return f"letter and word multiplier: the letter placed here counts {p.factor}x and " \
               f"{p.factor} is added to the word factor"
    if p.kind == common_pb2.PREMIUM_KIND_LETTER:
        name = _TIMES[p.factor] + " letter" if p.factor in _TIMES and not p.is_tile else "letter multiplier"
        return f"{name}: a letter placed here counts {p.factor}x"
    name = _TIMES[p.factor] + " word" if p.factor in _TIMES and not p.is_tile else "word multiplier"
    if additive:
        return f"{name}: adds {p.factor} to the factor of every word through a letter placed here " \
               "(word multipliers add up: 3W + 5W = x8)"
    return f"{name}: every word through a tile placed here counts {p.factor}x"


def square_meaning(sq: common_pb2.BoardSquare, additive: bool = False) -> str | None:
    """What an empty square's symbol means (None for letters and plain squares)."""
    if sq.hidden:
        return "under a cloud: nobody can see what lies here; no score preview for plays here"
    if sq.HasField("tile") and sq.tile.action:
        tok = actions.token(sq.tile.action, sq.tile.action_factor)
        facing = actions.FACING_NAMES.get(sq.tile.facing)
        return f"{tok}" + (f" facing {facing}" if facing else "") + f" — {actions.describe(tok)}"
    if sq.HasField("tile") and sq.tile.is_wildcard:
        return "a wildcard: stands for any letter, separately in each word"
    if sq.HasField("tile"):
        return None
    if sq.scenery:
        return _SCENERY.get(sq.scenery, "scenery (bricks, crates, flowers, plants …): no tile goes "
                            "here until it is destroyed")
    if sq.is_start:
        return "start square: the first play must cover it"
    if sq.is_star and sq.premium.is_tile and sq.premium.kind:
        return premium_meaning(sq.premium, additive) + ", put on a Star (a play covering it need " \
            "not connect to other words)"
    if sq.is_star:
        return "Star: a play covering it need not connect to other words"
    if sq.HasField("premium") and sq.premium.kind:
        return premium_meaning(sq.premium, additive)
    if sq.terrain == common_pb2.TERRAIN_KIND_WATER:
        return "Water: a play covering it need not connect; letters on it are multiplied by " \
               "the patch's electrification"
    if sq.terrain == common_pb2.TERRAIN_KIND_SAND:
        return "Sand: where Quicksand works and Rain may grow LW multipliers"
    return None


def legend_entries(board: common_pb2.BoardView, rack: Iterable[common_pb2.Tile] = (),
                   *, additive: bool = False) -> list[tuple[str, str, str]]:
    """(symbol, style, meaning) for every symbol on ``board`` and action tile in ``rack``, once
    each, in board order; then, once tiles lie on the board, the last move and blanks."""
    seen: dict[str, tuple[str, str, str]] = {}
    for sq in board.squares:
        meaning = square_meaning(sq, additive)
        if meaning is None:
            continue
        text, style = render.square_cell(sq, 0)
        seen.setdefault(text.strip(), (text.strip(), style, meaning))
    out = list(seen.values())
    for eff in board.effects:  # lasting effects, drawn on the squares they cover
        symbol = effects.code(eff)
        if all(sym != symbol for sym, _, _ in out):
            out.append((symbol, effects.style(eff), effects.meaning(eff)))
    out.append(("·", render.PLAIN_STYLE, "a plain square"))
    for tile in rack:
        if tile.action:
            tok = actions.token(tile.action, tile.action_factor)
            if all(sym != tok for sym, _, _ in out):
                out.append((tok, render.TILE_STYLE, actions.describe(tok)))
    if any(sq.HasField("tile") for sq in board.squares):
        out.extend(_FIXED)
    return out


def legend_renderable(board: common_pb2.BoardView, rack: Iterable[common_pb2.Tile] = (),
                      *, additive: bool = False) -> Text:
    """The legend as lines ``symbol  meaning``."""
    out = Text("Legend:\n", style="bold")
    for symbol, style, meaning in legend_entries(board, rack, additive=additive):
        out.append(f" {symbol:^5}", style=style)
        out.append(f"  {meaning}\n")
    out.rstrip()
    return out


def legend_lines(view_board: common_pb2.BoardView, rack: Iterable[common_pb2.Tile] = (),
                 *, additive: bool = False) -> list[str]:
    """The legend as plain lines (for the game screen's info area)."""
    return [f"  {symbol:<5} {meaning}"
            for symbol, _, meaning in legend_entries(view_board, rack, additive=additive)]
