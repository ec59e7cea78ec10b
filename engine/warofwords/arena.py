"""The War of Words board as a working copy: live squares (multipliers and terrain changed by
action tiles), markers (action tiles lying on the board, clouds), scores and the lazy seeded
RNG. Effects mutate an ``Arena``; ``freeze`` turns it back into an immutable ``GameState``.

In the state, ``GameState.effects`` holds ``SquareChange`` entries (a square that differs from
the board file) followed by ``Marker`` entries (in the order they were put down).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from wordarena.engine.board import square_name
from wordarena.engine.game.events import Event
from wordarena.engine.game.rng import rng_for
from wordarena.engine.game.state import GameState
from wordarena.engine.rulesets.layout import SCENERY, TITANIUM, Square
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.tiles import Tile, is_action

ELEVEN = 11  # the 11L a destroyed scenery tile may reveal
REVEAL_PLAYER = 0.01  # scenery destroyed by a player's action tile
REVEAL_BLACK_HOLE = 0.05  # scenery or Titanium destroyed by a Black Hole
REVEAL_PIRATE = 0.50  # scenery destroyed by a Pirate Ship
REVEAL_QUICKSAND = 0.10  # one chance per Quicksand collapse


@dataclass(frozen=True, slots=True)
class SquareChange:
    """A square that no longer is what the board file says (multiplier placed, grown or
    destroyed, scenery destroyed, 11L revealed, Star placed)."""

    index: int
    square: Square


@dataclass(frozen=True, slots=True)
class Marker:
    """Something lying on the board that is not a letter: a persistent action tile or a cloud.

    ``age`` counts evaluations (Black Hole, Quicksand, Fire), owner's turns (Whirlwind) or turns
    (Sandstorm). Clouds have owner -1 and ``index`` their top-left square."""

    kind: str
    index: int
    owner: int
    age: int = 0


def enabled(ruleset: Ruleset) -> bool:
    """True when the ruleset's tile set holds action tiles (the War of Words turn applies)."""
    return any(is_action(t) for t in ruleset.tiles.counts)


def live_squares(state: GameState) -> tuple[Square, ...]:
    """The board's squares as they are now (board file + changes)."""
    squares = list(state.ruleset.board.squares)
    for e in state.effects:
        if isinstance(e, SquareChange):
            squares[e.index] = e.square
    return tuple(squares)


def live_ruleset(state: GameState) -> Ruleset:
    """The ruleset with its board's squares as they are now, for placement and scoring."""
    if not any(isinstance(e, SquareChange) for e in state.effects):
        return state.ruleset
    board = replace(state.ruleset.board, squares=live_squares(state))
    return replace(state.ruleset, board=board)


def markers(state: GameState) -> tuple[Marker, ...]:
    return tuple(e for e in state.effects if isinstance(e, Marker))


def portal_pairs(marks: Iterable[Marker]) -> list[tuple[int, int]]:
    """The open portal pairs as (first, second) squares: Portals pair in the order they were put
    down (the 1st with the 2nd, the 3rd with the 4th …); an odd last Portal waits unpaired."""
    squares = [m.index for m in marks if m.kind == "portal"]
    return [(squares[k], squares[k + 1]) for k in range(0, len(squares) - 1, 2)]


def portal_links(state: GameState) -> dict[int, int]:
    """Each square of an open portal pair mapped to its partner (empty without pairs): the
    ``links`` of ``engine.placement.check_placement``."""
    if not state.effects:
        return {}
    links: dict[int, int] = {}
    for a, b in portal_pairs(e for e in state.effects if isinstance(e, Marker)):
        links[a], links[b] = b, a
    return links


def multiplier_number(square: Square) -> int:
    """The number printed on a multiplier (5 for 5W, 9 for 9LW); 1 when there is none."""
    return max(square.letter_mult, square.word_mult)


class Arena:
    """A mutable working copy of a War of Words state for one turn's effects."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.layout = state.ruleset.board
        self.rows, self.cols = self.layout.rows, self.layout.cols
        self.cells: list[Tile | None] = list(state.cells)
        self.squares: list[Square] = list(live_squares(state))
        self.markers: list[Marker] = list(markers(state))
        self.scores = list(state.scores)
        self.electrification = list(state.electrification)
        self.irradiated = state.irradiated
        self.rng_counter = state.rng_counter
        self._rng: random.Random | None = None
        self.events: list[Event] = []
        #: What each destroyed letter cost its owner, by the position in ``events`` of the
        #: ``effect`` event that names it: {event position: {square: points lost}} (in memory
        #: only, for the preview's reading of a play; events keep the sum per owner).
        self.worths: dict[int, dict[int, int]] = {}

    # --- randomness: one draw of the match's seeded RNG per turn, only if needed ------------

    def random(self) -> float:
        if self._rng is None:
            self._rng = rng_for(self.state.seed, self.rng_counter)
            self.rng_counter += 1
        return self._rng.random()

    def chance(self, p: float) -> bool:
        return self.random() < p

    def pick(self, options: list[Any]) -> Any:
        return options[int(self.random() * len(options))]

    # --- geometry ------------------------------------------------------------------------

    def name(self, index: int) -> str:
        return square_name(*divmod(index, self.cols))

    def area(self, index: int, size: int) -> list[int]:
        """Squares of the ``size`` x ``size`` square centred on ``index`` (clipped), in board
        order."""
        r0, c0 = divmod(index, self.cols)
        h = size // 2
        return [r * self.cols + c
                for r in range(max(0, r0 - h), min(self.rows, r0 + h + 1))
                for c in range(max(0, c0 - h), min(self.cols, c0 + h + 1))]

    def neighbours(self, index: int) -> list[int]:
        r, c = divmod(index, self.cols)
        return [rr * self.cols + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                if 0 <= rr < self.rows and 0 <= cc < self.cols]

    def marker_at(self, index: int, kinds: Iterable[str] | None = None) -> Marker | None:
        for m in self.markers:
            if m.index == index and m.owner >= 0 and (kinds is None or m.kind in kinds):
                return m
        return None

    def protected(self, index: int, by: int | None) -> bool:
        """True when a Shield of a player other than ``by`` covers ``index``."""
        for m in self.markers:
            if m.kind == "shield" and m.owner != by and index in self.area(m.index, 3):
                return True
        return False

    # --- scores and the combat log -------------------------------------------------------

    def credit(self, points: dict[int, int], effect: str, by: int | None, at: int | None,
               squares: dict[int, list[int]] | None = None, **extra: Any) -> None:
        """Add ``points`` per seat and log one ``effect`` event per seat whose score changed."""
        for seat in sorted(points):
            if points[seat] == 0:
                continue
            self.scores[seat] += points[seat]
            data: dict[str, Any] = {"effect": effect, "by": by, "points": points[seat],
                                    "score": self.scores[seat]}
            if at is not None:
                data["at"] = self.name(at)
            if squares is not None:
                data["squares"] = [self.name(i) for i in squares.get(seat, [])]
            data.update(extra)
            self.events.append(Event("effect", seat, data))

    def note(self, effect: str, by: int | None, at: int | None, **extra: Any) -> None:
        """Log an effect that changes no score (growth, reveals, electrification …)."""
        data: dict[str, Any] = {"effect": effect, "by": by, "points": 0}
        if at is not None:
            data["at"] = self.name(at)
        data.update(extra)
        self.events.append(Event("effect", None, data))

    # --- destruction ---------------------------------------------------------------------

    def letter_worth(self, index: int) -> int:
        """What losing the letter on ``index`` costs its owner: its value times the multipliers
        under it (a wildcard is worth 0; every letter 1 on an irradiated board)."""
        tile = self.cells[index]
        if tile is None or tile.blank or tile.wildcard:
            return 0
        value = 1 if self.irradiated else self.state.ruleset.tiles.value(tile.letter)
        sq = self.squares[index]
        return value * sq.letter_mult * sq.word_mult

    def destroy(self, indexes: Iterable[int], *, effect: str, by: int | None, at: int | None,
                shieldable: bool = True, penalise: bool = True, multipliers: bool = False,
                titanium: bool = False, reveal: float = REVEAL_PLAYER) -> None:
        """Destroy letters, wildcards and scenery on ``indexes`` (and multipliers / Titanium
        when asked). Owners lose what their letters were worth unless ``penalise`` is off (one
        event per owner, naming the squares, even at 0 points); a destroyed scenery tile
        reveals an 11L with chance ``reveal``."""
        lost: dict[int, int] = {}
        where: dict[int, list[int]] = {}
        worths: dict[int, int] = {}
        revealed: list[int] = []
        for i in indexes:
            if shieldable and self.protected(i, by):
                continue
            tile = self.cells[i]
            if tile is not None:
                worth = worths[i] = self.letter_worth(i) if penalise else 0
                lost[tile.owner] = lost.get(tile.owner, 0) - worth
                where.setdefault(tile.owner, []).append(i)
                self.cells[i] = None
            sq = self.squares[i]
            if sq.terrain == SCENERY or (titanium and sq.terrain == TITANIUM):
                if self.chance(reveal):
                    self.squares[i] = Square(letter_mult=ELEVEN)
                    revealed.append(i)
                else:
                    self.squares[i] = Square()
            elif multipliers and multiplier_number(sq) > 1:
                self.squares[i] = Square(terrain=sq.terrain)
        for seat in sorted(where):
            self.scores[seat] += lost[seat]
            self.worths[len(self.events)] = {i: worths[i] for i in where[seat]}
            self.events.append(Event("effect", seat, {
                "effect": effect, "by": by, "points": lost[seat], "score": self.scores[seat],
                **({"at": self.name(at)} if at is not None else {}),
                "squares": [self.name(i) for i in where[seat]], "destroyed": True,
            }))
        for i in revealed:
            self.note("reveal-11L", by, i, source=effect)

    # --- back to an immutable state ------------------------------------------------------

    def freeze(self) -> GameState:
        base = self.layout.squares
        # Unchanged squares are the layout's own objects: test identity before equality (hot path).
        changes = tuple(
            SquareChange(i, sq) for i, sq in enumerate(self.squares)
            if sq is not base[i] and sq != base[i]
        )
        return self.state.evolve(
            cells=tuple(self.cells),
            effects=changes + tuple(self.markers),
            scores=tuple(self.scores),
            electrification=tuple(self.electrification),
            irradiated=self.irradiated,
            rng_counter=self.rng_counter,
        )

