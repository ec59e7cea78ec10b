"""A round robin whose entrants withdraw mid-event (``tournaments.plan.pair_round``): the
schedule stays the one of round 1, so no pair is ever scheduled twice (exactly twice in a double
round robin), a withdrawn entrant's games become byes for its opponents, and every active
entrant plays once a round."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from wordarena.services.lobby.settings import validate_settings
from wordarena.services.lobby.tournaments.config import Method, TournamentConfig
from wordarena.services.lobby.tournaments.entities import Entrant, Game, GameStatus
from wordarena.services.lobby.tournaments.pairing import round_robin_rounds
from wordarena.services.lobby.tournaments.plan import games_for, pair_round
from wordarena.services.lobby.tournaments.ranking import Side

GAME = validate_settings(ruleset_id="classic", language="en", board_id="", seats=2)


def _play(cfg: TournamentConfig, entrants: list[Entrant], withdraw_at: dict[int, int]) -> list[Game]:
    """Plays every round; entrant i withdraws after round ``withdraw_at[i]`` (before the next
    one is paired). Checks each round as it is paired."""
    games: list[Game] = []
    for r in range(1, cfg.rounds + 1):
        for i, when in withdraw_at.items():
            if when == r - 1:
                entrants[i] = replace(entrants[i], withdrawn=True)
        pairs = pair_round(cfg, "t", entrants, games, "Open", r)
        assert pairs is not None
        active = {e.entrant_id for e in entrants if not e.withdrawn}
        seen = [x for p in pairs for x in p.entrants]
        assert sorted(seen) == sorted(active), f"round {r}: each active entrant once"
        for g in games_for("Open", r, pairs):
            if not g.bye:
                g = replace(g, status=GameStatus.DONE, first_score=3, second_score=2, first_result=Side.WIN)
            games.append(g)
    return games


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(3, 9),
    double=st.booleans(),
    data=st.data(),
)
def test_withdrawals_never_repeat_a_pair_and_turn_the_withdrawn_games_into_byes(
    n: int, double: bool, data: st.DataObject
) -> None:
    method = Method.DOUBLE_ROUND_ROBIN if double else Method.ROUND_ROBIN
    rounds = round_robin_rounds(n, double=double)
    cfg = TournamentConfig(name="t", game=GAME, rounds=rounds, methods=(method,))
    entrants = [Entrant(f"e{i}", f"p{i}", f"P{i}", "Open", 1500.0 - i, registered_at=i) for i in range(n)]
    withdraw_at = data.draw(
        st.dictionaries(st.integers(0, n - 1), st.integers(1, rounds - 1), max_size=n - 2),
        label="entrant -> withdraws after round",
    )
    games = _play(cfg, entrants, withdraw_at)
    met = Counter(frozenset((g.first, g.second)) for g in games if g.second is not None)
    limit = 2 if double else 1
    assert all(c <= limit for c in met.values()), met.most_common(3)
    stayed = [f"e{i}" for i in range(n) if i not in withdraw_at]
    for a in stayed:  # those who never withdrew meet each other exactly as scheduled
        for b in stayed:
            if a < b:
                assert met[frozenset((a, b))] == limit
    for i, when in withdraw_at.items():  # nothing after the withdrawal, not even a bye
        assert not any(f"e{i}" in (g.first, g.second) and g.round > when for g in games)


def test_a_withdrawal_after_round_one_gives_the_scheduled_opponent_a_bye():
    cfg = TournamentConfig(name="t", game=GAME, rounds=3, methods=(Method.ROUND_ROBIN,))
    entrants = [Entrant(f"e{i}", f"p{i}", f"P{i}", "Open", 1500.0 - i, registered_at=i) for i in range(4)]
    games = _play(cfg, entrants, {3: 1})
    r2 = [g for g in games if g.round == 2]
    assert sum(1 for g in r2 if g.bye) == 1 and len(r2) == 2
    # round 2's schedule pairs e3 with someone; that someone has the bye instead
    bye = next(g.first for g in r2 if g.bye)
    assert bye != "e3" and not any(frozenset((bye, "e3")) == frozenset((g.first, g.second)) for g in games)
