"""Playing tiles: the one play evaluator, the family hooks and the helpers every family's turn
shares.

:func:`evaluate_play` is the only code that judges a play: ``apply`` (``engine.game.turns``),
Word Strength and Hindsight (``engine.analysis``) and the match server's preview all call it, so
they name the same broken rule and the same score. The steps, in order:

1. the family's placement checks (``FamilyHooks.check_placement``): geometry — on the board,
   free squares, one line, no gap, connected or on a start / Star / Water square — and, in War of
   Words, the action tiles and the moves of Rain / Whirlwind;
2. the tiles are on the rack;
3. the words formed, looked up in the lexicon (wildcards resolved);
4. the score with its breakdown (``engine.scoring``).

A family is a :class:`FamilyHooks` object held by its ruleset (``Ruleset.hooks``): the game loop
calls it and never asks which family it plays. :data:`STANDARD` serves classic, wordtiles and
scrabble; War of Words has its own (``engine.warofwords.turn``), built on the helpers here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from wordarena.engine.board import Cells, with_tiles
from wordarena.engine.errors import Rule, RuleError
from wordarena.engine.game.actions import Move, Play
from wordarena.engine.game.endgame import after_turn
from wordarena.engine.game.events import Event
from wordarena.engine.game.state import GameState, PendingPlay
from wordarena.engine.placement import Geometry, Placement, check_placement, check_tokens_on_rack, word_text
from wordarena.engine.rulesets.model import Ruleset, WordCheck
from wordarena.engine.scoring import ScoreBreakdown, bingo_bonus, score_play
from wordarena.engine.tiles import WILDCARD, remove_tokens
from wordarena.engine.words import invalid_words, resolve_words

Events = list[Event]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class CheckedPlacement:
    """What a family's placement checks found: the ruleset whose board is the board as it is
    now (War of Words: as action tiles left it), the geometry of the letters (None for a War of
    Words play of action tiles only) and the family's own findings (``details``)."""

    ruleset: Ruleset
    geometry: Geometry | None
    details: Any = None


@dataclass(frozen=True, slots=True)
class PlayVerdict:
    """The verdict on a play: ``error`` is the rule it breaks (None when it is legal).

    When the placement or the rack refuses the play nothing else is known (no geometry, no
    breakdown). Otherwise the words, the words the lexicon lacks (whenever the state has a
    lexicon, even if the family does not refuse them now) and the breakdown are filled in."""

    seat: int
    tokens: tuple[str, ...]
    error: RuleError | None
    ruleset: Ruleset | None = None
    geometry: Geometry | None = None
    cells: Cells | None = None  # the board with the play's letters on it
    texts: tuple[str, ...] = ()  # the words as laid (wildcards as ``*``)
    words: tuple[str, ...] = ()  # the words as checked (wildcards resolved)
    invalid_words: tuple[str, ...] = ()  # words (as laid) the lexicon lacks
    breakdown: ScoreBreakdown | None = None
    details: Any = None  # the family's findings (War of Words: action tiles and moves)

    @property
    def legal(self) -> bool:
        """True when no rule refuses the play."""
        return self.error is None

    @property
    def rule(self) -> Rule | None:
        """The rule the play breaks, or None."""
        return None if self.error is None else self.error.rule

    @property
    def score(self) -> int:
        """What the play scores (what it would score, when only its words fail); 0 when the
        placement or the rack refuses it."""
        return 0 if self.breakdown is None else self.breakdown.total


class FamilyHooks(Protocol):
    """What a rule family plugs into the one game loop (``Ruleset.hooks``)."""

    def check_placement(
        self, state: GameState, placements: Sequence[Placement], seat: int, moves: Sequence[Move],
    ) -> CheckedPlacement:
        """Apply the family's placement rules, in its order; raise ``RuleError`` on the first
        broken one. The rack is checked afterwards by :func:`evaluate_play`."""
        ...

    def apply_play(self, state: GameState, action: Play, verdict: PlayVerdict) -> tuple[GameState, Events]:
        """Carry out a legal play (``verdict`` from :func:`evaluate_play`)."""
        ...

    def end_of_turn(self, state: GameState, seat: int, events: Events) -> GameState:
        """What happens on the board after every turn (War of Words: persistent effects)."""
        ...

    def initial_effects(self, ruleset: Ruleset) -> tuple[Any, ...]:
        """The board effects a new game starts with (War of Words: clouds)."""
        ...


def evaluate_play(
    state: GameState, placements: Sequence[Placement], seat: int, moves: Sequence[Move] = (),
) -> PlayVerdict:
    """Judge a play of ``seat`` in ``state`` (whose turn it is is not checked here): the one
    evaluator behind ``apply``, preview and Word Strength (see the module)."""
    tokens = tuple(p.token for p in placements)
    try:
        checked = state.ruleset.hooks.check_placement(state, placements, seat, moves)
        check_tokens_on_rack(state.racks[seat], tokens)
    except RuleError as exc:
        return PlayVerdict(seat, tokens, exc)
    ruleset, geometry = checked.ruleset, checked.geometry
    if geometry is None:  # War of Words: action tiles only, worth their bingo
        bingo = bingo_bonus(ruleset, tokens)
        return PlayVerdict(seat, tokens, None, ruleset, None, state.cells,
                           breakdown=ScoreBreakdown((), bingo, bingo), details=checked.details)
    cells = with_tiles(state.cells, geometry.placed)
    texts = tuple(word_text(cells, w) for w in geometry.words)
    bad: tuple[str, ...] = ()
    resolved: list[str | None] = []
    if state.lexicon is not None:
        resolved = resolve_words(texts, state.lexicon, state.ruleset.tiles.letters)
        bad = invalid_words(texts, resolved)
    if state.check_words and state.lexicon is not None:
        words = tuple(r or t for r, t in zip(resolved, texts, strict=True))
    else:
        words = tuple(t.replace(WILDCARD, "?") for t in texts)
    breakdown = score_play(ruleset, cells, geometry, words, tokens, state.board_effects)
    error = None
    if bad and state.check_words and state.ruleset.word_check is WordCheck.IMMEDIATE:
        error = RuleError(Rule.WORD_NOT_IN_LEXICON,
                          f"not in the {state.ruleset.lexicon} word list: {', '.join(bad)}", bad)
    return PlayVerdict(seat, tokens, error, ruleset, geometry, cells, texts, words, bad,
                       breakdown, checked.details)


# --- the helpers every family's turn shares ------------------------------------------------


def play_data(geometry: Geometry, words: tuple[str, ...], breakdown: ScoreBreakdown) -> dict[str, Any]:
    """The data of a ``play`` event (and of its pending / accepted / checked forms)."""
    return {
        "placed": [[i, t.letter, t.blank] for i, t in geometry.placed],
        "across": geometry.across,
        "words": list(words),
        "score": breakdown.total,
        "breakdown": breakdown.to_dict(),
    }


def replace_at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """``values`` with the item at ``index`` replaced (a seat's rack, score, count …)."""
    return (*values[:index], value, *values[index + 1:])


def draw(state: GameState, seat: int) -> tuple[GameState, list[str]]:
    """Refill ``seat``'s rack from the front of the bag."""
    k = max(0, state.ruleset.rack_size - len(state.racks[seat]))
    drawn = list(state.bag[:k])
    racks = replace_at(state.racks, seat, state.racks[seat] + tuple(drawn))
    return state.evolve(racks=racks, bag=state.bag[k:]), drawn


def commit_play(
    state: GameState, seat: int, geometry: Geometry, words: tuple[str, ...],
    breakdown: ScoreBreakdown, event_type: str, advance: bool = True,
) -> tuple[GameState, Events]:
    """Credit a play already on the board, refill the rack, and move on (or end the game)."""
    scores = list(state.scores)
    scores[seat] += breakdown.total
    state = state.evolve(scores=tuple(scores), pending=None)
    state, drawn = draw(state, seat)
    events = [Event(event_type, seat, play_data(geometry, words, breakdown))]
    events.append(Event("tiles-drawn", seat, {"count": len(drawn), "private": {"tiles": drawn}}))
    kind = "scoreless" if breakdown.total == 0 else "word"
    return after_turn(state, seat, kind, events, advance=advance,
                      turn_taken=event_type == "play")


def _letters_of(verdict: PlayVerdict) -> tuple[Geometry, Cells, ScoreBreakdown]:
    """The geometry, board and breakdown of a legal letter play."""
    geometry, cells, breakdown = verdict.geometry, verdict.cells, verdict.breakdown
    if verdict.error is not None or geometry is None or cells is None or breakdown is None:
        raise ValueError("apply_play needs the verdict of a legal letter play")
    return geometry, cells, breakdown


class StandardHooks:
    """classic, wordtiles and scrabble: letters only, on a board that never changes."""

    def check_placement(
        self, state: GameState, placements: Sequence[Placement], seat: int, moves: Sequence[Move],
    ) -> CheckedPlacement:
        """The shared geometry rules (``engine.placement``); moves are not part of the game."""
        return CheckedPlacement(state.ruleset, check_placement(state.ruleset, state.cells, placements, seat))

    def apply_play(self, state: GameState, action: Play, verdict: PlayVerdict) -> tuple[GameState, Events]:
        """Lay the tiles; credit them now, or (deferred word check) leave them pending."""
        geometry, cells, breakdown = _letters_of(verdict)
        seat, words = action.seat, verdict.words
        rack = remove_tokens(state.racks[seat], verdict.tokens)
        state = state.evolve(cells=cells, racks=replace_at(state.racks, seat, rack),
                             last_play=tuple(i for i, _ in geometry.placed))
        if state.ruleset.word_check is WordCheck.DEFERRED:
            pending = PendingPlay(seat, geometry, verdict.tokens, words, breakdown)
            state = state.evolve(pending=pending, to_move=state.next_active(seat),
                                 turn=state.turn + 1)
            return state, [Event("play-pending", seat, play_data(geometry, words, breakdown))]
        return commit_play(state, seat, geometry, words, breakdown, "play")

    def end_of_turn(self, state: GameState, seat: int, events: Events) -> GameState:
        """Nothing acts on the board between turns."""
        return state

    def initial_effects(self, ruleset: Ruleset) -> tuple[Any, ...]:
        """No board effects."""
        return ()


STANDARD = StandardHooks()
