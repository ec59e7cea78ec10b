"""The first-move deadline (``MatchOptions.no_show_timeout``) through gRPC, on a fake clock: a
seat that has not moved by then is timed out even with time on its clock, its result report
names it (``SeatResult.no_show``), and a seat that has moved is no longer held to it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest
from fake_clock import FakeClock
from google.protobuf.duration_pb2 import Duration
from match_harness import Harness, Player, RecordingRegistry, pass_move, recording_lobby

from wordarena.services.match.main import MatchServer
from wordarena.v1 import common_pb2 as c

MINUTE = 60.0


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    return FakeClock().install(monkeypatch)


@dataclass
class Table:
    """A match server linked to a recording lobby, and Alice and Bob as its clients."""

    harness: Harness
    srv: MatchServer
    lobby: RecordingRegistry
    alice: Player
    bob: Player

    async def match(self, no_show: int | None = 300, **options: object) -> str:
        """A new match of Alice (seat 0) and Bob, with a first-move deadline of ``no_show`` s."""
        if no_show is not None:
            options["no_show_timeout"] = Duration(seconds=no_show)
        return await self.harness.create(self.srv, **options)  # type: ignore[arg-type]

    async def no_shows(self, match_id: str) -> list[bool]:
        """``SeatResult.no_show`` per seat, as the lobby receives the match's result."""
        report = await self.lobby.wait_for(match_id)
        assert [s.seat for s in report.seats] == [0, 1]
        assert [s.player_id for s in report.seats] == [self.alice.player_id, self.bob.player_id]
        return [s.no_show for s in report.seats]


@pytest.fixture
async def table(harness: Harness, clock: FakeClock) -> AsyncIterator[Table]:
    async with recording_lobby() as lobby:
        srv = await harness.start(lobby=lobby.address)
        yield Table(harness, srv, lobby, harness.player(srv, "alice"), harness.player(srv, "bob"))


async def test_a_first_mover_who_does_not_show_is_timed_out_and_reported_as_a_no_show(
    table: Table, clock: FakeClock
) -> None:
    mid = await table.match()
    bob = table.bob
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
    assert await table.no_shows(mid) == [True, False]


async def test_the_second_seat_is_held_to_the_deadline_from_its_first_turn_and_a_mover_is_not(
    table: Table, clock: FakeClock
) -> None:
    mid = await table.match()
    alice, bob = table.alice, table.bob
    await clock.advance(4 * MINUTE)
    await alice.submit(mid, pass_move(), (await alice.view(mid)).last_seq)  # Alice showed
    await clock.advance(4 * MINUTE)  # Bob's first turn began 4 minutes ago
    view = await bob.view(mid)
    assert view.seats[1].status == c.SEAT_STATUS_ACTIVE
    await bob.submit(mid, pass_move(), view.last_seq)  # Bob showed too
    await clock.advance(30 * MINUTE)  # Alice has moved before: no deadline but the game's own
    view = await bob.view(mid)
    assert [s.status for s in view.seats] == [c.SEAT_STATUS_ACTIVE] * 2 and not view.HasField("result")
    await clock.advance(3 * 86400)  # the game's own turn deadline: a time-out, not a no-show
    view = await bob.view(mid)
    assert view.seats[0].status == c.SEAT_STATUS_TIMED_OUT
    assert await table.no_shows(mid) == [False, False]

    mid2 = await table.match()
    await alice.submit(mid2, pass_move(), (await alice.view(mid2)).last_seq)
    await clock.advance(5 * MINUTE + 1)
    view = await alice.view(mid2)
    assert view.seats[1].status == c.SEAT_STATUS_TIMED_OUT
    assert await table.no_shows(mid2) == [False, True]


async def test_without_the_option_a_time_out_is_no_no_show_and_a_negative_deadline_is_refused(
    table: Table, clock: FakeClock
) -> None:
    mid = await table.match(None, clock=c.ClockSettings(idle_kick_after=Duration(seconds=3600)))
    await clock.advance(61 * MINUTE)
    assert (await table.bob.view(mid)).seats[0].status == c.SEAT_STATUS_TIMED_OUT
    assert await table.no_shows(mid) == [False, False]
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await table.match(-5)
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "no_show_timeout" in (exc.value.details() or "")


def due(seat: c.Seat) -> float | None:
    """A seat's ``no_show_deadline`` as a client reads it (None when unset)."""
    return seat.no_show_deadline.ToNanoseconds() / 1e9 if seat.HasField("no_show_deadline") else None


async def test_getmatch_shows_the_first_move_deadline_on_the_seat_to_move_until_it_has_moved(
    table: Table, clock: FakeClock
) -> None:
    mid = await table.match()
    alice, bob = table.alice, table.bob
    view = await bob.view(mid)
    start = view.create_time.ToNanoseconds() / 1e9
    assert [due(s) for s in view.seats] == [start + 300, None]  # Bob's first turn has not begun
    assert view.seats[0].HasField("turn_deadline")  # the game's own deadline is shown beside it
    await clock.advance(4 * MINUTE)
    view = await alice.view(mid)
    assert [due(s) for s in view.seats] == [start + 300, None]  # a fixed time, not a countdown
    await alice.submit(mid, pass_move(), view.last_seq)
    await clock.advance(MINUTE)
    view = await bob.view(mid)
    assert [due(s) for s in view.seats] == [None, start + 240 + 300]  # from Bob's first turn
    await bob.submit(mid, pass_move(), view.last_seq)
    view = await alice.view(mid)
    assert view.to_move_seat == 0 and [due(s) for s in view.seats] == [None, None]  # both showed

    mid2 = await table.match()
    await clock.advance(5 * MINUTE + 1)
    view = await bob.view(mid2)
    assert view.HasField("result") and [due(s) for s in view.seats] == [None, None]  # game over


async def test_no_first_move_deadline_is_shown_without_the_option_in_pass_and_play_or_for_bots(
    harness: Harness, clock: FakeClock
) -> None:
    srv = await harness.start(bot_delay=60.0)  # the bot stays to move while it is looked at
    alice = harness.player(srv, "alice")
    plain = await harness.create(srv)
    view = await alice.view(plain)
    assert view.seats[0].HasField("turn_deadline") and [due(s) for s in view.seats] == [None, None]
    hotseat = await harness.create(
        srv, players=("alice", "alice"), pass_and_play=True, no_show_timeout=Duration(seconds=300)
    )
    assert [due(s) for s in (await alice.view(hotseat)).seats] == [None, None]
    botted = await harness.create(srv, players=("alice",), bots=(1,), no_show_timeout=Duration(seconds=300))
    view = await alice.view(botted)
    assert due(view.seats[0]) is not None
    await alice.submit(botted, pass_move(), view.last_seq)
    view = await alice.view(botted)
    assert view.to_move_seat == 1 and [due(s) for s in view.seats] == [None, None]  # bots always show
