"""Pure lobby logic: names, passwords, settings, tables, matchmaking, Glicko-2, outcomes, records."""

from __future__ import annotations

import grpc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from wordarena.engine.game import Seat
from wordarena.engine.game.outcome import Outcome
from wordarena.services.lobby import glicko2
from wordarena.services.lobby.api.errors import to_service_error
from wordarena.services.lobby.errors import LobbyError, Status
from wordarena.services.lobby.matchmaking import Criteria, Queue, Ticket, TicketStatus
from wordarena.services.lobby.names import name_skeleton, validate_display_name
from wordarena.services.lobby.passwords import FailureThrottle, Passwords, validate_password
from wordarena.services.lobby.records import (
    PlayerRecord,
    SeatEnd,
    apply_result,
    check_outcomes,
    decide_outcomes,
)
from wordarena.services.lobby.settings import validate_settings
from wordarena.services.lobby.tables import Occupant, Table, TableStatus

# -- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["Alice", "bob_the.builder", "Zoë 42", "Łukasz", "李小龍ab", "a-b"])
def test_valid_names(name: str) -> None:
    assert validate_display_name(name) == name


@pytest.mark.parametrize(
    "name",
    ["ab", "x" * 25, " Alice", "Alice ", "Al  ice", "Al__ice", "Alice!", "<script>", "a\u0000b", "--", ""],
)
def test_invalid_names(name: str) -> None:
    with pytest.raises(LobbyError) as ei:
        validate_display_name(name)
    assert ei.value.code == "NAME_INVALID"
    assert ei.value.status == Status.INVALID_ARGUMENT


@pytest.mark.parametrize("name", ["Admin", "ADM1N", "Lobby", "s.y.s.t.e.m"])
def test_reserved_names(name: str) -> None:
    with pytest.raises(LobbyError) as ei:
        validate_display_name(name)
    assert ei.value.code == "NAME_TAKEN"


def test_confusables_share_a_skeleton() -> None:
    same = ["Alice", "ALICE", "alice", "A.lice", "Al1ce", "\u0410lice", "Álice", "A_l_i_c_e"]
    assert len({name_skeleton(n) for n in same}) == 1
    assert name_skeleton("modern") == name_skeleton("modem")
    assert name_skeleton("Alice") != name_skeleton("Alicia")


@given(st.text(max_size=40))
def test_validation_never_crashes(name: str) -> None:
    try:
        out = validate_display_name(name)
    except LobbyError:
        return
    assert 3 <= len(out) <= 24


# -- passwords --------------------------------------------------------------------------------


def test_passwords_hash_and_verify() -> None:
    pw = Passwords(time_cost=1, memory_cost_kib=1024)
    h = pw.hash("correct horse")
    assert h.startswith("$argon2id$")
    assert pw.verify(h, "correct horse")
    assert not pw.verify(h, "wrong horse")
    assert not pw.verify(None, "correct horse")
    assert not pw.verify("garbage", "x")
    with pytest.raises(LobbyError):
        validate_password("short")
    with pytest.raises(LobbyError):
        validate_password("aaaaaaaaaa")
    with pytest.raises(LobbyError):
        validate_password("x" * 129)


def test_throttle() -> None:
    th = FailureThrottle(limit=3, window_s=100, base_s=1, max_s=4)
    times: list[float] = []
    for i in range(3):  # free
        assert th.retry_after(times, now=float(i)) is None
        times = th.fail(times, now=float(i))
    # then 1, 2, 4, 4 s after the latest failure (doubling, capped at max_s)
    waits = []
    for _ in range(4):
        now = times[-1]
        wait = th.retry_after(times, now=now)
        assert wait is not None
        waits.append(wait)
        times = th.fail(times, now=now + wait)
    assert waits == pytest.approx([1.0, 2.0, 4.0, 4.0])
    # the window forgets them all
    assert th.retry_after(times, now=times[-1] + 100) is None
    # a success forgets the failures: the caller drops them
    assert th.retry_after([], now=3.0) is None


def test_throttle_counts_an_attempt_before_its_check() -> None:
    th = FailureThrottle(limit=3, window_s=10, base_s=2, max_s=8)
    times: list[float] = []
    for i in range(3):  # admitted, each counted as a failure in advance
        wait, kept = th.attempt(times, now=float(i))
        assert wait is None and kept == [*times, float(i)]
        times = kept
    # the fourth is refused until 2 s after the third, and a refusal is not recorded
    assert th.attempt(times, now=3.0) == (pytest.approx(1.0), None)
    assert th.attempt(times, now=3.5) == (pytest.approx(0.5), None)
    assert th.attempt(times, now=4.0) == (None, [0.0, 1.0, 2.0, 4.0])


def test_throttle_keeps_only_what_the_policy_needs() -> None:
    th = FailureThrottle(limit=3, window_s=10, base_s=1, max_s=4)
    assert th.keep == 6  # three free, then waits of 1, 2 and 4 s
    times: list[float] = []
    for t in range(8):  # eight failures (the caller refused none here)
        times = th.fail(times, now=float(t))
    assert times == [2.0, 3.0, 4.0, 5.0, 6.0, 7.0]  # the newest ``keep``, oldest first
    assert th.retry_after(times, now=7.0) == pytest.approx(4.0)
    assert th.expires_at(times) == 17.0
    # older failures leave the window one by one; out-of-order times (clock skew) are sorted
    assert th.fail([9.0, 3.0], now=12.5) == [3.0, 9.0, 12.5]
    assert th.recent([1.0, 2.0, 9.0], now=11.5) == [2.0, 9.0]
    assert th.retry_after([2.0, 9.0], now=11.5) is None


# -- settings ---------------------------------------------------------------------------------


def test_settings_defaults_and_limits() -> None:
    c = validate_settings(ruleset_id="classic")
    assert (c.seats, c.language, c.board_id, c.clock_s, c.challenge_mode) == (
        2,
        "en",
        "classic",
        0,
        "instant",
    )
    w = validate_settings(ruleset_id="wordtiles", seats=4, clock_s=180)
    assert w.challenge_mode == "accept_or_check" and w.clock_s == 180
    assert validate_settings(ruleset_id="wordtiles").clock_s == 600
    assert validate_settings(ruleset_id="scrabble").clock_s == 25 * 60
    assert validate_settings(ruleset_id="warofwords", idle_kick_s=7200).idle_kick_s == 7200
    assert validate_settings(ruleset_id="warofwords", seats=4).board_id == "warofwords-field"
    assert not validate_settings(ruleset_id="classic", pass_and_play=True).rated


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"ruleset_id": "classic", "seats": 3}, "settings.seats"),
        ({"ruleset_id": "wordtiles", "seats": 5}, "settings.seats"),
        ({"ruleset_id": "wordtiles", "seats": 1}, "settings.seats"),
        ({"ruleset_id": "wordtiles", "clock_s": 120}, "settings.options.clock.per_player"),
        ({"ruleset_id": "wordtiles", "clock_s": 21 * 60}, "settings.options.clock.per_player"),
        ({"ruleset_id": "wordtiles", "clock_s": 200}, "settings.options.clock.per_player"),
        ({"ruleset_id": "classic", "challenge_mode": "accept_or_check"}, "settings.options.challenge_mode"),
        ({"ruleset_id": "classic", "language": "xx"}, "settings.ruleset.language"),
        ({"ruleset_id": "classic", "board_id": "nope"}, "settings.ruleset.board_id"),
        ({"ruleset_id": "classic", "bots": ((0, 3), (1, 3))}, "settings.bots"),
        ({"ruleset_id": "classic", "bots": ((2, 3),)}, "settings.bots[0].seat"),
        ({"ruleset_id": "classic", "bots": ((1, 9),)}, "settings.bots[0].bot_level"),
        ({"ruleset_id": "classic", "idle_kick_s": 60}, "settings.options.clock.idle_kick_after"),
        ({"ruleset_id": "scrabble", "idle_kick_s": 7200}, "settings.options.clock.idle_kick_after"),
        ({"ruleset_id": "wordtiles", "idle_kick_s": 7200}, "settings.options.clock.idle_kick_after"),
        ({"ruleset_id": "scrabble", "clock_s": 4 * 60}, "settings.options.clock.per_player"),
    ],
)
def test_settings_refused(kwargs: dict, field: str) -> None:
    with pytest.raises(LobbyError) as ei:
        validate_settings(**kwargs)
    assert ei.value.field == field
    assert ei.value.status == Status.INVALID_ARGUMENT


def test_unknown_ruleset_is_not_found() -> None:
    with pytest.raises(LobbyError) as ei:
        validate_settings(ruleset_id="chess")
    assert ei.value.status == Status.NOT_FOUND


# -- tables -----------------------------------------------------------------------------------


def _p(i: int) -> Occupant:
    return Occupant(f"p{i}", f"Player{i}")


def test_table_lifecycle_host_hand_over_and_close() -> None:
    cfg = validate_settings(ruleset_id="wordtiles", seats=3, host_starts=True)
    t = Table.open("t1", cfg, _p(1), None, 0.0)
    assert t.seat_of("p1") == 0
    assert t.sit(_p(2)) == 1
    assert t.sit(_p(2)) == 1  # idempotent
    with pytest.raises(LobbyError) as ei:
        t.check_start("p2")
    assert ei.value.code == "NOT_HOST"
    t.leave("p1")
    assert t.host_player_id == "p2" and t.status == TableStatus.OPEN
    with pytest.raises(LobbyError) as ei:
        t.leave("p1")
    assert ei.value.code == "NOT_SEATED"
    t.leave("p2")
    assert t.status == TableStatus.CLOSED
    with pytest.raises(LobbyError) as ei:
        t.sit(_p(3))
    assert ei.value.code == "TABLE_NOT_OPEN"


def test_table_full_and_start() -> None:
    cfg = validate_settings(ruleset_id="classic")
    t = Table.open("t1", cfg, _p(1), 1, 0.0)
    assert t.seat_of("p1") == 1
    with pytest.raises(LobbyError) as ei:
        t.check_start("p1")
    assert ei.value.code == "TABLE_NOT_READY"
    with pytest.raises(LobbyError) as ei:
        t.sit(_p(2), 1)
    assert ei.value.status == Status.ALREADY_EXISTS
    t.sit_bot("p1", 2)
    assert t.full and t.should_autostart
    with pytest.raises(LobbyError) as ei:
        t.sit(_p(3))
    assert ei.value.code == "TABLE_FULL"
    seats = t.begin_start()
    assert [s.player_id for s in seats] == ["bot:2", "p1"]
    t.start_failed()
    assert t.status == TableStatus.OPEN
    t.begin_start()
    t.started("m1", "127.0.0.1:1")
    assert t.status == TableStatus.STARTED and t.match_id == "m1"


def test_private_table_has_invite_code() -> None:
    t = Table.open("t", validate_settings(ruleset_id="classic", private=True), _p(1), None, 0.0)
    assert len(t.invite_code) >= 8


# -- matchmaking -------------------------------------------------------------------------------


def _ticket(i: int, crit: Criteria, at: float, bot_after: float | None = None) -> Ticket:
    return Ticket(f"t{i}", f"p{i}", f"P{i}", crit, at, bot_after_s=bot_after)


def test_queue_groups_oldest_first_and_bots_after_wait() -> None:
    two = Criteria("classic", "en", "classic", 2)
    three = Criteria("wordtiles", "en", "wordtiles", 3)
    q = Queue()
    for i in range(5):
        q.add(_ticket(i, two, float(i)))
    q.add(_ticket(10, three, 0.0, bot_after=30))
    q.add(_ticket(11, three, 1.0))
    groups = q.match(now=5.0)
    assert [[t.player_id for t in g.tickets] for g in groups] == [["p0", "p1"], ["p2", "p3"]]
    assert q.waiting(two) == 1 and q.waiting(three) == 2
    assert q.next_deadline() == 30.0
    groups = q.match(now=31.0)
    assert len(groups) == 1 and groups[0].bots == 1 and len(groups[0].tickets) == 2
    for t in groups[0].tickets:
        q.remove(t, TicketStatus.MATCHED)
    assert q.queued_for("p10") is None
    q.requeue(groups[0])
    assert q.waiting(three) == 2
    expired = q.expire(now=10_000.0)
    assert {t.player_id for t in expired} == {"p4", "p10", "p11"}
    assert all(t.status == TicketStatus.EXPIRED for t in expired)


# -- Glicko-2 ----------------------------------------------------------------------------------


def test_glicko2_worked_example() -> None:
    """Glickman's example: 1500/200/0.06 vs 1400/30 (win), 1550/100 (loss), 1700/300 (loss)."""
    r = glicko2.rate(
        glicko2.Rating(1500, 200, 0.06),
        [(glicko2.Rating(1400, 30), 1.0), (glicko2.Rating(1550, 100), 0.0), (glicko2.Rating(1700, 300), 0.0)],
    )
    assert r.rating == pytest.approx(1464.06, abs=0.01)
    assert r.deviation == pytest.approx(151.52, abs=0.01)
    assert r.volatility == pytest.approx(0.05999, abs=1e-5)


def test_glicko2_no_games_grows_deviation() -> None:
    r = glicko2.rate(glicko2.Rating(1500, 50, 0.06), [])
    assert r.rating == 1500 and r.deviation > 50


# -- outcomes and records ----------------------------------------------------------------------


def _s(i: int, score: int, status: Seat = Seat.ACTIVE, first: bool = False) -> SeatEnd:
    return SeatEnd(i, f"p{i}", score, status, left_in_first_round=first)


def test_outcomes_highest_active_wins_inactive_cannot() -> None:
    seats = [_s(0, 300, Seat.LEFT), _s(1, 200), _s(2, 250)]
    assert decide_outcomes("warofwords", seats) == [Outcome.LOSS, Outcome.LOSS, Outcome.WIN]
    assert decide_outcomes("scrabble", [_s(0, 100), _s(1, 100)]) == [Outcome.TIE, Outcome.TIE]


def test_warofwords_first_round_leave_costs_nothing() -> None:
    seats = [_s(0, 0, Seat.LEFT, first=True), _s(1, 10), _s(2, 5)]
    assert decide_outcomes("warofwords", seats) == [Outcome.NO_RESULT, Outcome.WIN, Outcome.LOSS]
    # the same early leave in wordtiles is a loss
    assert decide_outcomes("wordtiles", seats)[0] == Outcome.LOSS
    # forfeits after the first round and kicks are losses
    assert decide_outcomes("warofwords", [_s(0, 0, Seat.RESIGNED), _s(1, 5)]) == [
        Outcome.LOSS,
        Outcome.WIN,
    ]
    kicked = [_s(0, 50, Seat.KICKED), _s(1, 40)]
    assert decide_outcomes("warofwords", kicked, ended_by_kick=True) == [Outcome.LOSS, Outcome.NO_RESULT]
    kicked = [_s(0, 30, Seat.KICKED), _s(1, 40)]
    assert decide_outcomes("warofwords", kicked, ended_by_kick=True) == [Outcome.LOSS, Outcome.WIN]


def test_wordtiles_last_player_wins() -> None:
    seats = [_s(0, 90, Seat.TIMED_OUT), _s(1, 10), _s(2, 50, Seat.LEFT)]
    assert decide_outcomes("wordtiles", seats) == [Outcome.LOSS, Outcome.WIN, Outcome.LOSS]


def test_check_outcomes() -> None:
    seats = [_s(0, 90, Seat.LEFT), _s(1, 10)]
    assert check_outcomes("classic", seats, [Outcome.WIN, Outcome.LOSS]) is not None
    assert check_outcomes("classic", seats, [Outcome.LOSS, Outcome.WIN]) is None
    assert check_outcomes("classic", seats, [Outcome.NO_RESULT, Outcome.WIN]) is not None
    assert check_outcomes("classic", [_s(0, 1), _s(1, 1)], [Outcome.WIN, Outcome.WIN]) is not None


def test_records_and_weighted_score() -> None:
    seats = [_s(0, 300), _s(1, 200), SeatEnd(2, "bot:3", 100)]
    outcomes = decide_outcomes("scrabble", seats)
    recs = apply_result({}, seats, outcomes)
    assert set(recs) == {"p0", "p1"}
    assert (recs["p0"].wins, recs["p0"].games, recs["p1"].losses) == (1, 1, 1)
    assert recs["p0"].average_score == 300
    assert recs["p0"].weighted_score == 150  # 300 - mean(200, 100)
    assert recs["p1"].weighted_score == 0  # 200 - mean(300, 100)
    assert recs["p0"].rating.rating > 1500 == pytest.approx(recs["p1"].rating.rating)  # p1 beat the bot
    # a leaver's score never counts
    seats = [_s(0, 80, Seat.LEFT), _s(1, 10)]
    recs2 = apply_result({"p0": recs["p0"]}, seats, decide_outcomes("warofwords", seats))
    assert recs2["p0"].losses == 1 and recs2["p0"].scored_games == 1
    # first-round leave: no record change at all
    seats = [_s(0, 0, Seat.LEFT, first=True), _s(1, 10)]
    recs3 = apply_result({}, seats, decide_outcomes("warofwords", seats))
    assert "p0" not in recs3 and recs3["p1"].wins == 1
    assert PlayerRecord().average_score == 0


def test_lobby_errors_map_to_the_grpc_status_of_the_same_name_with_their_details() -> None:
    """Domain code knows no gRPC: ``Status`` names the answer, and the servicer layer's one
    mapping gives the gRPC code of the same name, the message, a LobbyViolation (code, field),
    a BadRequest for an invalid field and RetryInfo when a retry is due."""
    from wordarena.v1 import errors_pb2

    for status in Status:
        assert grpc.StatusCode[status.name]  # every domain status has its gRPC code
    err = to_service_error(LobbyError.invalid("display name too short", "display_name", "NAME_INVALID"))
    assert (err.code, err.message) == (grpc.StatusCode.INVALID_ARGUMENT, "display name too short")
    violation, bad = err.details
    assert isinstance(violation, errors_pb2.LobbyViolation)
    assert (violation.code, violation.code_name, violation.field) == (
        errors_pb2.LOBBY_CODE_NAME_INVALID, "NAME_INVALID", "display_name")
    assert [(v.field, v.description) for v in bad.field_violations] == [
        ("display_name", "display name too short")]
    throttled = to_service_error(
        LobbyError(Status.RESOURCE_EXHAUSTED, "too many failed sign-ins", retry_after_s=2.5))
    assert throttled.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert throttled.details[-1].retry_delay.ToNanoseconds() == 2_500_000_000
    assert len(to_service_error(LobbyError.precondition("TABLE_FULL", "every seat is taken")).details) == 1
