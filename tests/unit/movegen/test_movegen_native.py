"""The native move-generation core against the pure-Python generator, move for move.

Random positions (Hypothesis: 5,000 in all under ``--soak``, 700 by default, tests/soak.py) of
the four families in seven languages, on small lexicons sampled from each language's own word
list: both implementations must return the same moves — tiles, blanks, scores, directions — in
the same order (``mg_support.agreed_moves``),
and the native core must answer every position itself (War of Words wildcards and open portal
pairs included: a third of the War of Words positions get one or two pairs). Then the switch
(``WORDARENA_MOVEGEN``) as a user meets it.
"""

from __future__ import annotations

import random
from contextlib import suppress
from dataclasses import replace
from functools import cache
from itertools import islice

import pytest
import soak
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mg_support import agreed_moves, movegen_implementation, native_covers, state_links

from wordarena.engine.errors import InputError
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Decide, GameState, apply, set_rack, start_game
from wordarena.engine.lexicon import Lexicon, compile_words, load_lexicon
from wordarena.engine.lexicon.alphabet import ALPHABETS
from wordarena.engine.movegen import generate, generate_moves, native_bridge
from wordarena.engine.movegen.api import board_ruleset
from wordarena.engine.placement import NO_LINKS
from wordarena.engine.rulesets.catalog import list_rulesets
from wordarena.engine.tiles import BLANK, WILDCARD
from wordarena.engine.warofwords.arena import Marker, portal_links

# (family, language) pairs with a ruleset, by family
RULESETS = {
    "classic": ("en", "de", "es", "fr", "it", "pt"),
    "scrabble": ("en", "pl"),
    "wordtiles": ("en", "pl"),
    "warofwords": ("en",),
}
GAMES = 48  # random games per ruleset; a position is a game, a turn in it and a rack
TURNS = 10
EXAMPLES = soak.pick({"classic": 1400, "scrabble": 1200, "wordtiles": 1200, "warofwords": 1200},
                     {"classic": 200, "scrabble": 150, "wordtiles": 150, "warofwords": 200})


@cache
def sample_lexicon(language: str) -> Lexicon:
    """Some 10,000 words of 2 to 7 letters of ``language`` (up to 8 after each two-letter
    start), compiled like the real lexicon: small enough for the Python generator to be quick,
    varied enough for long plays."""
    full = load_lexicon(language)
    alphabet = ALPHABETS[language]
    words: set[str] = set()
    for a in alphabet:
        for b in alphabet:
            words.update(islice((w for w in full.words(a + b) if len(w) <= 7), 8))
    return compile_words(words, language, alphabet)


@cache
def game(family: str, language: str, seed: int) -> tuple[GameState, ...]:
    """The positions of one random game (random legal plays), turn by turn."""
    rng = random.Random(f"{family}/{language}/{seed}")
    state, _ = start_game(get_ruleset(family, language), 2, seed, sample_lexicon(language))
    states = [state]
    for _ in range(TURNS):
        moves = generate_moves(state)
        if not moves:
            break
        state, _ = apply(state, rng.choice(moves).to_play(state.to_move))
        if state.pending is not None:
            state, _ = apply(state, Decide(state.to_move, True))
        if state.over:
            break
        states.append(state)
    return tuple(states)


def with_portals(state: GameState, rng: random.Random) -> GameState:
    """``state`` with one open portal pair (now and then two) on empty open squares: the first
    next to a letter when there is one, the others anywhere, a third of them on the first one's
    row or column (lines closing on themselves: rings). Letters may be played on a portal
    square: a third of the time the first holds one, and half the time a random play through
    the pair follows."""
    board = state.ruleset.board
    cols = board.cols
    empty = [i for i, t in enumerate(state.cells) if t is None and not board.squares[i].blocked]
    near = [i for i in empty if any(
        0 <= j < len(state.cells) and state.cells[j] is not None
        and (j // cols == i // cols or j % cols == i % cols)
        for j in (i - 1, i + 1, i - cols, i + cols))]
    first = rng.choice(near or empty)
    occupied = [i for i, t in enumerate(state.cells) if t is not None]
    if occupied and rng.random() < 0.33:
        first = rng.choice(occupied)
    portals = [first]
    for _ in range(1 if rng.random() < 0.8 else 3):
        free = [i for i in empty if i not in portals]
        line = [i for i in free if i // cols == first // cols or i % cols == first % cols]
        portals.append(rng.choice(line if line and rng.random() < 0.33 else free))
    markers = tuple(Marker("portal", s, k % 2) for k, s in enumerate(portals))
    state = state.evolve(effects=state.effects + markers)
    if rng.random() < 0.5:
        moves = generate_moves(state)
        if moves:
            state, _ = apply(state, rng.choice(moves).to_play(state.to_move))
            if state.pending is not None:
                state, _ = apply(state, Decide(state.to_move, True))
    return state


def position(family: str, language: str, seed: int, turn: int, rack_seed: int) -> GameState:
    """A position of game ``seed`` with a random rack (blanks, in War of Words now and then a
    wildcard) and, in War of Words, random board effects and, a third of the time, portals."""
    states = game(family, language, seed)
    state = states[turn % len(states)]
    rng = random.Random(rack_seed)
    ruleset = state.ruleset
    if family == "warofwords":
        state = state.evolve(
            electrification=tuple(rng.choice((1, 1, 2, 3)) for _ in state.electrification),
            irradiated=rng.random() < 0.2,
            bonus_letter=rng.choice((None, *ruleset.tiles.letters)),
        )
        if rng.random() < 0.33:
            state = with_portals(state, rng)
    pool = [*state.bag, *state.racks[state.to_move]]  # the tiles the rack may hold
    naturals = [t for t in pool if t in ruleset.tiles.letters]
    size = rng.randint(1, min(ruleset.rack_size, len(pool)))
    joker = WILDCARD if family == "warofwords" and rng.random() < 0.15 else BLANK
    jokers = min(size, pool.count(joker), rng.choice((0, 0, 0, 1, 1, 2)))
    rack = [joker] * jokers + rng.sample(naturals, min(len(naturals), size - jokers))
    return set_rack(state, state.to_move, tuple(rack))


def _differential(family: str) -> None:
    @settings(max_examples=EXAMPLES[family], deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(language=st.sampled_from(RULESETS[family]), seed=st.integers(0, GAMES - 1),
           turn=st.integers(0, TURNS), rack_seed=st.integers(0, 2**32))
    def check(language: str, seed: int, turn: int, rack_seed: int) -> None:
        state = position(family, language, seed, turn, rack_seed)
        agreed_moves(state)
        covered[native_covers(state)] += 1
        wild[0] += WILDCARD in state.racks[state.to_move] or any(
            t is not None and t.letter == WILDCARD for t in state.cells)
        portals[0] += bool(state_links(state))

    covered = [0, 0]
    wild = [0]
    portals = [0]
    check()
    # the native core answered every position itself
    assert covered == [0, EXAMPLES[family]], covered
    if family == "warofwords":  # wildcards on the rack or the board, walked as node sets
        assert wild[0] > EXAMPLES[family] // 4, wild
        # open portal pairs: lines read through them (native/portals.c)
        assert portals[0] > EXAMPLES[family] // 5, portals


# War of Words takes ~75 s of CPU (portal positions: the Python generator and the engine's
# judge are slow), and several times that in wall time on a loaded machine
@pytest.mark.soak
@pytest.mark.timeout(900)
@pytest.mark.parametrize("family", list(RULESETS))
def test_native_and_python_give_the_same_moves_on_random_positions(family: str) -> None:
    _differential(family)


def test_the_implementation_is_chosen_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    state = position("scrabble", "en", 1, 3, 7)
    calls: list[object] = []
    real = native_bridge.native_moves

    def counted(*args: object) -> object:
        calls.append(args)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr("wordarena.engine.movegen.api.native_moves", counted)
    with movegen_implementation("python"):
        python = generate_moves(state)
    assert not calls
    with movegen_implementation("native"):
        native = generate_moves(state)
    assert len(calls) == 1 and native == python and native
    with movegen_implementation("auto"):
        assert generate_moves(state) == python
    assert len(calls) == 2


def test_an_unknown_choice_is_refused_naming_the_variable() -> None:
    state = position("classic", "en", 1, 2, 3)
    with movegen_implementation("fortran"), pytest.raises(InputError, match="WORDARENA_MOVEGEN"):
        generate_moves(state)


def test_native_asked_for_but_not_built_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native_bridge, "_module", None)
    monkeypatch.setattr(native_bridge, "_why", "No module named 'native_core'")
    state = position("classic", "en", 1, 2, 3)
    with movegen_implementation("native"), pytest.raises(InputError, match="not built"):
        generate_moves(state)


def test_without_the_extension_auto_uses_python_and_says_so_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    state = position("classic", "en", 1, 2, 3)
    with movegen_implementation("python"):
        expected = generate_moves(state)
    monkeypatch.setattr(native_bridge, "_module", None)
    monkeypatch.setattr(native_bridge, "_noticed", False)
    with movegen_implementation("auto"):
        assert generate_moves(state) == expected
        assert generate_moves(state) == expected
    err = capsys.readouterr().err
    assert err.count("native move generator unavailable") == 1, err


@pytest.mark.parametrize("family", list(RULESETS))
def test_a_limit_gives_the_first_moves_of_the_whole_list(family: str) -> None:
    """``generate_moves(limit=k)`` (the bots' level 4 and 5 ask for 1 and 400) is the whole
    ordered list cut after k, on both implementations, including a blank on the rack and a
    limit past the end."""
    lexicon = load_lexicon("en")
    state, _ = start_game(get_ruleset(family), 2, 11, lexicon)
    for turn in range(6):
        if turn == 3:  # a blank (a wildcard in War of Words) on the rack
            joker = WILDCARD if family == "warofwords" else BLANK
            state = set_rack(state, state.to_move, (joker, *state.racks[state.to_move][1:]))
        for impl in ("python", "native"):
            with movegen_implementation(impl):
                whole = generate_moves(state)
                assert len(whole) > 3
                for k in (0, 1, 2, 3, len(whole) - 1, len(whole), len(whole) + 5):
                    assert generate_moves(state, limit=k) == whole[:k], (impl, turn, k)
                # the board-and-rack entry (the leave derivation scores racks by limit=1)
                rack = state.racks[state.to_move]
                on_board = (board_ruleset(state), state.cells, rack, lexicon, state.board_effects,
                            portal_links(state) or NO_LINKS)
                assert generate(*on_board, limit=1) == whole[:1], (impl, turn)
                assert generate(*on_board, ordered=True) == whole, (impl, turn)
        if state.pending is not None:
            state, _ = apply(state, Decide(state.to_move, True))
        state, _ = apply(state, whole[turn % 3].to_play(state.to_move))
        if state.pending is not None:
            state, _ = apply(state, Decide(state.to_move, True))
    with pytest.raises(InputError, match="limit"):
        generate_moves(state, limit=-1)


@pytest.mark.parametrize(("family", "board"), [
    (r["family"], board) for r in list_rulesets() if r["language"] == "en" for board in r["boards"]])
def test_every_opening_is_searched_right_whether_the_board_is_symmetric_or_not(
        family: str, board: str) -> None:
    """On an empty board whose squares read the same across as down, with the start square on
    that diagonal, the native core searches the across plays only and turns them into the down
    ones (docs/movegen.md, Speed). Every board's opening, in every family that plays it, must be
    the Python generator's list, with plays both ways: as shipped (five War of Words fields are
    not symmetric), with one premium square near the centre changed on one side of the diagonal
    only, and with the start square moved off the diagonal."""
    base = get_ruleset(family, "en", board)
    layout = base.board
    centre = layout.start if layout.start is not None else layout.rows // 2 * layout.cols
    lopsided = tuple(replace(sq, word_mult=3, letter_mult=1) if i == centre + 2 else sq
                     for i, sq in enumerate(layout.squares))
    variants = [base, replace(base, id=f"{base.id}/lopsided",
                              board=replace(layout, squares=lopsided))]
    if layout.start is not None:
        variants.append(replace(base, id=f"{base.id}/off-diagonal",
                                board=replace(layout, start=layout.start + 1)))
    for ruleset in variants:
        state, _ = start_game(ruleset, 2, 5, sample_lexicon("en"))
        joker = WILDCARD if ruleset.family == "warofwords" else BLANK
        for rack in ("AEINRST", "EIOQSTU", (joker, *"AEHRST")):
            state = set_rack(state, state.to_move, tuple(rack))
            moves = agreed_moves(state)
            assert {m.across for m in moves} == {True, False}, (ruleset.id, rack)


@pytest.mark.parametrize(("edge_letters", "ordered"), [
    ([1, 2, 5], True), ([1, 255, 255], True), ([255], True),
    ([2, 1, 5], False), ([1, 1], False), ([255, 1], False),
])
def test_kid_bits_says_whether_a_nodes_edges_come_in_letter_order(
        edge_letters: list[int], ordered: bool) -> None:
    """The core finds a letter's edge by counting the node's letters before it only on a DAWG
    whose every node lists its edges in ascending letter order, edges of no tile letter last."""
    from array import array

    module = native_bridge.native_module()
    assert module is not None, "the native core is not built"
    first = array("I", [0, len(edge_letters), len(edge_letters)])  # two nodes, the second bare
    kids = array("Q", [0, 0])
    assert module.kid_bits(first, bytes(edge_letters), kids) is ordered
    assert kids[0] == sum(1 << k for k in set(edge_letters) - {255})


def test_the_counted_edges_and_the_edge_scan_give_the_same_moves(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """English lexicons are ordered (their edges are found by counting); Polish, whose tile
    letters are not in its alphabet's order, is not (its edges are scanned). The same positions
    generated both ways, blanks included, give the same list."""
    assert native_bridge.available(), "the native core is not built"
    english = load_lexicon("en")
    assert native_bridge.dawg_arrays(english, tuple(get_ruleset("scrabble").tiles.letters))[-1]
    polish = get_ruleset("scrabble", "pl")
    assert not native_bridge.dawg_arrays(load_lexicon("pl"), tuple(polish.tiles.letters))[-1]
    positions = []
    for seed in range(3):
        for state in game("scrabble", "en", seed)[::3]:
            for rack in ("AEINRST", "?EINRST", "??ENRST"):
                with suppress(InputError):  # a rack the bag cannot give is left out
                    positions.append(set_rack(state, state.to_move, tuple(rack)))
    with movegen_implementation("native"):
        counted = [generate_moves(state) for state in positions]
        real = native_bridge.dawg_arrays
        monkeypatch.setattr(native_bridge, "dawg_arrays",
                            lambda lexicon, letters: (*real(lexicon, letters)[:-1], False))
        scanned = [generate_moves(state) for state in positions]
    assert len(positions) > 20 and sum(map(len, counted)) > 1000
    assert counted == scanned
