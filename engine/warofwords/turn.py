"""A War of Words Play: letters and / or action tiles (and moves of the player's own Rain or
Whirlwind), scored in the text's order:

1. constructive scoring — the word(s) made of the letters, on the board as it is before this
   turn's action tiles act, except that a multiplier tile or Star put down in the play lies
   under a letter of the play on its square ("L Multipliers under letters played this turn");
   the bingo counts every tile;
2. the action tiles take their places (multipliers, Stars, persistent tiles, moves);
3. destructive scoring — each destructive tile played (or Whirlwind played or moved) in board
   order, top to bottom then left to right; the player's own word was credited first;
4. persistent effects — at the end of every turn, in ``engine.warofwords.persist`` (called from
   the turn bookkeeping, so passes and swaps run them too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from wordarena.engine.errors import Rule, RuleError
from wordarena.engine.game.actions import Move, Play
from wordarena.engine.game.endgame import after_turn
from wordarena.engine.game.events import Event
from wordarena.engine.game.play import CheckedPlacement, PlayVerdict, draw, play_data, replace_at
from wordarena.engine.game.state import GameState
from wordarena.engine.placement import Placement, check_placement
from wordarena.engine.rulesets.layout import PLAIN, SAND, WATER, BoardLayout, Square
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.tiles import is_action, remove_tokens
from wordarena.engine.warofwords import effects
from wordarena.engine.warofwords.arena import Arena, Marker, live_ruleset, portal_links
from wordarena.engine.warofwords.catalog import FACINGS, ActionSpec, Kind, Target, spec_of
from wordarena.engine.warofwords.clouds import initial_effects
from wordarena.engine.warofwords.persist import end_of_turn

Events = list[Event]


@dataclass(frozen=True, slots=True)
class ActionPlay:
    """What the War of Words checks found beyond the letters: the action tiles played (with
    their specs) and the moves, as (from, to) square indexes."""

    tiles: tuple[Placement, ...]
    specs: tuple[ActionSpec, ...]
    moves: tuple[tuple[int, int], ...]


class WarOfWordsHooks:
    """The War of Words turn in the one game loop: action tiles, live squares, portals, moves
    of Rain / Whirlwind, persistent effects and clouds."""

    def check_placement(
        self, state: GameState, placements: Sequence[Placement], seat: int, moves: Sequence[Move],
    ) -> CheckedPlacement:
        """Bounds and duplicates of every tile, the letters' geometry (read through the portal
        pairs already open), then the action tiles and the moves."""
        if not placements:
            raise RuleError(Rule.NO_TILES, "play at least one tile: moving a Rain or Whirlwind "
                                           "alone is not a turn")
        letters = tuple(p for p in placements if not is_action(p.letter))
        tiles = tuple(p for p in placements if is_action(p.letter))
        ruleset = live_ruleset(state)
        layout = ruleset.board
        for p in placements:
            if not layout.in_bounds(p.row, p.col):
                raise RuleError(Rule.OFF_BOARD, f"({p.row}, {p.col}) is off the board")
        _check_squares_once(layout, letters, tiles)
        specs = tuple(_check_action(state, p) for p in tiles)
        # A multiplier tile or Star put down with a letter on it lies under that letter ("L
        # Multipliers under letters played this turn"): the letters are placed and scored on
        # the board with this play's square tiles.
        ruleset = with_square_tiles(ruleset, [(layout.index(p.row, p.col), spec)
                                              for p, spec in zip(tiles, specs, strict=True)])
        # Letters are read through the portal pairs already open (not those put down now).
        links = portal_links(state)
        geometry = check_placement(ruleset, state.cells, letters, seat, links) if letters else None
        placed = {layout.index(p.row, p.col) for p in tiles}
        checked_moves = tuple(_check_moves(state, seat, moves, placed))
        return CheckedPlacement(ruleset, geometry, ActionPlay(tiles, specs, checked_moves))

    def apply_play(self, state: GameState, action: Play, verdict: PlayVerdict) -> tuple[GameState, Events]:
        """Carry out a legal War of Words play (see the module for the order)."""
        return play_turn(state, action, verdict)

    def end_of_turn(self, state: GameState, seat: int, events: Events) -> GameState:
        """Persistent effects and clouds act after every turn."""
        return end_of_turn(state, seat, events) if state.effects else state

    def initial_effects(self, ruleset: Ruleset) -> tuple[Any, ...]:
        """The clouds of the board."""
        return initial_effects(ruleset)


WAR_OF_WORDS = WarOfWordsHooks()


def play_turn(state: GameState, action: Play, verdict: PlayVerdict) -> tuple[GameState, Events]:
    """Apply a War of Words Play judged legal by ``engine.game.play.evaluate_play`` (turn and
    pending checks already done by the caller)."""
    seat = action.seat
    arena = resolve_play(state, seat, verdict)
    state = arena.freeze()
    events = arena.events

    # refill the rack, then the turn's bookkeeping (persistent effects, end of game)
    state, drawn = draw(state, seat)
    events.append(Event("tiles-drawn", seat, {"count": len(drawn), "private": {"tiles": drawn}}))
    assert verdict.breakdown is not None  # resolve_play checked it
    kind = "scoreless" if verdict.breakdown.total == 0 else "word"
    return after_turn(state, seat, kind, events)


def resolve_play(state: GameState, seat: int, verdict: PlayVerdict) -> Arena:
    """Steps 1 to 3 of a legal War of Words play of ``seat`` (see the module): the word credited,
    the action tiles in their places, moves made, destructive tiles resolved in board order.
    The one writer of what a play does: ``play_turn`` freezes the arena returned, the preview
    (``foresee``) reads it. Its events start with the ``play`` event; nothing is drawn yet."""
    found = verdict.details
    breakdown, ruleset = verdict.breakdown, verdict.ruleset
    if verdict.error is not None or not isinstance(found, ActionPlay) or breakdown is None \
            or ruleset is None or verdict.cells is None:
        raise ValueError("resolve_play needs the verdict of a legal War of Words play")
    tiles, specs, moves = found.tiles, found.specs, found.moves
    layout = ruleset.board
    tokens = verdict.tokens

    # 1. constructive scoring (done by the evaluator)
    cells = verdict.cells
    geometry = verdict.geometry
    if geometry is not None:
        data = play_data(geometry, verdict.words, breakdown)
        last_play = tuple(i for i, _ in geometry.placed)
    else:
        data = {"placed": [], "across": True, "words": [], "score": breakdown.total,
                "breakdown": breakdown.to_dict()}
        last_play = ()
    if tiles:
        data["actions"] = [[layout.index(p.row, p.col), p.letter] + ([p.facing] if p.facing else [])
                           for p in tiles]
    if moves:
        data["moves"] = [[a, b] for a, b in moves]
    scores = list(state.scores)
    scores[seat] += breakdown.total
    rack = remove_tokens(state.racks[seat], tokens)
    state = state.evolve(cells=cells, racks=replace_at(state.racks, seat, rack),
                         scores=tuple(scores), last_play=last_play)

    # 2. action tiles take their places; 3. destructive tiles in board order
    arena = Arena(state)
    arena.events.append(Event("play", seat, data))
    for index, spec, facing in _destructive(arena, seat, tiles, specs, moves):
        effects.destroy_with(arena, spec.name, index, seat, facing)
    return arena


def _destructive(arena: Arena, seat: int, tiles: Sequence[Placement], specs: Sequence[ActionSpec],
                 moves: Sequence[tuple[int, int]]) -> list[tuple[int, ActionSpec, str]]:
    """Step 2 on ``arena`` (square tiles placed, lasting tiles put down, moves made); the
    destructive tiles to resolve, as (square, spec, facing), in board order."""
    layout = arena.layout
    destructive: list[tuple[int, ActionSpec, str]] = []
    for p, spec in zip(tiles, specs, strict=True):
        index = layout.index(p.row, p.col)
        if spec.kind is Kind.SQUARE:
            _place_square_tile(arena, index, spec)
        elif spec.kind is Kind.PERSISTENT:
            arena.markers.append(Marker(spec.name, index, seat))
            if spec.name == "whirlwind":
                destructive.append((index, spec, ""))
        elif spec.kind is Kind.BOARD:
            arena.markers.append(Marker(spec.name, index, seat))
        else:
            destructive.append((index, spec, p.facing))
    for src, dst in moves:
        for k, m in enumerate(arena.markers):
            if m.index == src and m.owner == seat and m.kind in ("rain", "whirlwind"):
                arena.markers[k] = Marker(m.kind, dst, m.owner, m.age)
                arena.note("moved", seat, dst, tile=m.kind, origin=arena.name(src))
                if m.kind == "whirlwind":
                    whirlwind = spec_of("@whirlwind")
                    assert whirlwind is not None
                    destructive.append((dst, whirlwind, ""))
                break
    return sorted(destructive, key=lambda d: d[0])


def _check_action(state: GameState, p: Placement) -> ActionSpec:
    """Refuse an action tile that is unknown, lacks its facing or stands where it may not."""
    spec = spec_of(p.letter)
    if spec is None:
        raise RuleError(Rule.LETTER_NOT_IN_SET, f"{p.letter!r} is not an action tile")
    if spec.needs_facing and p.facing not in FACINGS:
        raise RuleError(Rule.NOT_ALLOWED,
                        f"a {spec.name} needs a facing: one of {', '.join(FACINGS)}")
    if not spec.needs_facing and p.facing:
        raise RuleError(Rule.NOT_ALLOWED, f"a {spec.name} has no facing")
    arena = Arena(state)
    index = state.ruleset.board.index(p.row, p.col)
    square = arena.squares[index]
    where = arena.name(index)
    if spec.target is Target.EMPTY:
        if arena.cells[index] is not None:
            raise RuleError(Rule.SQUARE_OCCUPIED, f"{where} already holds a letter")
        if square.blocked:
            raise RuleError(Rule.SQUARE_BLOCKED, f"{where} is {square.terrain}")
        if spec.name == "star" and square.terrain != PLAIN:
            raise RuleError(Rule.NOT_ALLOWED, f"a Star goes on a plain square, not on "
                                              f"{square.terrain}")
    elif spec.target is Target.WATER and square.terrain != WATER:
        raise RuleError(Rule.NOT_ALLOWED, f"a {spec.name} must be put on Water")
    elif spec.target is Target.SAND and square.terrain != SAND:
        raise RuleError(Rule.NOT_ALLOWED, f"{spec.name} has no effect off Sand")
    if spec.kind in (Kind.PERSISTENT, Kind.SQUARE) and arena.marker_at(index) is not None:
        raise RuleError(Rule.SQUARE_OCCUPIED, f"{where} already holds an action tile")
    return spec


def _check_moves(state: GameState, seat: int, moves: Sequence[Move],
                 placed: set[int]) -> list[tuple[int, int]]:
    """The moves of a play as (from, to) square indexes, each of the player's own Rain or
    Whirlwind, to a square of the board holding no other action tile, on the board or put down
    by this play (``placed``)."""
    layout = state.ruleset.board
    arena = Arena(state)
    out: list[tuple[int, int]] = []
    moved: set[int] = set()
    taken = set(placed)  # action tiles put down by this play and moved effects' new squares
    for m in moves:
        if not (layout.in_bounds(m.from_row, m.from_col) and layout.in_bounds(m.to_row, m.to_col)):
            raise RuleError(Rule.OFF_BOARD, "a move must stay on the board")
        src, dst = layout.index(m.from_row, m.from_col), layout.index(m.to_row, m.to_col)
        marker = arena.marker_at(src, ("rain", "whirlwind"))
        if marker is None or marker.owner != seat or src in moved:
            raise RuleError(Rule.EFFECT_NOT_MOVABLE,
                            f"there is no Rain or Whirlwind of yours to move at {arena.name(src)}")
        if (arena.marker_at(dst) is not None and dst != src) or dst in taken:
            raise RuleError(Rule.SQUARE_OCCUPIED, f"{arena.name(dst)} already holds an action tile")
        moved.add(src)
        taken.add(dst)
        out.append((src, dst))
    return out


def _check_squares_once(layout: BoardLayout, letters: Sequence[Placement],
                        tiles: Sequence[Placement]) -> None:
    """No two tiles of one play share a square, except a letter on a multiplier tile or Star
    put down in the same play (DUPLICATE_SQUARE otherwise)."""
    under = [layout.index(p.row, p.col) for p in tiles
             if (spec := spec_of(p.letter)) is not None and spec.kind is Kind.SQUARE]
    others = [layout.index(p.row, p.col) for p in tiles
              if (spec := spec_of(p.letter)) is None or spec.kind is not Kind.SQUARE]
    on_top = [layout.index(p.row, p.col) for p in letters] + others
    if len(set(under)) != len(under) or len(set(on_top)) != len(on_top) \
            or set(under) & set(others):
        raise RuleError(Rule.DUPLICATE_SQUARE,
                        "two tiles on the same square (only a letter may go on a multiplier "
                        "tile or Star put down in the same play)")


def square_with(old: Square, spec: ActionSpec) -> Square:
    """A square after a square tile lands on it: a multiplier tile replaces the square's
    multiplier; a Star makes the square a Star."""
    if spec.name == "star":
        return Square(old.letter_mult, old.word_mult, terrain="star")
    return Square(spec.letter_mult, spec.word_mult, terrain=old.terrain)


def with_square_tiles(ruleset: Ruleset, placed: Sequence[tuple[int, ActionSpec]]) -> Ruleset:
    """``ruleset`` whose board has the square tiles (multipliers, Stars) of ``placed``."""
    squares = [(i, spec) for i, spec in placed if spec.kind is Kind.SQUARE]
    if not squares:
        return ruleset
    board = list(ruleset.board.squares)
    for i, spec in squares:
        board[i] = square_with(board[i], spec)
    return replace(ruleset, board=replace(ruleset.board, squares=tuple(board)))


def _place_square_tile(arena: Arena, index: int, spec: ActionSpec) -> None:
    """A square tile takes its place (``square_with``)."""
    arena.squares[index] = square_with(arena.squares[index], spec)
    arena.note("placed", None, index, tile=spec.name)


