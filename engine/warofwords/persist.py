"""Persistent effects: evaluated at the end of every turn (play, pass or swap), after the
turn's constructive and destructive scoring.

Action tiles on the board act in board order (top to bottom, left to right; on one square in
the order they were put down), except Fire, whose burning squares all burn together when the
first of them comes up. Clouds drift last. Every point gained or lost is an ``effect`` event.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from wordarena.engine.game.events import Event
from wordarena.engine.game.state import GameState
from wordarena.engine.placement import Word
from wordarena.engine.rulesets.layout import BLOCKING, SAND, SCENERY, WATER, Square
from wordarena.engine.scoring import BoardEffects, score_word
from wordarena.engine.warofwords import clouds
from wordarena.engine.warofwords.arena import (
    ELEVEN,
    REVEAL_BLACK_HOLE,
    REVEAL_QUICKSAND,
    Arena,
    Marker,
    multiplier_number,
    portal_pairs,
)

BLACK_HOLE_SIZES = (1, 3, 5, 7)
QUICKSAND_SIZES = (1, 3, 5)
WHIRLWIND_TURNS = 3
SANDSTORM_TURNS = 3
FIRE_TURNS = 3  # a square burns at most this many times, then goes out
FIRE_SPREAD = 1 / 3  # chance that fire grows to each neighbouring square holding fuel
RAIN_SAND_LW = 0.10  # chance that Rain sprouts a 2LW on a bare Sand square
COLLAPSE_MULTIPLIER = 0.10  # chance per bare square that a Black Hole's collapse leaves one
COLLAPSE_CHOICES = ((2, 1), (3, 1), (4, 1), (2, 2), (1, 2), (1, 3), (1, 4))  # (L, W)
MAX_L, MAX_W, MAX_LW = 8, 8, 9
#: The square around its tile each lasting tile acts on every turn (Shield: protects).
AREA_3X3 = frozenset({"poison", "medic", "rain", "whirlwind", "shield"})


@dataclass(frozen=True, slots=True)
class Extent:
    """What a lasting tile on the board covers now and how long it lasts: the squares it acts
    on (in board order), its size when it grows (Black Hole 1, 3, 5, 7; Quicksand 1, 3, 5; else
    0) and the turns left before it ends (a Whirlwind: its owner's turns; 0 when it lasts)."""

    area: tuple[int, ...]
    size: int
    turns_left: int


def extent(arena: Arena, marker: Marker) -> Extent:
    """The ``Extent`` of ``marker`` as the end-of-turn rules below age it: a Black Hole or
    Quicksand covers the size it last grew to and ends with the collapse the turn after its
    last size; Fire, Whirlwind and Sandstorm end after their number of turns."""
    kind, age = marker.kind, marker.age
    if kind in ("blackhole", "quicksand"):
        sizes = BLACK_HOLE_SIZES if kind == "blackhole" else QUICKSAND_SIZES
        size = sizes[min(max(age, 1), len(sizes)) - 1]
        return Extent(tuple(arena.area(marker.index, size)), size, len(sizes) + 1 - age)
    lifetime = {"fire": FIRE_TURNS, "whirlwind": WHIRLWIND_TURNS, "sandstorm": SANDSTORM_TURNS}
    left = lifetime[kind] - age if kind in lifetime else 0
    if kind in AREA_3X3:
        return Extent(tuple(arena.area(marker.index, 3)), 0, left)
    if kind == "sandstorm":  # blows over the whole board (Quicksand scores double)
        return Extent((), 0, left)
    return Extent((marker.index,), 0, left)


def end_of_turn(state: GameState, seat: int, events: list[Event]) -> GameState:
    """Run every persistent effect once after ``seat``'s turn; append their events."""
    if not state.effects:
        return state
    arena = Arena(state)
    order = sorted(range(len(arena.markers)), key=lambda k: arena.markers[k].index)
    queue = [arena.markers[k] for k in order if arena.markers[k].kind != "cloud"]
    fire_done = False
    for marker in queue:
        if marker not in arena.markers:
            continue  # swallowed by a Black Hole or a Quicksand earlier this turn
        if marker.kind == "fire":
            if not fire_done:
                burn(arena)
                fire_done = True
        elif marker.kind in ("poison", "medic", "rain"):
            tend(arena, marker)
        elif marker.kind == "blackhole":
            black_hole(arena, marker)
        elif marker.kind == "whirlwind":
            whirlwind(arena, marker, seat)
        elif marker.kind == "quicksand":
            quicksand(arena, marker)
        elif marker.kind == "sandstorm":
            _age(arena, marker, SANDSTORM_TURNS)
    clouds.drift(arena)
    events.extend(arena.events)
    return arena.freeze()


def _partners(arena: Arena, swallowed: list[Marker]) -> list[Marker]:
    """The Portals paired with swallowed Portals outside the swallowed area: a Black Hole
    taking one Portal of a pair closes both."""
    gone = {m.index for m in swallowed if m.kind == "portal"}
    out: list[Marker] = []
    for a, b in portal_pairs(arena.markers):
        for here, there in ((a, b), (b, a)):
            if here in gone and there not in gone:
                out.extend(m for m in arena.markers if m.kind == "portal" and m.index == there)
    return out


def _replace(arena: Arena, old: Marker, new: Marker | None) -> None:
    k = arena.markers.index(old)
    if new is None:
        del arena.markers[k]
    else:
        arena.markers[k] = new


def _age(arena: Arena, marker: Marker, lifetime: int) -> None:
    age = marker.age + 1
    if age >= lifetime:
        _replace(arena, marker, None)
        arena.note("expired", marker.owner, marker.index, tile=marker.kind)
    else:
        _replace(arena, marker, Marker(marker.kind, marker.index, marker.owner, age))


def tend(arena: Arena, marker: Marker) -> None:
    """Poison (-), Medic and Rain (+): per letter or wildcard in the 3x3 centred on the tile,
    1 point, or the number of the multiplier under it, to or from its owner. Rain then grows
    each multiplier in its area by 1 (8L, 8W, 9LW at most) and may sprout an LW on Sand."""
    sign = -1 if marker.kind == "poison" else 1
    points: dict[int, int] = {}
    where: dict[int, list[int]] = {}
    area = arena.area(marker.index, 3)
    for i in area:
        tile = arena.cells[i]
        if tile is None:
            continue
        points[tile.owner] = points.get(tile.owner, 0) + sign * multiplier_number(arena.squares[i])
        where.setdefault(tile.owner, []).append(i)
    arena.credit(points, marker.kind, marker.owner, marker.index, where)
    if marker.kind == "rain":
        grow(arena, marker, area)


def grow(arena: Arena, marker: Marker, area: list[int]) -> None:
    grown = []
    for i in area:
        sq = arena.squares[i]
        lm, wm = sq.letter_mult, sq.word_mult
        if lm > 1 and wm > 1:
            lm = wm = min(MAX_LW, lm + 1)
        elif lm > 1:
            lm = min(MAX_L, lm + 1)
        elif wm > 1:
            wm = min(MAX_W, wm + 1)
        elif sq.terrain == SAND and arena.cells[i] is None and arena.chance(RAIN_SAND_LW):
            lm = wm = 2
        if (lm, wm) != (sq.letter_mult, sq.word_mult):
            arena.squares[i] = Square(lm, wm, sq.colour, sq.terrain)
            grown.append(arena.name(i))
    if grown:
        arena.note("grown", marker.owner, marker.index, squares=grown)


def burn(arena: Arena) -> None:
    """Every square on fire burns at once (per fire owner, shields apply); then each burning
    square may set fire to each neighbour holding a letter or scenery (not Water, not already
    burning); squares that have burnt ``FIRE_TURNS`` times go out."""
    fires = [m for m in arena.markers if m.kind == "fire"]
    for owner in sorted({m.owner for m in fires}):
        squares = sorted(m.index for m in fires if m.owner == owner)
        arena.destroy(squares, effect="fire", by=owner, at=None)
    burning = {m.index for m in fires}
    new: list[Marker] = []
    for m in sorted(fires, key=lambda m: m.index):
        for j in arena.neighbours(m.index):
            fuel = arena.cells[j] is not None or arena.squares[j].terrain == SCENERY
            if j in burning or not fuel or arena.squares[j].terrain == WATER:
                continue
            if arena.chance(FIRE_SPREAD):
                burning.add(j)
                new.append(Marker("fire", j, m.owner))
    for m in fires:
        _age(arena, m, FIRE_TURNS)
    arena.markers.extend(new)
    if new:
        arena.note("fire-spread", None, None, squares=[arena.name(m.index) for m in new])


def black_hole(arena: Arena, marker: Marker) -> None:
    """Grows 1x1, 3x3, 5x5, 7x7 (one size per turn, starting the turn it is played), each time
    destroying every letter, scenery, Titanium, multiplier and other action tile in its area
    (Shields cannot stop it); after a turn at 7x7 it collapses, leaving random multipliers."""
    if marker.age < len(BLACK_HOLE_SIZES):
        size = BLACK_HOLE_SIZES[marker.age]
        area = arena.area(marker.index, size)
        arena.destroy(area, effect="blackhole", by=marker.owner, at=marker.index,
                      shieldable=False, multipliers=True, titanium=True, reveal=REVEAL_BLACK_HOLE)
        swallowed = [m for m in arena.markers
                     if m is not marker and m.owner >= 0 and m.index in area]
        swallowed += _partners(arena, swallowed)
        for m in swallowed:
            arena.markers.remove(m)
        if swallowed:
            arena.note("swallowed", marker.owner, marker.index,
                       tiles=[[m.kind, arena.name(m.index)] for m in swallowed])
        _replace(arena, marker, Marker(marker.kind, marker.index, marker.owner, marker.age + 1))
        arena.note("blackhole-size", marker.owner, marker.index, size=size)
        return
    _replace(arena, marker, None)
    left = []
    for i in arena.area(marker.index, BLACK_HOLE_SIZES[-1]):
        sq = arena.squares[i]
        if arena.cells[i] is None and sq.terrain not in BLOCKING and arena.chance(COLLAPSE_MULTIPLIER):
            lm, wm = arena.pick(list(COLLAPSE_CHOICES))
            arena.squares[i] = Square(lm, wm, terrain=sq.terrain)
            left.append([arena.name(i), arena.squares[i].label])
    arena.note("collapsed", marker.owner, marker.index, tile="blackhole", multipliers=left)


def whirlwind(arena: Arena, marker: Marker, seat: int) -> None:
    """Every turn: destroys letters, scenery and multipliers in its 3x3 (an opponent's Shield
    protects); it lives for 3 of its owner's turns, the one it was played in included."""
    arena.destroy(arena.area(marker.index, 3), effect="whirlwind", by=marker.owner,
                  at=marker.index, multipliers=True)
    if seat == marker.owner:
        _age(arena, marker, WHIRLWIND_TURNS)


def quicksand(arena: Arena, marker: Marker) -> None:
    """On Sand only. Grows 1x1, 3x3, 5x5 (one size per turn, from the turn it is played),
    each time re-scoring every owner's letters on Sand in its area "exactly as if all those
    tiles had been played by their owners during that turn" (``rescore``), doubled while a
    Sandstorm blows. After a turn at
    5x5 it collapses: letters (their owners lose them), multipliers and Shields on its Sand
    go, and with a 10% chance one of its Sand squares reveals an 11L."""
    if marker.age < len(QUICKSAND_SIZES):
        size = QUICKSAND_SIZES[marker.age]
        factor = 2 if any(m.kind == "sandstorm" for m in arena.markers) else 1
        where: dict[int, list[int]] = {}
        for i in arena.area(marker.index, size):
            tile = arena.cells[i]
            if tile is not None and arena.squares[i].terrain == SAND:
                where.setdefault(tile.owner, []).append(i)
        if arena.state.rules >= 2:
            points = {owner: factor * rescore(arena, squares) for owner, squares in where.items()}
        else:  # rules version 1: each letter alone (value x its multipliers)
            points = {owner: factor * sum(arena.letter_worth(i) for i in squares)
                      for owner, squares in where.items()}
        arena.credit(points, "quicksand", marker.owner, marker.index, where, size=size,
                     sandstorm=factor == 2)
        _replace(arena, marker, Marker(marker.kind, marker.index, marker.owner, marker.age + 1))
        return
    _replace(arena, marker, None)
    sand = [i for i in arena.area(marker.index, QUICKSAND_SIZES[-1])
            if arena.squares[i].terrain == SAND]
    arena.destroy(sand, effect="quicksand", by=marker.owner, at=marker.index, shieldable=False,
                  multipliers=True)
    for m in [m for m in arena.markers if m.kind == "shield" and m.index in sand]:
        arena.markers.remove(m)
        arena.note("swallowed", marker.owner, m.index, tiles=[["shield", arena.name(m.index)]])
    if sand and arena.chance(REVEAL_QUICKSAND):
        i = arena.pick(sand)
        arena.squares[i] = Square(letter_mult=ELEVEN, terrain=SAND)
        arena.note("reveal-11L", marker.owner, i, source="quicksand")
    arena.note("collapsed", marker.owner, marker.index, tile="quicksand")





def rescore(arena: Arena, squares: list[int]) -> int:
    """What the letters on ``squares`` (one owner's) score as if that owner had just played
    them: every word through them — the runs of letters across and down, as the board holds
    them — scored by the shared scorer with only these squares new (their multipliers count,
    the Bonus Letter adds 10), each word once; a letter in no word of two letters or more
    scores alone. No bingo: nothing was played."""
    ruleset = replace(arena.state.ruleset,
                      board=replace(arena.layout, squares=tuple(arena.squares)))
    effects = BoardEffects(arena.state.bonus_letter, arena.irradiated, tuple(arena.electrification))
    new = set(squares)
    runs: list[tuple[int, ...]] = []
    for i in squares:
        found = [run for run in (_run(arena, i, 0, 1), _run(arena, i, 1, 0)) if len(run) > 1]
        runs.extend(run for run in found or [(i,)] if run not in runs)
    total = 0
    for run in runs:
        word = Word(run, len(run) == 1 or run[1] - run[0] == 1, tuple(j in new for j in run))
        text = "".join(arena.cells[j].letter for j in run)  # type: ignore[union-attr]
        total += score_word(ruleset, tuple(arena.cells), word, text, effects).score
    return total


def _run(arena: Arena, index: int, dr: int, dc: int) -> tuple[int, ...]:
    """The squares of the run of letters through ``index`` along (dr, dc), in reading order."""
    r, c = divmod(index, arena.cols)
    while r - dr >= 0 and c - dc >= 0 and arena.cells[(r - dr) * arena.cols + c - dc] is not None:
        r, c = r - dr, c - dc
    out = []
    while r < arena.rows and c < arena.cols and arena.cells[r * arena.cols + c] is not None:
        out.append(r * arena.cols + c)
        r, c = r + dr, c + dc
    return tuple(out)
