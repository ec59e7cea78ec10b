"""The match server's rules, decided by the pure core (``services.match.core.decide``) on an
immutable ``Match`` with the time given: admission, clocks, kicks, chat limits, no-shows. No
server, no database, no sleeps: each test runs in milliseconds."""

from __future__ import annotations

from dataclasses import replace

import pytest

from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Kick, Pass, Resign, TimeOut, start_game
from wordarena.engine.lexicon import load_lexicon
from wordarena.services.match.core import (
    Act,
    Chat,
    ChatLimits,
    Decision,
    Expire,
    Match,
    Options,
    Refusal,
    Repeat,
    SeatInfo,
    Status,
    decide,
)
from wordarena.services.match.core.decide import expire_due

T0 = 1_000_000.0


def match(family: str = "classic", **changes: object) -> Match:
    """A two-seat match of ``family`` just started at T0 (seat 0 to move)."""
    ruleset = get_ruleset(family, "en", None)
    state, _ = start_game(ruleset, 2, 7, load_lexicon(ruleset.lexicon), True)
    m = Match(match_id="m1", ruleset=state.ruleset, seats=(SeatInfo("ann", "Ann"), SeatInfo("bob", "Bob")),
              options=Options(), created_at=T0, state=state, seq=1, game_seq=1, turn_start=T0,
              last_move=(T0, T0))
    return replace(m, **changes)  # type: ignore[arg-type]


def act(action: object, *, who: str = "ann", rid: str = "r1", method: str = "SubmitTurn",
        seq: int | None = 1, now: float = T0 + 5) -> Act:
    return Act(who, rid, method, action, seq, now)  # type: ignore[arg-type]


# --- admission --------------------------------------------------------------------------------


def test_an_aborted_match_refuses_everything() -> None:
    got = decide(match(status="aborted"), act(Pass(0)))
    assert isinstance(got, Refusal) and got.code == "MATCH_ABORTED"


def test_a_repeated_request_id_is_a_repeat_and_another_method_is_refused() -> None:
    m = match(requests={("ann", "r1"): "SubmitTurn"})
    assert decide(m, act(Pass(0))) == Repeat("ann", "r1")
    got = decide(m, act(Resign(0), method="LeaveMatch"))
    assert isinstance(got, Refusal) and got.code == "REQUEST_ID_REUSED"
    assert isinstance(decide(m, act(Pass(1), who="bob")), Refusal)  # bob's r1 is his own: not his turn


def test_expected_seq_may_be_neither_stale_nor_ahead_and_chat_never_makes_it_stale() -> None:
    m = match(seq=5, game_seq=3)  # seqs 4 and 5 are chat
    ahead = decide(m, act(Pass(0), seq=6))
    assert isinstance(ahead, Refusal) and ahead.status is Status.INVALID_ARGUMENT
    assert ahead.field == "expected_seq"
    stale = decide(m, act(Pass(0), seq=2))
    assert isinstance(stale, Refusal) and stale.stale == (5, 2, 3)
    for seq in (3, 4, 5):
        assert isinstance(decide(m, act(Pass(0), seq=seq)), Decision)


def test_the_engine_refusal_names_the_rule() -> None:
    got = decide(match(), act(Pass(1), who="bob"))
    assert isinstance(got, Refusal) and got.code == "not-your-turn"


# --- clocks -----------------------------------------------------------------------------------


def test_the_seat_to_move_is_charged_its_time_and_times_out_when_its_clock_is_spent() -> None:
    m = match("wordtiles", clocks=(300.0, 300.0), options=Options(per_player_seconds=300))
    done = decide(m, act(Pass(0), now=T0 + 42))
    assert isinstance(done, Decision) and done.clocks == (258.0, 300.0) and done.mover == 0
    assert decide(m, Expire(T0 + 299)) is None
    out = decide(m, Expire(T0 + 300))
    assert isinstance(out, Decision) and out.action == TimeOut(0) and out.mover is None
    assert expire_due(m, T0 + 300 - 0.005) is not None  # the timer's slack
    assert expire_due(m, T0 + 299) is None


def test_scrabble_overtime_runs_past_zero_and_goes_to_the_engine() -> None:
    m = match("scrabble", clocks=(60.0, 60.0), options=Options(per_player_seconds=60))
    late = decide(m, act(Pass(0), now=T0 + 90))  # 30 s over
    assert isinstance(late, Decision) and late.clocks == (-30.0, 60.0)
    limit = m.ruleset.clock.max_overtime
    assert decide(m, Expire(T0 + 60 + limit - 1)) is None
    assert isinstance(decide(m, Expire(T0 + 60 + limit)), Decision)


def test_a_seat_that_has_not_moved_does_not_show_and_one_that_moved_has_shown() -> None:
    m = match("scrabble", options=Options(no_show_seconds=300, idle_kick_seconds=0))
    out = decide(m, Expire(T0 + 300))
    assert isinstance(out, Decision) and out.action == TimeOut(0)
    assert decide(replace(m, moved=frozenset({0})), Expire(T0 + 300)) is None


# --- Kick Idle Player (War of Words) ----------------------------------------------------------


def test_an_idle_seat_is_kicked_only_once_idle_long_enough() -> None:
    m = match("warofwords", options=Options(idle_kick_seconds=3600))
    early = decide(m, act(Kick(0, 1), who="bob", method="KickIdlePlayer", seq=None, now=T0 + 600))
    assert isinstance(early, Refusal) and early.code == "KICK_TOO_EARLY"
    assert early.retry_at == T0 + 3600
    ok = decide(m, act(Kick(0, 1), who="bob", method="KickIdlePlayer", seq=None, now=T0 + 3600))
    assert isinstance(ok, Decision) and ok.idle_for == 3600 and ok.mover is None


@pytest.mark.parametrize("kick", [Kick(1, 1), Kick(1, 0)])
def test_only_the_seat_to_move_can_be_idle_and_nobody_kicks_themselves(kick: Kick) -> None:
    m = match("warofwords", options=Options(idle_kick_seconds=60))
    got = decide(m, act(kick, method="KickIdlePlayer", seq=None, now=T0 + 10_000))
    assert isinstance(got, Refusal) and got.code == "KICK_NOT_ALLOWED"


def test_classic_has_no_kick_the_engine_says_so() -> None:
    got = decide(match(options=Options(idle_kick_seconds=60)),
                 act(Kick(0, 1), who="bob", method="KickIdlePlayer", seq=None, now=T0 + 10_000))
    assert isinstance(got, Refusal) and got.code == "not-allowed"


# --- chat -------------------------------------------------------------------------------------


def test_chat_is_a_burst_then_a_rate_and_a_refusal_costs_nothing() -> None:
    limits = ChatLimits(rate=1.0, burst=2, per_match=100)
    m = match()
    for k in range(2):
        out = decide(m, Chat("ann", f"c{k}", 0, T0), limits)
        assert isinstance(out, Decision) and not out.events
        m = replace(m, chat_buckets={"ann": out.chat_bucket})  # type: ignore[dict-item]
    refused = decide(m, Chat("ann", "c2", 0, T0), limits)
    assert isinstance(refused, Refusal) and refused.status is Status.RESOURCE_EXHAUSTED
    assert refused.retry_in == pytest.approx(1.0)
    assert isinstance(decide(m, Chat("ann", "c2", 0, T0 + 1.0), limits), Decision)


def test_chat_has_a_cap_per_player_and_one_for_the_observers() -> None:
    limits = ChatLimits(per_match=3, observers_per_match=10)
    full = decide(match(chats={"ann": 3}), Chat("ann", "c", 0, T0), limits)
    assert isinstance(full, Refusal) and full.quota is not None and full.retry_in is None
    crowded = decide(match(observer_chats=10), Chat("eve", "c", None, T0), limits)
    assert isinstance(crowded, Refusal) and crowded.quota is not None


def test_chat_is_closed_in_pass_and_play_after_the_game_and_to_inactive_seats() -> None:
    m = match(options=Options(pass_and_play=True))
    assert getattr(decide(m, Chat("ann", "c", 0, T0)), "code", "") == "CHAT_UNAVAILABLE"
    resigned = decide(match(), act(Resign(0)))
    assert isinstance(resigned, Decision)
    after = match(state=resigned.state)
    assert getattr(decide(after, Chat("ann", "c", 0, T0)), "code", "") == "CHAT_UNAVAILABLE"
