"""Move generation on War of Words positions with an open portal pair (docs/warofwords.md,
"Portal"): lines, anchors and cross words are read through the portals, so the generator returns
exactly the legal plays (a portal-aware brute force), no duplicates, each accepted by ``apply``
with the same score."""

from __future__ import annotations

import random

import pytest
from mg_support import agreed_moves, brute_force, random_position, small_lexicon

from wordarena.engine.errors import RuleError
from wordarena.engine.game import Play, apply, set_rack
from wordarena.engine.placement import Placement, check_placement
from wordarena.engine.warofwords.arena import Marker, portal_links


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
    """The plays that read the same plainly and through the portals (the old restriction)."""
    cols = state.ruleset.board.cols
    ps = [Placement(s // cols, s % cols, letter, blank) for s, letter, blank in key]
    try:
        plain = check_placement(state.ruleset, state.cells, ps, 0)
        through = check_placement(state.ruleset, state.cells, ps, 0, portal_links(state))
    except RuleError:
        return False
    return through.words == plain.words


def _check_exact(state, label: str) -> int:
    """Generated moves == every legal play (portal-aware brute force), same scores, no
    duplicates, each accepted by ``apply`` with its score; returns the plays through a portal.
    Both implementations must agree, the native core answering itself (native/portals.c)."""
    moves = agreed_moves(state)
    keys = [tuple(sorted(m.key)) for m in moves]
    assert len(keys) == len(set(keys)), f"{label}: duplicates"
    got = dict(zip(keys, (m.score for m in moves), strict=True))
    every = brute_force(state, links=portal_links(state))
    assert got == every, f"{label}: missing {set(every) - set(got)}, extra {set(got) - set(every)}"
    links = portal_links(state)
    for move in moves:
        play = move.to_play(state.to_move)
        _, events = apply(state, play)
        assert events[0].data["score"] == move.score, label
        geometry = check_placement(state.ruleset, state.cells, play.placements, 0, links)
        if not (len(move.tiles) == 1 and len(geometry.words) == 1):  # a lone tile has no direction
            assert geometry.across == move.across, label
    return sum(1 for k in every if not _through_same(state, k))


def test_generation_on_portal_positions_is_exactly_the_legal_plays():
    through = 0
    for seed in range(8):
        through += _check_exact(_portal_position(seed), f"seed {seed}")
    assert through > 0  # plays that only exist through a portal are generated


def _ring_position(seed: int):
    """A pair on one row (or column), so that across (or down) a ring forms."""
    lexicon = small_lexicon()
    state = random_position("warofwords", seed, lexicon, plays=4)
    rng = random.Random(seed)
    cols = state.ruleset.board.cols
    empty = [i for i, t in enumerate(state.cells) if t is None
             and not state.ruleset.board.squares[i].blocked]
    first = rng.choice(empty)
    same = [i for i in empty if i != first and (i // cols == first // cols if seed % 2 else
                                                 i % cols == first % cols)]
    second = rng.choice(same or [i for i in empty if i != first])
    pair = (Marker("portal", first, 0), Marker("portal", second, 1))
    return state.evolve(effects=state.effects + pair)


def test_generation_is_exact_with_rings_and_entangled_lines():
    for seed in range(6):
        _check_exact(_ring_position(seed), f"ring seed {seed}")


def test_entangled_play_sharing_one_cross_word_is_generated_once_and_scored_as_apply():
    # pair G5/C11: C5 and G11 lie on one line across (row 5 .. G5, then D11 ..) and on one line
    # down (column C .. C11, then G6 ..): a play on both forms one word each way.
    state = random_position("warofwords", 0, small_lexicon(), plays=0)
    cols = state.ruleset.board.cols
    from wordarena.engine.board import with_tiles
    from wordarena.engine.tiles import Tile

    g5, c11 = 4 * cols + 6, 10 * cols + 2
    filled = [4 * cols + c for c in range(3, 7)] + [10 * cols + c for c in range(3, 6)] + \
        [r * cols + 2 for r in range(5, 11)] + [r * cols + 6 for r in range(5, 10)]
    letters = "AEIOURSTLNAEIOURSTLN"
    cells = with_tiles(state.cells, [(s, Tile(letters[k % len(letters)], False, 1))
                                     for k, s in enumerate(sorted(set(filled)))])
    state = state.evolve(cells=cells, effects=(*state.effects, Marker("portal", g5, 0),
                                               Marker("portal", c11, 1)))
    state = set_rack(state, state.to_move, ("A", "E", "S"))
    _check_exact(state, "entangled")


def test_a_play_through_a_portal_is_generated_with_apply_score():
    state = random_position("warofwords", 0, small_lexicon(), plays=0)
    cols = state.ruleset.board.cols
    from wordarena.engine.board import with_tiles
    from wordarena.engine.tiles import Tile

    g5, d11 = 4 * cols + 6, 10 * cols + 3
    # An A played on the portal square G5 earlier; G5 leads across to D11 (after C11).
    state = state.evolve(cells=with_tiles(state.cells, [(g5, Tile("A", False, 1))]),
                         effects=(*state.effects, Marker("portal", g5, 0),
                                  Marker("portal", 10 * cols + 2, 1)))
    state = set_rack(state, state.to_move, ("T",))
    _, events = apply(state, Play(state.to_move, (Placement(10, 3, "T"),)))
    assert events[0].data["words"] == ["AT"]
    moves = {m.key: m for m in agreed_moves(state)}
    assert ((d11, "T", False),) in moves  # AT through the portal, with apply's score
    assert moves[((d11, "T", False),)].score == events[0].data["score"]
    assert ((4 * cols + 7, "T", False),) not in moves  # H5 does not follow G5 any more
    from wordarena.engine.movegen import describe_move

    info = describe_move(state.ruleset, state.cells, moves[((d11, "T", False),)],
                         effects=state.board_effects, links=portal_links(state))
    assert info.words == ("AT",) and info.breakdown.total == events[0].data["score"]


@pytest.mark.slow
def test_generation_is_exact_on_many_portal_positions():
    """64 more positions (pairs near letters, pairs on one row or column)."""
    for seed in range(8, 40):
        _check_exact(_portal_position(seed), f"seed {seed}")
        _check_exact(_ring_position(seed), f"ring seed {seed}")
