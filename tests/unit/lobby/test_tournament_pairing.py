"""Pairing methods and standings of tournaments (pure functions), with property tests."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordarena.services.lobby.tournaments.pairing import (
    Pairing,
    PairingError,
    bracket_order,
    elimination,
    king_of_the_hill,
    manual,
    pair_key,
    random_pairs,
    round_robin,
    round_robin_rounds,
    swiss,
)
from wordarena.services.lobby.tournaments.ranking import GameResult, Side, rank_entrants

NAMES = [f"e{i:02d}" for i in range(40)]


def _once_each(pairs: list[Pairing], entrants: list[str]) -> None:
    seen = Counter(e for p in pairs for e in p.entrants)
    assert set(seen) == set(entrants)
    assert all(n == 1 for n in seen.values()), seen
    assert sum(p.bye for p in pairs) == len(entrants) % 2


def _repeat_free_exists(players: list[str], met: set[frozenset[str]]) -> bool:
    if not players:
        return True
    top, rest = players[0], players[1:]
    return any(
        pair_key(top, o) not in met and _repeat_free_exists(rest[:i] + rest[i + 1 :], met)
        for i, o in enumerate(rest)
    )


# -- round robin -----------------------------------------------------------------------------


@given(st.integers(2, 12))
def test_round_robin_everyone_meets_everyone_exactly_once_per_cycle(n: int) -> None:
    entrants = NAMES[:n]
    met: Counter[frozenset[str]] = Counter()
    byes: Counter[str] = Counter()
    for r in range(round_robin_rounds(n)):
        pairs = round_robin(entrants, r)
        _once_each(pairs, entrants)
        met.update(pair_key(p.first, p.second) for p in pairs if p.second is not None)
        byes.update(p.first for p in pairs if p.bye)
    assert set(met) == {pair_key(a, b) for a, b in itertools.combinations(entrants, 2)}
    assert set(met.values()) == {1}
    assert all(byes[e] == 1 for e in entrants) if n % 2 else not byes


@given(st.integers(2, 10))
def test_double_round_robin_meets_each_pair_twice_once_moving_first_each(n: int) -> None:
    entrants = NAMES[:n]
    ordered: Counter[tuple[str, str]] = Counter()
    for r in range(round_robin_rounds(n, double=True)):
        pairs = round_robin(entrants, r, double=True)
        _once_each(pairs, entrants)
        ordered.update((p.first, p.second) for p in pairs if p.second is not None)
    assert set(ordered) == set(itertools.permutations(entrants, 2))
    assert set(ordered.values()) == {1}


def test_round_robin_of_four_rounds():
    assert round_robin_rounds(4) == 3 and round_robin_rounds(5) == 5 and round_robin_rounds(4, True) == 6
    assert round_robin(["a", "b", "c", "d"], 0) == [Pairing("a", "d"), Pairing("b", "c")]


# -- swiss -----------------------------------------------------------------------------------


def test_swiss_first_round_pairs_top_down_and_the_bye_goes_to_the_lowest():
    assert swiss(["a", "b", "c", "d", "e"], set()) == [Pairing("a", "b"), Pairing("c", "d"), Pairing("e")]


def test_swiss_bye_skips_those_who_had_one_and_a_repeat_is_avoided_by_backtracking():
    pairs = swiss(["a", "b", "c", "d", "e"], {pair_key("a", "b")}, had_bye={"e"})
    assert Pairing("d") in pairs
    assert Pairing("a", "c") in pairs and Pairing("b", "e") in pairs


def test_swiss_pairs_a_repeat_when_no_repeat_free_pairing_exists():
    pairs = swiss(["a", "b"], {pair_key("a", "b")})
    assert pairs == [Pairing("a", "b")]


@st.composite
def _swiss_case(draw: st.DrawFn) -> tuple[list[str], set[frozenset[str]], set[str]]:
    n = draw(st.integers(2, 9))
    players = NAMES[:n]
    all_pairs = [pair_key(a, b) for a, b in itertools.combinations(players, 2)]
    met = set(draw(st.lists(st.sampled_from(all_pairs), max_size=len(all_pairs))))
    byes = set(draw(st.lists(st.sampled_from(players), max_size=n)))
    ranked = draw(st.permutations(players))
    return list(ranked), met, byes


@settings(max_examples=300, deadline=None)
@given(_swiss_case())
def test_swiss_pairs_everyone_once_and_repeats_only_when_unavoidable(case) -> None:  # type: ignore[no-untyped-def]
    ranked, met, had_bye = case
    pairs = swiss(ranked, met, had_bye)
    _once_each(pairs, ranked)
    repeats = [p for p in pairs if p.second is not None and pair_key(p.first, p.second) in met]
    eligible = [e for e in ranked if e not in had_bye] or [ranked[-1]]
    if len(ranked) % 2 == 0:
        if repeats:  # only when no pairing without a repeat exists
            assert not _repeat_free_exists(ranked, met)
        return
    bye = next(p.first for p in pairs if p.bye)
    assert bye in eligible
    options = [b for b in reversed(eligible) if _repeat_free_exists([e for e in ranked if e != b], met)]
    if options:
        assert not repeats and bye == options[0]  # the lowest eligible that allows no repeat
    else:
        assert bye == eligible[-1]


# -- king of the hill, elimination, random, manual ------------------------------------------


def test_king_of_the_hill_pairs_by_standing():
    assert king_of_the_hill(["a", "b", "c", "d", "e"]) == [Pairing("a", "b"), Pairing("c", "d"), Pairing("e")]


def test_bracket_order_keeps_the_top_two_seeds_apart_until_the_final():
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]


def test_elimination_gives_top_seeds_the_byes_and_pairs_survivors_in_bracket_order():
    seeded = ["s1", "s2", "s3", "s4", "s5"]
    assert elimination(seeded, set(), 0) == [Pairing("s1"), Pairing("s4", "s5"), Pairing("s2"), Pairing("s3")]
    assert elimination(seeded, {"s4"}, 1) == [Pairing("s1", "s5"), Pairing("s2", "s3")]
    assert elimination(seeded, {"s4", "s1", "s3"}, 2) == [Pairing("s5", "s2")]
    assert elimination(seeded, {"s4", "s1", "s3", "s2"}, 3) == []


@given(st.integers(2, 20), st.data())
def test_elimination_plays_down_to_one_winner(n: int, data: st.DataObject) -> None:
    seeded = NAMES[:n]
    out: set[str] = set()
    r = 0
    while pairs := elimination(seeded, out, r):
        _once_each(pairs, [e for e in seeded if e not in out]) if r else None
        for p in pairs:
            if p.second is not None:
                out.add(data.draw(st.sampled_from(p.entrants)))
        r += 1
    assert len(seeded) - len(out) == 1


def test_random_pairs_are_seeded():
    entrants = NAMES[:9]
    assert random_pairs(entrants, 7) == random_pairs(list(reversed(entrants)), 7)
    assert any(random_pairs(entrants, 7) != random_pairs(entrants, s) for s in range(8, 12))
    _once_each(random_pairs(entrants, 7), entrants)


def test_manual_pairs_are_checked():
    assert manual([("a", "b"), ("c", None)], {"a", "b", "c"}) == [Pairing("a", "b"), Pairing("c")]
    with pytest.raises(PairingError, match="paired twice"):
        manual([("a", "b"), ("a", "c")], {"a", "b", "c"})
    with pytest.raises(PairingError, match="not an active entrant"):
        manual([("a", "x"), ("b", "c")], {"a", "b", "c"})
    with pytest.raises(PairingError, match="missing: c"):
        manual([("a", "b")], {"a", "b", "c"})


# -- standings -------------------------------------------------------------------------------


def test_standings_rank_by_points_then_spread_then_opponents_points():
    games = [
        GameResult("a", "b", 400, 300, Side.WIN),
        GameResult("c", "d", 350, 340, Side.WIN),
        GameResult("e", None),
        GameResult("a", "c", 300, 300, Side.TIE),
        GameResult("b", "e", 390, 380, Side.WIN),
    ]
    rows = rank_entrants([(e, 1500.0) for e in "abcde"], games, bye_spread=50)
    by = {s.entrant_id: s for s in rows}
    assert [s.entrant_id for s in rows] == ["a", "c", "e", "b", "d"]
    assert (by["a"].wins, by["a"].ties, by["a"].spread, by["a"].points) == (1, 1, 100, 1.5)
    assert (by["e"].wins, by["e"].losses, by["e"].byes, by["e"].spread) == (1, 1, 1, 40)
    assert by["b"].spread == -90 and by["d"].spread == -10
    assert [s.rank for s in rows] == [1, 2, 3, 4, 5]
    assert by["a"].opponents_points == by["b"].points + by["c"].points


def test_equal_standings_share_a_rank_and_the_seed_orders_them():
    rows = rank_entrants([("x", 1400.0), ("y", 1600.0)], [GameResult("x", "y", 300, 300, Side.TIE)])
    assert [(s.entrant_id, s.rank) for s in rows] == [("y", 1), ("x", 1)]
