"""What a division does next (``tournaments.plan``): best-of-N pairings, round ends, methods by
round, and the division's end in an elimination."""

from __future__ import annotations

from dataclasses import replace

from wordarena.services.lobby.settings import validate_settings
from wordarena.services.lobby.tournaments.config import Method, TournamentConfig
from wordarena.services.lobby.tournaments.entities import Entrant, Game, GameStatus
from wordarena.services.lobby.tournaments.pairing import Pairing
from wordarena.services.lobby.tournaments.plan import (
    games_for,
    next_games,
    pair_round,
    pairing_winner,
    round_over,
)
from wordarena.services.lobby.tournaments.ranking import Side

GAME = validate_settings(ruleset_id="classic", language="en", board_id="", seats=2)


def _cfg(*methods: Method, rounds: int = 3, games: int = 1) -> TournamentConfig:
    return TournamentConfig(name="t", game=GAME, rounds=rounds, methods=methods, games_per_pairing=games)


def _entrants(*ratings: float) -> list[Entrant]:
    return [Entrant(f"e{i}", f"p{i}", f"P{i}", "Open", r, registered_at=i) for i, r in enumerate(ratings)]


def _done(g: Game, first: int, second: int) -> Game:
    side = Side.WIN if first > second else Side.LOSS if first < second else Side.TIE
    return replace(g, status=GameStatus.DONE, first_score=first, second_score=second, first_result=side)


def test_a_best_of_three_elimination_pairing_stops_at_two_wins_and_swaps_the_first_mover():
    cfg = _cfg(Method.ELIMINATION, rounds=2, games=3)
    (g0,) = games_for("Open", 1, [Pairing("a", "b")])
    assert next_games(cfg, [g0]) == []  # still being played
    g0 = _done(g0, 400, 300)
    (g1,) = next_games(cfg, [g0])
    assert (g1.game, g1.first, g1.second) == (1, "b", "a")
    g1 = _done(g1, 350, 360)  # a wins again (second seat)
    assert next_games(cfg, [g0, g1]) == [] and round_over(cfg, [g0, g1])
    assert pairing_winner([g0, g1], {}) == "a"


def test_outside_elimination_every_game_of_a_pairing_is_played_and_ties_go_by_spread_then_seed():
    cfg = _cfg(Method.SWISS, games=2)
    (g0,) = games_for("Open", 1, [Pairing("a", "b")])
    g0 = _done(g0, 400, 300)
    (g1,) = next_games(cfg, [g0])
    assert not round_over(cfg, [g0, g1])
    g1 = _done(g1, 450, 300)  # b wins by more
    assert round_over(cfg, [g0, g1]) and pairing_winner([g0, g1], {}) == "b"
    g1 = _done(g1, 400, 300)  # level spread: the better seed
    assert pairing_winner([g0, g1], {"a": 1400.0, "b": 1600.0}) == "b"


def test_byes_are_wins_at_once_and_a_round_of_byes_is_over():
    cfg = _cfg(Method.SWISS)
    games = games_for("Open", 1, [Pairing("a", "b"), Pairing("c")])
    assert games[1].status == GameStatus.DONE and games[1].first_result == Side.WIN
    assert not round_over(cfg, games) and round_over(cfg, [games[1]])


def test_each_round_uses_its_method_and_the_last_repeats():
    cfg = _cfg(Method.ROUND_ROBIN, Method.KING_OF_THE_HILL, rounds=4)
    assert [cfg.method(r) for r in (1, 2, 3, 4)] == [Method.ROUND_ROBIN] + [Method.KING_OF_THE_HILL] * 3
    es = _entrants(1500, 1500, 1500, 1500)
    assert pair_round(_cfg(Method.MANUAL), "t", es, [], "Open", 1) is None


def test_an_elimination_pairs_by_seed_then_survivors_and_ends_with_one_left():
    cfg = _cfg(Method.ELIMINATION, rounds=5)
    es = _entrants(1400, 1700, 1500, 1600)  # seeds: e1, e3, e2, e0
    r1 = pair_round(cfg, "t", es, [], "Open", 1)
    assert r1 == [Pairing("e1", "e0"), Pairing("e3", "e2")]
    games = [_done(g, 400, 300) for g in games_for("Open", 1, r1)]  # e1 and e3 go through
    r2 = pair_round(cfg, "t", es, games, "Open", 2)
    assert r2 == [Pairing("e1", "e3")]
    games += [_done(g, 300, 400) for g in games_for("Open", 2, r2)]  # e3 wins
    assert pair_round(cfg, "t", es, games, "Open", 3) == []


def test_a_withdrawn_entrant_is_not_paired_and_random_pairs_repeat_for_the_same_round():
    es = _entrants(1500, 1500, 1500, 1500, 1500)
    es[2] = replace(es[2], withdrawn=True)
    cfg = _cfg(Method.RANDOM)
    pairs = pair_round(cfg, "t", es, [], "Open", 1)
    assert pairs is not None and "e2" not in {e for p in pairs for e in p.entrants}
    assert pair_round(cfg, "t", es, [], "Open", 1) == pairs
