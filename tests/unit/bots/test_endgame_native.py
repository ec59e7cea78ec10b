"""The native end-game search (C, engine.bots.endgame_native) against the Python one on real
end games with full racks: the same search, so the same value, move, line and node count at
any node limit; and its seams: the Python fallback, the engine's end_game called back."""

from __future__ import annotations

import pytest

from wordarena.engine.bots import endgame, endgame_native
from wordarena.engine.bots.endcorpus import empty_bag_positions
from wordarena.engine.bots.endgame import solve_endgame
from wordarena.engine.game import apply

pytestmark = pytest.mark.skipif(not endgame_native.available(), reason="native core not built")


@pytest.mark.parametrize("family", ["classic", "scrabble", "wordtiles"])
def test_the_c_search_is_the_python_search_on_real_end_games(lexicon, family: str) -> None:
    checked = 0
    for state in empty_bag_positions(family, range(4), lexicon):
        for limit in (300, 3000):
            py = solve_endgame(state, lexicon, 1e9, node_limit=limit, engine="python")
            c = solve_endgame(state, lexicon, 1e9, node_limit=limit, engine="native")
            assert (c.value, c.action, c.pv, c.exact, c.nodes, c.depth) == (
                py.value, py.action, py.pv, py.exact, py.nodes, py.depth), (family, state.seed)
            apply(state, c.action)  # legal
        checked += 1
    assert checked >= 3


def test_movegen_python_runs_the_python_search(lexicon, monkeypatch) -> None:
    state = next(empty_bag_positions("classic", range(3), lexicon))

    def refuse(*args, **kwargs):
        raise AssertionError("the native search ran")

    monkeypatch.setattr(endgame_native, "run", refuse)
    monkeypatch.setenv("WORDARENA_MOVEGEN", "python")
    assert solve_endgame(state, lexicon, 1e9, node_limit=100).nodes == 101
    monkeypatch.setenv("WORDARENA_MOVEGEN", "auto")
    with pytest.raises(AssertionError, match="native search ran"):
        solve_endgame(state, lexicon, 1e9, node_limit=100)


def test_the_python_search_is_one_search_on_either_generator(lexicon, monkeypatch) -> None:
    """The Python search tries the moves in the generator's best-first order, which the
    pure-Python generator only gives when asked: solved exactly on either, the same tree."""
    for state in empty_bag_positions("classic", range(2), lexicon):
        while sum(len(r) for r in state.racks) > 8:
            state, _ = apply(state, solve_endgame(state, lexicon, 1e9, node_limit=2000).action)
        monkeypatch.setenv("WORDARENA_MOVEGEN", "native")
        native = solve_endgame(state, lexicon, 1e9, engine="python")
        monkeypatch.setenv("WORDARENA_MOVEGEN", "python")
        python = solve_endgame(state, lexicon, 1e9, engine="python")
        assert native.exact
        assert (python.value, python.pv, python.nodes) == (native.value, native.pv, native.nodes)


def test_the_end_of_the_game_comes_from_the_engine(lexicon, monkeypatch) -> None:
    """The C search scores the end through the engine's end_game (called back): change what
    it says and the C search's value follows; make it fail and its error comes out."""
    state = next(empty_bag_positions("classic", range(3), lexicon))
    while sum(len(r) for r in state.racks) > 5:
        state, _ = apply(state, solve_endgame(state, lexicon, 1e9, node_limit=2000).action)
    base = solve_endgame(state, lexicon, 1e9, engine="native")
    assert base.exact
    real = endgame.end_adjustment
    monkeypatch.setattr(endgame, "end_adjustment", lambda root, racks, reason, out: tuple(
        v + 1000 for v in real(root, racks, reason, out)))
    shifted = solve_endgame(state, lexicon, 1e9, engine="native")
    assert shifted.value == base.value  # +1000 to both seats: spreads unchanged
    monkeypatch.setattr(endgame, "end_adjustment",
                        lambda root, racks, reason, out: (real(root, racks, reason, out)[0] + 1000, 0))
    tilted = solve_endgame(state, lexicon, 1e9, engine="native")
    assert tilted.value == solve_endgame(state, lexicon, 1e9, engine="python").value
    assert tilted.value != base.value

    def broken(*args):
        raise RuntimeError("end_game failed")

    monkeypatch.setattr(endgame, "end_adjustment", broken)
    with pytest.raises(RuntimeError, match="end_game failed"):
        solve_endgame(state, lexicon, 1e9, engine="native")


def test_level_6_plays_the_c_search_end_game(lexicon, monkeypatch) -> None:
    from wordarena.engine.bots.champion import endgame_action

    state = next(empty_bag_positions("classic", range(3), lexicon))
    calls = []
    real = endgame_native.run

    def spy(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(endgame_native, "run", spy)
    action = endgame_action(state, lexicon, 0.0, 1)  # no time budget: the node limit
    assert calls == [state]
    expected = solve_endgame(state, lexicon, 1e9, node_limit=20_000, engine="python").action
    assert action == expected


def test_the_c_search_lets_other_threads_run(lexicon) -> None:
    """It releases the GIL while it searches: a Python thread runs meanwhile (a search holding
    it would leave this thread waiting until the search had ended)."""
    import threading

    state = next(empty_bag_positions("classic", range(3), lexicon))
    started = threading.Event()
    out: list = []

    def search() -> None:
        started.set()
        out.append(solve_endgame(state, lexicon, 1e9, node_limit=150_000, engine="native"))

    worker = threading.Thread(target=search)
    worker.start()
    started.wait()
    steps = 0
    while worker.is_alive() and steps < 200_000:
        steps += 1  # Python work while the search runs
    alive = worker.is_alive()
    worker.join()
    assert alive, "the search ended before this thread could run 200 000 steps"
    assert out[0].nodes == 150_001
