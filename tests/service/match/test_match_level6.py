"""Level-6 bot seats through gRPC: CreateMatch takes bot_level 6 and a seat's bot_think_ms (and
refuses what is out of range, naming the field); the bot thinks with that budget, off the event
loop, on the bot workers: while it thinks in one match, another match is answered."""

from __future__ import annotations

import asyncio
import threading
import uuid
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from match_harness import SERVICE_TOKEN, Harness, Player, engine_move

from wordarena.services.common.errors import details_of
from wordarena.services.match import bots
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import match_pb2 as m

ADMIN = [("authorization", f"Bearer {SERVICE_TOKEN}")]


def _request(bot: ctl.SeatAssignment, alice_think: int = 0) -> ctl.CreateMatchRequest:
    alice = ctl.SeatAssignment(
        index=0, player=c.Player(player_id="alice", display_name="Alice"), bot_think_ms=alice_think
    )
    return ctl.CreateMatchRequest(
        match_id=uuid.uuid4().hex[:12], ruleset=c.RulesetRef(ruleset_id="classic"), seats=[alice, bot], seed=7
    )


async def _refused_field(harness: Harness, srv: Any, req: ctl.CreateMatchRequest) -> list[str]:
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await harness.control(srv).CreateMatch(req, metadata=ADMIN)
    assert ei.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    return [
        v.field
        for d in details_of(ei.value)
        if isinstance(d, error_details_pb2.BadRequest)
        for v in d.field_violations
    ]


async def test_create_match_takes_level_6_and_a_think_time_and_refuses_bad_ones(harness: Harness) -> None:
    srv = await harness.start()
    for bad, field in [
        (ctl.SeatAssignment(index=1, bot_level=7), "seats[1].bot_level"),
        (ctl.SeatAssignment(index=1, bot_level=6, bot_think_ms=99), "seats[1].bot_think_ms"),
        (ctl.SeatAssignment(index=1, bot_level=6, bot_think_ms=30_001), "seats[1].bot_think_ms"),
    ]:
        assert await _refused_field(harness, srv, _request(bad)) == [field]
    on_a_player = _request(ctl.SeatAssignment(index=1, bot_level=6), alice_think=500)
    assert await _refused_field(harness, srv, on_a_player) == ["seats[0].bot_think_ms"]
    ok = _request(ctl.SeatAssignment(index=1, bot_level=6, bot_think_ms=30_000))
    await harness.control(srv).CreateMatch(ok, metadata=ADMIN)
    view = await harness.player(srv, "alice").view(ok.match_id)
    assert view.seats[1].player.bot and view.seats[1].player.bot_level == 6


async def _next_event(player: Player, mid: str, after_seq: int) -> c.Event:
    call = player.stub.StreamMatch(
        m.StreamMatchRequest(match_id=mid, after_seq=after_seq), metadata=player.md
    )
    try:
        async with asyncio.timeout(60):
            async for msg in call:
                if not msg.event.HasField("heartbeat"):
                    return msg.event
    finally:
        call.cancel()
    raise AssertionError("no event")


async def test_while_a_level_6_bot_thinks_another_match_is_answered(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bot's real choice, held at its start until the other match has been answered: if bot
    # work ran on the event loop, nothing else could be answered meanwhile and this would hang.
    started, release = threading.Event(), threading.Event()
    asked: list[tuple[int, int]] = []
    real = bots.choose

    def held(state: Any, seat: int, level: int, think_ms: int = 0) -> Any:
        asked.append((level, think_ms))
        started.set()
        assert release.wait(60), "never released"
        return real(state, seat, level, think_ms)

    monkeypatch.setattr(bots, "choose", held)
    srv = await harness.start()
    vs_bot = _request(ctl.SeatAssignment(index=1, bot_level=6, bot_think_ms=300))
    await harness.control(srv).CreateMatch(vs_bot, metadata=ADMIN)
    humans = await harness.create(srv, players=("bob", "carol"), seed=11)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    mid = vs_bot.match_id

    view = await alice.view(mid)
    await alice.submit(mid, _first_move(view, srv, mid), view.last_seq)
    assert await asyncio.to_thread(started.wait, 60)  # the bot is thinking now
    seq_while_thinking = (await alice.view(mid)).last_seq

    other = await bob.view(humans)
    answer = await bob.submit(humans, _first_move(other, srv, humans), other.last_seq)
    assert answer.events and answer.events[0].seq == other.last_seq + 1
    # answered while the bot still thinks: its match has not moved on
    assert (await alice.view(mid)).last_seq == seq_while_thinking
    release.set()
    bot_move = await _next_event(alice, mid, seq_while_thinking)
    assert bot_move.WhichOneof("kind") in ("turn_played", "tiles_exchanged", "turn_passed")
    assert bot_move.to_move_seat == 0 and asked == [(6, 300)]


def _first_move(view: m.MatchView, srv: Any, mid: str) -> c.Move:
    """The engine's best play for the seat to move, from the server's own state (test only)."""
    rt = srv.manager.matches[mid]
    return engine_move(rt.state, view.to_move_seat)
