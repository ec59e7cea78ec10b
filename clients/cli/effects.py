"""War of Words' lasting effects in words and on the board: the effects a board view lists
(``BoardView.effects``: Fire, Medic, Rain, Whirlwind, Poison, Quicksand, Black Hole …) drawn on
the squares they cover, named in the legend, and the combat log's ``Effect`` events told as what
happened, from their fields (kind, source tile, owner, square, squares, points)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from wordarena.clients.cli import actions
from wordarena.clients.cli.safe import safe_text
from wordarena.engine.board import square_name
from wordarena.v1 import common_pb2

Who = Callable[[int], str]

#: The background of a square an effect covers, by the effect's tile.
_STYLES = {
    common_pb2.ACTION_KIND_FIRE: "bold white on #c0392b",
    common_pb2.ACTION_KIND_RAIN: "bold white on #2471a3",
    common_pb2.ACTION_KIND_WHIRLWIND: "bold white on #5d6d7e",
    common_pb2.ACTION_KIND_MEDIC: "bold white on #1e8449",
    common_pb2.ACTION_KIND_POISON: "bold white on #6c3483",
    common_pb2.ACTION_KIND_QUICKSAND: "bold black on #d4ac0d",
    common_pb2.ACTION_KIND_BLACK_HOLE: "bold white on #17202a",
    common_pb2.ACTION_KIND_NUCLEAR_BOMB: "bold black on #58d68d",
}
EFFECT_STYLE = "bold white on #7d3c98"


def title(kind: int, factor: int = 0) -> str:
    """An action tile's name in words: ``Fire``, ``Nuclear Bomb``, ``3W multiplier``."""
    if kind in (common_pb2.ACTION_KIND_LETTER_MULTIPLIER, common_pb2.ACTION_KIND_WORD_MULTIPLIER):
        return f"{actions.token(kind, factor).removeprefix('@')} multiplier" if factor else "multiplier tile"
    found = actions.BY_KIND.get(kind)
    return found.title if found else "effect"


def code(effect: common_pb2.ActiveEffect) -> str:
    """The two characters an effect's squares show: its tile's board code (``Fi``, ``Rn``)."""
    found = actions.BY_KIND.get(effect.action)
    return found.code if found else "@?"


def style(effect: common_pb2.ActiveEffect) -> str:
    return _STYLES.get(effect.action, EFFECT_STYLE)


def by_square(board: common_pb2.BoardView) -> dict[tuple[int, int], common_pb2.ActiveEffect]:
    """The effect drawn on each square it covers (its origin and its area; the first listed
    wins where two overlap)."""
    out: dict[tuple[int, int], common_pb2.ActiveEffect] = {}
    for eff in board.effects:
        for sq in (eff.origin, *eff.area):
            out.setdefault((sq.row, sq.col), eff)
    return out


def meaning(effect: common_pb2.ActiveEffect, who: Who | None = None) -> str:
    """``Fire at J9 (Ann's; 2 turns left): what a Fire does``."""
    where = square_name(effect.origin.row, effect.origin.col)
    details = []
    if who is not None:
        details.append(f"{who(effect.owner_seat)}'s")
    if effect.size:
        details.append(f"size {effect.size}")
    if effect.turns_left:
        details.append(f"{effect.turns_left} turn{'s' if effect.turns_left != 1 else ''} left")
    if effect.movable:
        details.append("its owner may move it")
    head = f"{title(effect.action)} at {where}" + (f" ({'; '.join(details)})" if details else "")
    described = actions.describe(actions.token(effect.action))
    return f"{head}: {described.partition(': ')[2] or described}"


def board_lines(board: common_pb2.BoardView, who: Who | None = None) -> list[str]:
    """One line per effect on the board: ``Fi  Fire at J9 (Ann's; 2 turns left): …``."""
    return [f"{code(eff)}  {meaning(eff, who)}" for eff in board.effects]


def _squares(squares: Iterable[common_pb2.Square]) -> str:
    return " ".join(square_name(s.row, s.col) for s in squares)


def line(e: common_pb2.Effect, who: Who) -> str:
    """A combat-log line that says what happened: what, whose, where, and to which squares."""
    kind = e.kind
    named = title(e.source) if e.source else ""
    owner = f"{who(e.by_seat)}'s " if e.HasField("by_seat") else ""
    at = f" at {square_name(e.square.row, e.square.col)}" if e.HasField("square") else ""
    squares = _squares(e.squares)
    if kind == common_pb2.EFFECT_KIND_UNSPECIFIED:
        text = safe_text(e.reason) or "effect"
    elif not e.source and kind == common_pb2.EFFECT_KIND_MOVED and not e.HasField("by_seat"):
        text = "The clouds drift" + (f" (now over {squares})" if squares else "")
    elif not e.source and not at:
        text = "An effect under a cloud" + (f" reached {squares}" if squares else "")
    elif e.reason and (kind in _TOLD or (kind == common_pb2.EFFECT_KIND_EXPIRED and squares)
                       or (kind == common_pb2.EFFECT_KIND_MOVED and squares)):
        text = _told(safe_text(e.reason), owner, named)
    else:
        what = f"{owner}{named or 'effect'}{at}"
        text = _VERBS.get(kind, _other)(what, squares, safe_text(e.reason))
    if e.HasField("seat") and e.points:
        text += f" ({who(e.seat)} {e.points:+d})"
    return text


#: Kinds that tell several happenings (a Black Hole growing or collapsing; a multiplier grown,
#: put down or revealed; the water's new electrification): the server's reason says which.
_TOLD = frozenset({common_pb2.EFFECT_KIND_RESIZED, common_pb2.EFFECT_KIND_MULTIPLIER_CHANGED,
                   common_pb2.EFFECT_KIND_ELECTRIFIED})


def _told(reason: str, owner: str, named: str) -> str:
    """The server's words for what happened (``Black Hole at K11 grew to 5x5``), the tile's
    owner first when they name the tile (``Ben's Black Hole at K11 grew to 5x5``)."""
    if named and reason.startswith(named):
        return owner + reason
    return reason[:1].upper() + reason[1:]


def _other(what: str, squares: str, reason: str) -> str:
    return f"{what}: {reason}" if reason else what


def _on(squares: str, lead: str) -> str:
    return f" {lead} {squares}" if squares else ""


_VERBS: dict[int, Callable[[str, str, str], str]] = {
    common_pb2.EFFECT_KIND_DESTROYED: lambda w, s, r: f"{w} destroyed the tiles{_on(s, 'on')}",
    common_pb2.EFFECT_KIND_POISONED: lambda w, s, r: f"{w} poisoned{_on(s, 'the letters on')}",
    common_pb2.EFFECT_KIND_HEALED: lambda w, s, r: f"{w} healed{_on(s, 'the letters on')}",
    common_pb2.EFFECT_KIND_RAINED: lambda w, s, r: f"{w} rained{_on(s, 'on')}",
    common_pb2.EFFECT_KIND_MULTIPLIER_CHANGED: lambda w, s, r: f"{w}: a multiplier now{_on(s, 'on')}",
    common_pb2.EFFECT_KIND_ELECTRIFIED: lambda w, s, r: f"{w} electrified the water{_on(s, 'at')}",
    common_pb2.EFFECT_KIND_RESIZED: lambda w, s, r: f"{w} changed size{_on(s, ', now covering')}",
    common_pb2.EFFECT_KIND_SPREAD: lambda w, s, r: f"{w} spread{_on(s, 'to')}",
    common_pb2.EFFECT_KIND_MOVED: lambda w, s, r: f"{w} moved{_on(s, 'over')}",
    common_pb2.EFFECT_KIND_RESCORED: lambda w, s, r: f"{w} rescored the words{_on(s, 'on')}",
    common_pb2.EFFECT_KIND_IRRADIATED: lambda w, s, r: f"{w} irradiated the board: every letter is "
                                                       "worth 1 point",
    common_pb2.EFFECT_KIND_SHIELDED: lambda w, s, r: f"{w} shielded{_on(s, 'the tiles on')}",
    common_pb2.EFFECT_KIND_EXPIRED: lambda w, s, r: f"{w} ended",
}


def same_happening(a: common_pb2.Effect, b: common_pb2.Effect) -> bool:
    """True when two Effect events tell one happening (the server sends one per player whose
    score it moved): the same kind, tile, owner and square."""
    return (a.kind, a.source, a.HasField("by_seat") and a.by_seat, a.HasField("square"),
            a.square.row, a.square.col, list(a.squares)) == (
        b.kind, b.source, b.HasField("by_seat") and b.by_seat, b.HasField("square"),
        b.square.row, b.square.col, list(b.squares))


def merged_line(effects: list[common_pb2.Effect], who: Who) -> str:
    """One line for one happening told by several events: every seat's points at the end."""
    first = line(_without_points(effects[0]), who)
    points = [f"{who(e.seat)} {e.points:+d}" for e in effects if e.HasField("seat") and e.points]
    return first + (f" ({', '.join(points)})" if points else "")


def _without_points(e: common_pb2.Effect) -> common_pb2.Effect:
    out = common_pb2.Effect()
    out.CopyFrom(e)
    out.ClearField("seat")
    out.points = 0
    return out
