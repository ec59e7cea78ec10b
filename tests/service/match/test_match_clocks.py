"""Each family's timing through gRPC, on a fake clock: Scrabble's tournament clock with its
overtime penalty, the per-turn deadlines of correspondence play (classic times the late seat
out, War of Words lets the others kick it), and bad clock settings refused."""

from __future__ import annotations

import uuid

import grpc
import pytest
from fake_clock import FakeClock
from google.protobuf.duration_pb2 import Duration
from grpc_helpers import refused
from match_harness import SERVICE_TOKEN, Harness, pass_move, violation_of

from wordarena.services.common.errors import details_of
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m

MINUTE, HOUR, DAY = 60.0, 3600.0, 86400.0


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    return FakeClock().install(monkeypatch)


def seconds(d: Duration) -> float:
    return d.ToTimedelta().total_seconds()


async def test_scrabble_clock_runs_past_zero_and_each_started_minute_over_costs_ten_points(
        harness: Harness, clock: FakeClock) -> None:
    srv = await harness.start()
    # Seed 4: after six passes Alice's rack is worth 9 and Bob's 12, so Alice would win by 3
    # points; 61 seconds over (two started minutes) cost her 20 and the game.
    mid = await harness.create(srv, ruleset="scrabble", seed=4)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await alice.view(mid)
    own = view.seats[0].clock
    assert seconds(own.remaining) == 25 * MINUTE and own.running
    assert own.overtime_points == 10 and seconds(own.max_overtime) == 10 * MINUTE
    assert not view.seats[0].HasField("turn_deadline")
    assert not view.options.clock.HasField("idle_kick_after")  # no per-turn deadline here
    await clock.advance(25 * MINUTE + 61)
    view = await alice.view(mid)
    own = view.seats[0].clock
    assert seconds(own.remaining) == 0 and seconds(own.overtime) == pytest.approx(61)
    assert view.seats[0].status == c.SEAT_STATUS_ACTIVE  # over time, still playing
    for turn in range(6):
        view = await alice.view(mid)
        player = (alice, bob)[view.to_move_seat]
        await player.submit(mid, pass_move(), view.last_seq)
        await clock.advance(1)
        if turn < 5:  # the sixth pass in a row ends the game, not one before
            assert not (await alice.view(mid)).HasField("result")
    result = (await bob.view(mid)).result
    a, b = result.final_scores
    assert (a.score_before, a.rack_penalty, a.overtime_penalty, a.final_score) == (0, -9, -20, -29)
    assert (b.score_before, b.rack_penalty, b.overtime_penalty, b.final_score) == (0, -12, 0, -12)
    assert (a.outcome, b.outcome) == (c.OUTCOME_LOSS, c.OUTCOME_WIN)
    assert list(result.winner_seats) == [1]


@pytest.mark.database  # restarts on its store
async def test_a_restarted_server_keeps_each_seats_clock_as_it_stood(
        harness: Harness, clock: FakeClock) -> None:
    """The clocks are part of the durable log: after Alice used 4 minutes and Bob 7, a server
    restarted from the database shows each seat the time it had left, not a fresh 25 minutes
    (found by the commit-path mutation run: dropping the clocks from a stored turn survived)."""
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="scrabble", seed=4)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    await clock.advance(4 * MINUTE)
    await alice.submit(mid, pass_move(), (await alice.view(mid)).last_seq)
    await clock.advance(7 * MINUTE)
    await bob.submit(mid, pass_move(), (await bob.view(mid)).last_seq)
    await srv.stop(0.5)
    srv2 = await harness.start()
    view = await harness.player(srv2, "alice").view(mid)
    left = [seconds(s.clock.remaining) for s in view.seats]
    assert left == [pytest.approx(21 * MINUTE), pytest.approx(18 * MINUTE)]
    assert [s.clock.running for s in view.seats] == [True, False]  # Alice is to move again


@pytest.mark.database  # restarts on its store
async def test_last_move_time_is_when_the_seat_last_moved_or_joined_and_survives_a_restart(
        harness: Harness, clock: FakeClock) -> None:
    """Seat.last_move_time: "When the seat last made a move (or joined)": both seats at the
    match's creation, then Alice's at her pass 4 minutes later; a restarted server reads the same
    from its log. (A commit-path mutant that never recorded a move survived every test.)"""
    srv = await harness.start()
    mid = await harness.create(srv)
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    created = view.create_time.ToNanoseconds() / 1e9

    def moved(v: m.MatchView) -> list[float]:
        return [s.last_move_time.ToNanoseconds() / 1e9 for s in v.seats]

    assert moved(view) == [pytest.approx(created)] * 2
    await clock.advance(4 * MINUTE)
    await alice.submit(mid, pass_move(), view.last_seq)
    view = await alice.view(mid)
    assert moved(view) == [pytest.approx(created + 4 * MINUTE), pytest.approx(created)]
    await srv.stop(0.5)
    again = await harness.player(await harness.start(), "alice").view(mid)
    assert moved(again) == moved(view)


async def test_scrabble_seat_ten_minutes_over_times_out_and_loses(
        harness: Harness, clock: FakeClock) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="scrabble", seed=4,
                               clock=c.ClockSettings(per_player=Duration(seconds=5 * 60)))
    alice = harness.player(srv, "alice")
    await clock.advance(5 * MINUTE + 9 * MINUTE)
    assert (await alice.view(mid)).seats[0].status == c.SEAT_STATUS_ACTIVE
    await clock.advance(MINUTE + 1)
    view = await alice.view(mid)
    assert view.seats[0].status == c.SEAT_STATUS_TIMED_OUT
    assert view.result.reason == c.GAME_OVER_REASON_TIMEOUT
    assert list(view.result.winner_seats) == [1]


async def test_classic_turn_deadline_times_the_late_seat_out(
        harness: Harness, clock: FakeClock) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, clock=c.ClockSettings(idle_kick_after=Duration(seconds=7200)))
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await bob.view(mid)
    assert not view.seats[0].HasField("clock")  # no game clock: a deadline per turn
    deadline = view.seats[0].turn_deadline.seconds
    assert deadline == pytest.approx(clock.now() + 2 * HOUR, abs=1)
    assert not view.seats[1].HasField("turn_deadline")
    await clock.advance(HOUR)
    await alice.submit(mid, pass_move(), view.last_seq)
    view = await alice.view(mid)  # Bob's turn now: his deadline counts from Alice's pass
    assert view.seats[1].turn_deadline.seconds == pytest.approx(deadline + HOUR, abs=1)
    assert not view.seats[0].HasField("turn_deadline")
    await clock.advance(2 * HOUR - MINUTE)
    assert (await alice.view(mid)).seats[1].status == c.SEAT_STATUS_ACTIVE
    await clock.advance(MINUTE + 1)
    view = await alice.view(mid)
    assert view.seats[1].status == c.SEAT_STATUS_TIMED_OUT
    assert view.result.reason == c.GAME_OVER_REASON_TIMEOUT
    assert [fs.outcome for fs in view.result.final_scores] == [c.OUTCOME_WIN, c.OUTCOME_LOSS]


async def test_classic_deadline_is_three_days_unless_the_table_sets_one(
        harness: Harness, clock: FakeClock) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    assert view.options.clock.idle_kick_after.seconds == 3 * DAY
    assert view.seats[0].turn_deadline.seconds == pytest.approx(clock.now() + 3 * DAY, abs=1)
    await clock.advance(3 * DAY - MINUTE)
    assert (await alice.view(mid)).seats[0].status == c.SEAT_STATUS_ACTIVE
    await clock.advance(2 * MINUTE)
    assert (await alice.view(mid)).seats[0].status == c.SEAT_STATUS_TIMED_OUT


async def test_war_of_words_deadline_lets_the_others_kick_and_times_nobody_out(
        harness: Harness, clock: FakeClock) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="warofwords",
                               clock=c.ClockSettings(idle_kick_after=Duration(seconds=3600)))
    bob = harness.player(srv, "bob")
    view = await bob.view(mid)
    assert view.seats[0].turn_deadline.seconds == pytest.approx(clock.now() + HOUR, abs=1)
    kick = m.KickIdlePlayerRequest(match_id=mid, seat=0, request_id=uuid.uuid4().hex)
    with pytest.raises(grpc.aio.AioRpcError) as early:
        await bob.stub.KickIdlePlayer(kick, metadata=bob.md)
    v = violation_of(early.value)
    assert v is not None and v.code == e.RULE_CODE_KICK_TOO_EARLY
    assert v.retry_after.seconds == pytest.approx(clock.now() + HOUR, abs=1)
    await clock.advance(HOUR + 1)
    assert (await bob.view(mid)).seats[0].status == c.SEAT_STATUS_ACTIVE  # nobody timed out
    kick.request_id = uuid.uuid4().hex
    r = await bob.stub.KickIdlePlayer(kick, metadata=bob.md)
    assert any(ev.HasField("player_kicked") for ev in r.events)
    assert (await bob.view(mid)).seats[0].status == c.SEAT_STATUS_KICKED


async def test_no_deadline_runs_in_pass_and_play(harness: Harness, clock: FakeClock) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, players=("alice", "alice"), pass_and_play=True)
    alice = harness.player(srv, "alice")
    assert not (await alice.view(mid)).seats[0].HasField("turn_deadline")
    await clock.advance(4 * DAY)
    assert (await alice.view(mid)).seats[0].status == c.SEAT_STATUS_ACTIVE


@pytest.mark.parametrize(
    ("ruleset", "settings", "field"),
    [
        ("scrabble", c.ClockSettings(idle_kick_after=Duration(seconds=7200)),
         "options.clock.idle_kick_after"),
        ("wordtiles", c.ClockSettings(idle_kick_after=Duration(seconds=7200)),
         "options.clock.idle_kick_after"),
        ("classic", c.ClockSettings(idle_kick_after=Duration(seconds=60)),
         "options.clock.idle_kick_after"),
        ("warofwords", c.ClockSettings(idle_kick_after=Duration(seconds=31 * 86400)),
         "options.clock.idle_kick_after"),
        ("scrabble", c.ClockSettings(per_player=Duration(seconds=4 * 60)),
         "options.clock.per_player"),
        ("scrabble", c.ClockSettings(per_player=Duration(seconds=25 * 60 + 30)),
         "options.clock.per_player"),
        ("classic", c.ClockSettings(per_player=Duration(seconds=8 * 86400)),
         "options.clock.per_player"),
    ],
)
async def test_bad_clock_settings_are_refused_naming_the_field(
        harness: Harness, ruleset: str, settings: c.ClockSettings, field: str) -> None:
    srv = await harness.start()
    req = ctl.CreateMatchRequest(
        match_id=uuid.uuid4().hex[:12], ruleset=c.RulesetRef(ruleset_id=ruleset), seed=1,
        seats=[ctl.SeatAssignment(index=i, player=c.Player(player_id=p, display_name=p))
               for i, p in enumerate(("alice", "bob"))],
        options=c.MatchOptions(clock=settings))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await harness.control(srv).CreateMatch(
            req, metadata=[("authorization", f"Bearer {SERVICE_TOKEN}")])
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    fields = [v.field for d in details_of(err.value) if hasattr(d, "field_violations")
              for v in d.field_violations]
    assert fields == [field], (fields, err.value.details())
    # nothing was created: the match is unknown to a player who asks for it (GetMatch: NOT_FOUND)
    unknown = await refused(harness.player(srv, "alice").view(req.match_id))
    assert unknown.code() == grpc.StatusCode.NOT_FOUND, unknown.details()
