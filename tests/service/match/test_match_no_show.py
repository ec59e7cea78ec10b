"""The first-move deadline (``MatchOptions.no_show_timeout``) through gRPC, on a fake clock: a
seat that has not moved by then is timed out even with time on its clock, its result report
names it (``SeatResult.no_show``), and a seat that has moved is no longer held to it."""

from __future__ import annotations

import grpc
import pytest
from fake_clock import FakeClock
from google.protobuf.duration_pb2 import Duration
from match_harness import Harness, pass_move

from wordarena.services.match.results import build_report, facts_of
from wordarena.v1 import common_pb2 as c

MINUTE = 60.0


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    return FakeClock().install(monkeypatch)


async def test_a_first_mover_who_does_not_show_is_timed_out_and_reported_as_a_no_show(
    harness: Harness, clock: FakeClock
) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, no_show_timeout=Duration(seconds=300))
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await bob.view(mid)
    assert view.options.no_show_timeout.seconds == 300
    assert view.options.clock.idle_kick_after.seconds == 3 * 86400  # the game's own deadline stays
    await clock.advance(5 * MINUTE - 1)
    assert (await bob.view(mid)).seats[0].status == c.SEAT_STATUS_ACTIVE
    await clock.advance(2)
    view = await bob.view(mid)
    assert view.seats[0].status == c.SEAT_STATUS_TIMED_OUT
    assert view.result.reason == c.GAME_OVER_REASON_TIMEOUT
    assert [fs.outcome for fs in view.result.final_scores] == [c.OUTCOME_LOSS, c.OUTCOME_WIN]
    report = build_report(facts_of(srv.manager.matches[mid]), "s1")
    assert report is not None
    assert [(s.seat, s.no_show) for s in report.seats] == [(0, True), (1, False)]
    assert alice.player_id == report.seats[0].player_id


async def test_the_second_seat_is_held_to_the_deadline_from_its_first_turn_and_a_mover_is_not(
    harness: Harness, clock: FakeClock
) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, no_show_timeout=Duration(seconds=300))
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    await clock.advance(4 * MINUTE)
    await alice.submit(mid, pass_move(), (await alice.view(mid)).last_seq)  # Alice showed
    await clock.advance(4 * MINUTE)  # Bob's first turn began 4 minutes ago
    view = await bob.view(mid)
    assert view.seats[1].status == c.SEAT_STATUS_ACTIVE
    await bob.submit(mid, pass_move(), view.last_seq)  # Bob showed too
    await clock.advance(30 * MINUTE)  # Alice has moved before: no deadline but the game's own
    view = await bob.view(mid)
    assert [s.status for s in view.seats] == [c.SEAT_STATUS_ACTIVE] * 2 and not view.HasField("result")

    mid2 = await harness.create(srv, no_show_timeout=Duration(seconds=300))
    await alice.submit(mid2, pass_move(), (await alice.view(mid2)).last_seq)
    await clock.advance(5 * MINUTE + 1)
    view = await alice.view(mid2)
    assert view.seats[1].status == c.SEAT_STATUS_TIMED_OUT
    report = build_report(facts_of(srv.manager.matches[mid2]), "s1")
    assert report is not None and [s.no_show for s in report.seats] == [False, True]


async def test_without_the_option_a_time_out_is_no_no_show_and_a_negative_deadline_is_refused(
    harness: Harness, clock: FakeClock
) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, clock=c.ClockSettings(idle_kick_after=Duration(seconds=3600)))
    await clock.advance(61 * MINUTE)
    assert (await harness.player(srv, "bob").view(mid)).seats[0].status == c.SEAT_STATUS_TIMED_OUT
    report = build_report(facts_of(srv.manager.matches[mid]), "s1")
    assert report is not None and not any(s.no_show for s in report.seats)
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await harness.create(srv, no_show_timeout=Duration(seconds=-5))
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "no_show_timeout" in (exc.value.details() or "")
