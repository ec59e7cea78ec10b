"""The ``Ruleset``: everything that makes one game differ from another, as data and small
named policies plugged into the one game loop (``engine.game``); what only code can say (War of
Words' action tiles) comes in through the family's hooks object (``Ruleset.hooks``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from wordarena.engine.rulesets.layout import BoardLayout
from wordarena.engine.tiles import TileSet

if TYPE_CHECKING:  # the hooks act on game states: a type only, never imported at run time
    from wordarena.engine.game.play import FamilyHooks


class WordFactor(StrEnum):
    """How word multipliers under the new tiles of one word combine."""

    MULTIPLY = "multiply"  # classic, scrabble, wordtiles: two DW = x4
    ADD = "add"  # warofwords: 3W and 5W = x8


class WordCheck(StrEnum):
    """When words are checked against the lexicon."""

    IMMEDIATE = "immediate"  # a play with an unknown word is refused
    DEFERRED = "deferred"  # wordtiles: the play waits for the next player to accept or check
    NONE = "none"  # records from other word lists (GCG check)


class FirstPlay(StrEnum):
    """Where a play may stand when it touches no tile on the board."""

    START_SQUARE = "start-square"  # only the first play, through the start star
    STAR_OR_WATER = "star-or-water"  # warofwords: any play covering a Star or Water square


class OutRule(StrEnum):
    """What happens to the racks left when a player goes out with the bag empty."""

    TRANSFER = "transfer"  # opponents lose their rack values; the player out gains their sum
    DOUBLE = "double"  # tournament Scrabble: the player out gains twice the sum, no deduction
    DEDUCT = "deduct"  # warofwords: everyone loses their own letters, nobody gains


@dataclass(frozen=True, slots=True)
class Bingo:
    """A bonus for using many tiles in one turn; the first matching entry of a ruleset wins."""

    count: int
    bonus: int
    letters_only: bool = False  # warofwords: count letters (incl. wildcards), not action tiles


@dataclass(frozen=True, slots=True)
class ExchangeRule:
    """When a player may exchange (swap) tiles."""

    min_bag: int  # the bag must hold at least this many tiles (and at least as many as swapped)
    per_player: int | None  # how many exchanges each player has in a game (None: unlimited)


@dataclass(frozen=True, slots=True)
class ZeroTurnRule:
    """The game ends after a run of consecutive turns that count as 'zero' for the family."""

    counts: frozenset[str]  # kinds of turn that extend the run: pass, exchange, scoreless, failed
    limit: int  # run length that ends the game (fixed), or per active player when per_player
    per_active_player: bool = False  # wordtiles: two full rounds = 2 x active players
    zero_zero_limit: int | None = None  # classic: the run needed while every score is still 0


#: A correspondence per-turn deadline may be set from 1 hour to 30 days.
TURN_DEADLINE_RANGE = (3600, 30 * 86400)


@dataclass(frozen=True, slots=True)
class ClockRule:
    """The family's timing, in seconds.

    The game clock (chess clock): ``default`` per player (0: none unless a table sets one within
    ``minimum..maximum``). ``overtime_points`` > 0 (scrabble): a clock may run past zero; each
    started minute over costs that many points at the game's end, and a seat that reaches
    ``max_overtime`` over times out. Otherwise a clock at zero times the seat out.
    ``turn_deadline`` > 0 (classic, warofwords): the correspondence deadline of each turn by
    default (a table sets 1 hour .. 30 days); 0 when the family has none (the game clock rules).
    """

    default: int
    minimum: int
    maximum: int
    overtime_points: int = 0
    max_overtime: int = 0
    turn_deadline: int = 0

    def check_game_clock(self, seconds: float, name: str) -> str:
        """Why ``seconds`` per player is no game clock of ``name``'s (empty when it is)."""
        if self.default > 0 and (not self.minimum <= seconds <= self.maximum or seconds % 60):
            return (f"{name} clock must be {self.minimum // 60}..{self.maximum // 60} whole "
                    f"minutes per player, not {seconds:g} s")
        if self.default <= 0 and not 60 <= seconds <= self.maximum:
            return f"{name} clock must be 1 minute .. {self.maximum // 86400} days if set"
        return ""

    def check_turn_deadline(self, seconds: float, name: str) -> str:
        """Why ``seconds`` is no per-turn deadline of ``name``'s (empty when it is)."""
        if not self.turn_deadline:
            return f"{name} has no per-turn deadline: it is timed by its game clock"
        low, high = TURN_DEADLINE_RANGE
        if not low <= seconds <= high:
            return f"the per-turn deadline must be 1 hour .. 30 days, not {seconds:g} s"
        return ""


@dataclass(frozen=True)
class Ruleset:
    """A playable game: family policies + board + tile set + lexicon name."""

    id: str  # "<family>/<language>[/<board>]" e.g. "classic/es", "warofwords/en/warofwords-oasis"
    family: str
    language: str
    name: str
    board: BoardLayout
    tiles: TileSet
    lexicon: str
    rack_size: int
    min_players: int
    max_players: int
    bingos: tuple[Bingo, ...]
    word_factor: WordFactor
    colour_bonus: int  # wordtiles: factor for a tile on its colour (3); 0 elsewhere
    word_check: WordCheck
    first_play: FirstPlay
    first_play_min_tiles: int
    exchange: ExchangeRule
    zero_turns: ZeroTurnRule
    out_rule: OutRule
    bonus_letter: bool  # warofwords: +10 for a word holding the game's Bonus Letter
    bonus_letter_points: int
    clock: ClockRule
    # the family's turn, plugged into the one game loop (``engine.game.play.FamilyHooks``)
    hooks: FamilyHooks = field(repr=False, compare=False)  # follows from the family
    idle_kick: bool = False  # warofwords: another player may kick the idle player to move

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description for clients and the CLI."""
        return {
            "id": self.id,
            "family": self.family,
            "language": self.language,
            "name": self.name,
            "board": self.board.describe(),
            "tiles": self.tiles.describe(),
            "lexicon": self.lexicon,
            "rack_size": self.rack_size,
            "players": [self.min_players, self.max_players],
            "bingos": [
                {"count": b.count, "bonus": b.bonus, "letters_only": b.letters_only}
                for b in self.bingos
            ],
            "word_multipliers": self.word_factor.value,
            "word_check": self.word_check.value,
            "first_play": self.first_play.value,
            "exchange": {"min_bag": self.exchange.min_bag, "per_player": self.exchange.per_player},
            "zero_turn_limit": self.zero_turns.limit,
            "out_rule": self.out_rule.value,
            "idle_kick": self.idle_kick,
            "clock": {"default": self.clock.default, "min": self.clock.minimum,
                      "max": self.clock.maximum, "overtime_points": self.clock.overtime_points,
                      "max_overtime": self.clock.max_overtime,
                      "turn_deadline": self.clock.turn_deadline},
        }
