"""Test support for move generation: a small lexicon, random positions, and a slow,
obviously-correct enumerator to compare the generator with."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from itertools import permutations, product

from wordarena.engine.board import with_tiles
from wordarena.engine.errors import RuleError
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Decide, GameState, apply, set_rack, start_game
from wordarena.engine.lexicon import compile_words, load_lexicon
from wordarena.engine.lexicon.alphabet import ALPHABETS
from wordarena.engine.movegen.native_bridge import ENV
from wordarena.engine.placement import NO_LINKS, Placement, check_placement, next_square, word_text
from wordarena.engine.scoring import score_play
from wordarena.engine.tiles import BLANK, WILDCARD
from wordarena.engine.words import invalid_words, resolve_word, resolve_words

FAMILIES = ("classic", "scrabble", "wordtiles", "warofwords")
IMPLEMENTATIONS = ("python", "native")


@contextmanager
def movegen_implementation(name: str) -> Iterator[None]:
    """Run the block with ``WORDARENA_MOVEGEN`` set to ``name`` (``engine.movegen.native_bridge``)."""
    before = os.environ.get(ENV)
    os.environ[ENV] = name
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before


def moves_by(name: str, state: GameState, seat: int | None = None) -> list:
    """``generate_moves(state, seat)`` with the implementation ``name``."""
    from wordarena.engine.movegen import generate_moves

    with movegen_implementation(name):
        return generate_moves(state, seat)


def native_covers(state: GameState, seat: int | None = None) -> bool:
    """True when the native core answers this position itself: every position of the tests,
    War of Words wildcards and open portal pairs included (docs/movegen.md)."""
    return True


def state_links(state: GameState) -> dict[int, int]:
    """The open portal pairs of ``state`` (empty outside War of Words)."""
    from wordarena.engine.warofwords.arena import portal_links

    return portal_links(state) if state.effects else {}


def agreed_moves(state: GameState, seat: int | None = None) -> list:
    """The moves of ``state``, checked to be the same list (tiles, scores, directions, order)
    from the Python generator and the native core; and, where the native core covers the
    position, proof that it answered (it did not hand the position back to Python)."""
    from wordarena.engine.movegen.api import board_ruleset, native_generate

    python = moves_by("python", state, seat)
    native = moves_by("native", state, seat)
    if python != native:
        p, n = {m.key: m for m in python}, {m.key: m for m in native}
        missed = sorted(set(p) - set(n))[:3]
        extra = sorted(set(n) - set(p))[:3]
        wrong = [(p[k], n[k]) for k in p if k in n and p[k] != n[k]][:3]
        raise AssertionError(
            f"native != python: {len(python)} vs {len(native)} moves; native misses {missed}, "
            f"adds {extra}, differs on {wrong}" if (missed or extra or wrong)
            else "native != python: same moves in another order")
    if native_covers(state, seat):
        who = state.to_move if seat is None else seat
        ruleset = board_ruleset(state)
        answered = native_generate(ruleset, state.cells, state.racks[who], state.lexicon,
                                   state.board_effects, state_links(state))
        assert answered is not None, "the native core declined a position it covers"
    return native


@cache
def small_lexicon(size: int = 2500, seed: int = 7, longest: int = 5):
    """A few thousand short English words (2 to ``longest`` letters), compiled like the real
    lexicon."""
    rng = random.Random(seed)
    words = [w for w in load_lexicon("en").words() if 2 <= len(w) <= longest]
    twos = [w for w in words if len(w) == 2]
    chosen = set(rng.sample(words, size)) | set(twos)
    return compile_words(chosen, "en", ALPHABETS["en"])


def random_position(family: str, seed: int, lexicon, plays: int | None = None,
                    rack_len: int | None = None, jokers: int | None = None) -> GameState:
    """A legal position reached by random moves, with a small random rack for the seat to move."""
    from wordarena.engine.movegen import generate_moves

    rng = random.Random(seed)
    ruleset = get_ruleset(family)
    state, _ = start_game(ruleset, 2, seed, lexicon)
    if family == "warofwords" and rng.random() < 0.5:
        patches = len(state.electrification)
        state = state.evolve(electrification=tuple(rng.choice((1, 1, 2, 3)) for _ in range(patches)),
                             irradiated=rng.random() < 0.2)
    for _ in range(rng.randint(0, 6) if plays is None else plays):
        moves = generate_moves(state)
        if not moves:
            break
        move = rng.choice(moves[: max(1, len(moves) // 2)])
        state, _ = apply(state, move.to_play(state.to_move))
        if state.pending is not None:
            state, _ = apply(state, Decide(state.to_move, True))
        if state.over:
            break
    joker = WILDCARD if WILDCARD in ruleset.tiles.counts else BLANK
    pool = list(state.bag) + list(state.racks[state.to_move])
    naturals = [t for t in pool if t not in (BLANK, WILDCARD) and not t.startswith("@")]
    n = rng.randint(2, 3 if joker == WILDCARD else 4) if rack_len is None else rack_len
    k = (rng.choice((0, 0, 1, 1, 2)) if jokers is None else jokers)
    k = min(k, pool.count(joker), n)
    rack = [joker] * k + rng.sample(naturals, n - k)
    return set_rack(state, state.to_move, tuple(rack))


def brute_force(state: GameState, seat: int | None = None, links=NO_LINKS) -> dict[tuple, int]:
    """Every legal play as {move key: score}: every line, every start square, every ordered
    selection of rack tokens (blanks as every letter of the set), checked by the validator, the
    word list and the scorer. A move key is ((square, letter, blank), ...) sorted by square.

    With portal ``links`` a line from a start square is the chain ``next_square`` walks from it
    (stopping before it comes back to the start), and the validator reads through the links."""
    seat = state.to_move if seat is None else seat
    ruleset, cells, lexicon = state.ruleset, state.cells, state.lexicon
    letters = ruleset.tiles.letters
    rack = [t for t in state.racks[seat] if not t.startswith("@")]
    rows, cols = ruleset.board.rows, ruleset.board.cols
    found: dict[tuple, int] = {}
    if links:
        layout = ruleset.board
        for across in (True, False):
            for start in range(rows * cols):
                if cells[start] is not None:
                    continue
                chain, j = [], start
                while j is not None and (j != start or not chain):
                    chain.append(j)
                    j = next_square(layout, links, j, across, True)
                empties = [s for s in chain if cells[s] is None]
                for k in range(1, min(len(rack), len(empties)) + 1):
                    _try_squares(state, empties[:k], rack, letters, lexicon, found, seat, links)
        return found
    for across in (True, False):
        for line in range(rows if across else cols):
            squares = [line * cols + c for c in range(cols)] if across else \
                [r * cols + line for r in range(rows)]
            for start in range(len(squares)):
                empties = [s for s in squares[start:] if cells[s] is None]
                for k in range(1, len(rack) + 1):
                    if len(empties) < k or cells[squares[start]] is not None:
                        continue
                    _try_squares(state, empties[:k], rack, letters, lexicon, found, seat)
    return found


def _geometry_words(state: GameState, squares: list[int], links=NO_LINKS):
    """The words (as square lists) a play on ``squares`` would form, or None if the squares
    break a placement rule. Geometry does not depend on the letters."""
    cols = state.ruleset.board.cols
    dummy = [Placement(s // cols, s % cols, state.ruleset.tiles.letters[0]) for s in squares]
    try:
        geometry = check_placement(state.ruleset, state.cells, dummy, 0, links)
    except RuleError:
        return None
    return geometry


def _try_squares(state, squares, rack, letters, lexicon, found, seat, links=NO_LINKS) -> None:
    geometry = _geometry_words(state, squares, links)
    if geometry is None:
        return
    ruleset, cells = state.ruleset, state.cells
    cols = ruleset.board.cols
    position = {s: j for j, s in enumerate(squares)}
    # Each word as a template: a board letter, or the index of the new tile shown there.
    templates = [[position[i] if i in position else cells[i].letter for i in w.squares]
                 for w in geometry.words]
    for tokens in set(permutations(rack, len(squares))):
        choices = [letters if t == BLANK else (t,) for t in tokens]
        for shown in product(*choices):
            texts = ["".join(shown[x] if isinstance(x, int) else x for x in tpl) for tpl in templates]
            if any(resolve_word(text, lexicon, letters) is None for text in texts):
                continue
            placed = [(s, shown[j], tokens[j] == BLANK) for j, s in enumerate(squares)]
            placements = [Placement(s // cols, s % cols, letter, blank) for s, letter, blank in placed]
            geo = check_placement(ruleset, cells, placements, seat, links)
            after = with_tiles(cells, geo.placed)
            words = [word_text(after, w) for w in geo.words]
            resolved = resolve_words(words, lexicon, letters)
            assert not invalid_words(words, resolved)
            score = score_play(ruleset, after, geo, resolved, tokens, state.board_effects).total
            key = tuple(sorted(placed))
            assert found.get(key, score) == score
            found[key] = score


def _tile(letter: str, blank: bool, seat: int):
    from wordarena.engine.tiles import Tile

    return Tile(letter, blank, seat)
