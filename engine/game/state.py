"""The state of a match: immutable, rebuilt exactly by replaying its events from the seed."""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, Protocol

from wordarena.engine.board import Cells, empty_cells
from wordarena.engine.errors import InputError
from wordarena.engine.placement import Geometry
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.scoring import BoardEffects, ScoreBreakdown
from wordarena.engine.tiles import is_letter_token


class Lexicon(Container[str], Protocol):
    """What the game needs of a lexicon: membership of normalised (upper-case) words."""


class Seat(StrEnum):
    """A seat's standing in the match."""

    ACTIVE = "active"
    RESIGNED = "resigned"
    TIMED_OUT = "timed-out"
    LEFT = "left"
    KICKED = "kicked"


@dataclass(frozen=True, slots=True)
class PendingPlay:
    """wordtiles: a play on the board waiting for the next player to accept or check it."""

    seat: int
    geometry: Geometry
    tokens: tuple[str, ...]
    words: tuple[str, ...]
    breakdown: ScoreBreakdown


@dataclass(frozen=True, slots=True)
class GameResult:
    """How the game ended: final scores, end-of-game adjustments, winners (ties allowed)."""

    reason: str  # "out", "zero-turns", "resigned", "last-player", …
    scores: tuple[int, ...]
    adjustments: tuple[int, ...]
    winners: tuple[int, ...]
    overtime_penalties: tuple[int, ...] = ()  # scrabble: points lost for time over (<= 0 each)


#: The engine's rules version, recorded in every new game's ``game-started`` event so that a
#: replay plays a game by the rules it was played under (logs without one are version 1).
#: Version 2 (War of Words): Quicksand re-scores the words as played, the supply holds 9
#: Lightning tiles, inactive players' letters are deducted at the end.
RULES = 2


@dataclass(frozen=True)
class GameState:
    """Everything about a match at one moment. Never mutated: ``apply`` returns a new one."""

    ruleset: Ruleset
    seed: int
    cells: Cells
    racks: tuple[tuple[str, ...], ...]
    bag: tuple[str, ...]  # draw order: front first; never shown to players
    scores: tuple[int, ...]
    to_move: int
    seats: tuple[Seat, ...]
    zero_run: int = 0  # consecutive turns that count towards the family's zero-turn end
    exchanges: tuple[int, ...] = ()
    pending: PendingPlay | None = None
    turn: int = 0  # turns taken so far
    rounds: int = 0  # complete rounds: times the turn came back round to the first seat
    rng_counter: int = 1  # 0 is the initial shuffle
    bonus_letter: str | None = None
    irradiated: bool = False
    electrification: tuple[int, ...] = ()
    effects: tuple[Any, ...] = ()  # warofwords persistent effects (action tiles)
    check_words: bool = True
    last_play: tuple[int, ...] = ()
    overtime: tuple[float, ...] = ()  # seconds each seat's game clock has run past zero (scrabble)
    result: GameResult | None = None
    lexicon: Lexicon | None = field(default=None, compare=False, repr=False)
    rules: int = RULES  # the rules version the game is played under (``RULES``)
    pass_and_play: bool = False  # one device plays every seat: a resignation ends the game

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def players(self) -> int:
        return len(self.racks)

    @property
    def active_seats(self) -> tuple[int, ...]:
        return tuple(i for i, s in enumerate(self.seats) if s is Seat.ACTIVE)

    @property
    def board_effects(self) -> BoardEffects:
        return BoardEffects(self.bonus_letter, self.irradiated, self.electrification)

    def bag_letters(self) -> int:
        """Letter tiles (not action tiles) left in the bag."""
        return sum(1 for t in self.bag if is_letter_token(t))

    def next_active(self, after: int) -> int:
        """The next active seat after ``after`` (wrapping)."""
        n = self.players
        for step in range(1, n + 1):
            seat = (after + step) % n
            if self.seats[seat] is Seat.ACTIVE:
                return seat
        return after

    def rack_value(self, seat: int) -> int:
        """What the letters left on a rack count at the end: their face values, or 1 each on an
        irradiated board (War of Words: "If the board is irradiated …, all letters are worth 1
        point" — all letters, those left on a rack too; a blank is worth 0 either way)."""
        values = (self.ruleset.tiles.value(t) for t in self.racks[seat] if is_letter_token(t))
        return sum(min(v, 1) if self.irradiated else v for v in values)

    def evolve(self, **changes: Any) -> GameState:
        """A copy with ``changes``: ``dataclasses.replace`` without re-running ``__init__``
        (a bot's turn evolves the state five times; replace took a tenth of a self-play game)."""
        unknown = changes.keys() - _FIELDS
        if unknown:
            raise TypeError(f"GameState has no field {sorted(unknown)[0]!r}")
        new = object.__new__(GameState)
        fields_of = new.__dict__
        fields_of.update(self.__dict__)
        fields_of.update(changes)
        return new


_FIELDS = frozenset(f.name for f in fields(GameState))


def set_rack(state: GameState, seat: int, tiles: tuple[str, ...]) -> GameState:
    """Give ``seat`` exactly ``tiles``, swapping with the bag (for records and analysis).

    The seat's current rack goes back into the bag and the named tiles come out of it; refused
    with ``InputError`` when the bag and rack together do not hold them."""
    pool = list(state.bag) + list(state.racks[seat])
    for token in tiles:
        try:
            pool.remove(token)
        except ValueError:
            raise InputError(
                f"rack {''.join(tiles)!r} needs a {token!r} that is neither in the bag nor "
                f"on the rack", "rack"
            ) from None
    racks = list(state.racks)
    racks[seat] = tuple(tiles)
    return state.evolve(racks=tuple(racks), bag=tuple(pool))


def initial_cells(ruleset: Ruleset) -> Cells:
    return empty_cells(ruleset.board.rows, ruleset.board.cols)
