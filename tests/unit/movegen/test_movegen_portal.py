"""Move generation on War of Words positions with an open portal pair (docs/warofwords.md,
"Portal"): the generator reads lines plainly, so on such positions it returns exactly the legal
plays whose words are the same read plainly and through the portals — each accepted by
``apply`` with the same score — and no play that reaches through a portal."""

from __future__ import annotations

import random

from mg_support import brute_force, random_position, small_lexicon

from engine.errors import RuleError
from engine.game import Play, apply, set_rack
from engine.movegen import generate_moves
from engine.placement import Placement, check_placement
from engine.warofwords.arena import Marker, portal_links


def _portal_position(seed: int):
    """A random War of Words position with a portal pair: one portal next to a letter, the
    other on a random empty square."""
    lexicon = small_lexicon()
    state = random_position("warofwords", seed, lexicon, plays=3)
    rng = random.Random(seed)
    cols = state.ruleset.board.cols
    empty = [i for i, t in enumerate(state.cells) if t is None
             and not state.ruleset.board.squares[i].blocked]
    near = [i for i in empty if any(
        0 <= j < len(state.cells) and state.cells[j] is not None and (abs(j - i) == cols or
                                                                      j // cols == i // cols)
        for j in (i - 1, i + 1, i - cols, i + cols))]
    first = rng.choice(near or empty)
    second = rng.choice([i for i in empty if i != first])
    pair = (Marker("portal", first, 0), Marker("portal", second, 1))
    return state.evolve(effects=state.effects + pair)


def _through_same(state, key) -> bool:
    """The definition the generator keeps to: legal through the portals, same words."""
    cols = state.ruleset.board.cols
    ps = [Placement(s // cols, s % cols, letter, blank) for s, letter, blank in key]
    plain = check_placement(state.ruleset, state.cells, ps, 0)
    try:
        through = check_placement(state.ruleset, state.cells, ps, 0, portal_links(state))
    except RuleError:
        return False
    return through.words == plain.words


def test_generation_on_portal_positions_is_exactly_the_plays_read_the_same_through_portals():
    dropped = 0
    for seed in range(8):
        state = _portal_position(seed)
        got = {m.key: m.score for m in generate_moves(state)}
        every = brute_force(state)
        expected = {k: v for k, v in every.items() if _through_same(state, k)}
        dropped += len(every) - len(expected)
        assert got == expected, f"seed {seed}"
        for move in generate_moves(state):
            _, events = apply(state, move.to_play(state.to_move))
            assert events[0].data["score"] == move.score
    assert dropped > 0  # the restriction does bite on these positions


def test_a_play_through_a_portal_is_legal_but_not_generated():
    state = random_position("warofwords", 0, small_lexicon(), plays=0)
    cols = state.ruleset.board.cols
    from engine.board import with_tiles
    from engine.tiles import Tile

    g5, d11 = 4 * cols + 6, 10 * cols + 3
    # An A played on the portal square G5 earlier; G5 leads across to D11 (after C11).
    state = state.evolve(cells=with_tiles(state.cells, [(g5, Tile("A", False, 1))]),
                         effects=(*state.effects, Marker("portal", g5, 0),
                                  Marker("portal", 10 * cols + 2, 1)))
    state = set_rack(state, state.to_move, ("T",))
    _, events = apply(state, Play(state.to_move, (Placement(10, 3, "T"),)))
    assert events[0].data["words"] == ["AT"]
    keys = {m.key for m in generate_moves(state)}
    assert ((d11, "T", False),) not in keys
    assert ((4 * cols + 7, "T", False),) not in keys  # plain AT (G5 H5) is not a word here
