"""Level-6 bot seats through gRPC: CreateMatch takes bot_level 6 and a seat's bot_think_ms (and
refuses what is out of range, naming the field); the bot thinks with that budget, off the event
loop, in the bot worker processes: while it thinks in one match, another match is answered; bots
think side by side up to the number of workers; a worker killed mid-move is replaced and the
bot still moves."""

from __future__ import annotations

import asyncio
import functools
import os
import signal
import uuid
from pathlib import Path
from typing import Any

import bot_hold
import grpc
import pytest
from google.rpc import error_details_pb2
from match_harness import SERVICE_TOKEN, Harness, Player, engine_move

from wordarena.services.common.errors import details_of
from wordarena.services.match.botworkers import BotWorkers
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


async def _wait_started(folder: Path, count: int) -> list[tuple[int, str]]:
    """The held moves once ``count`` workers have started one (60 s at most)."""
    async with asyncio.timeout(60):
        while len(found := bot_hold.started(folder)) < count:
            await asyncio.sleep(0.02)
    return found


def _hold(srv: Any, folder: Path, workers: int = 1) -> None:
    """Bots of ``srv`` think in ``workers`` processes, each move held until ``folder/release``."""
    srv.manager.bot_workers.shutdown()
    srv.manager.bot_workers = BotWorkers(workers, think=functools.partial(bot_hold.held, str(folder)))


async def test_while_a_level_6_bot_thinks_another_match_is_answered(harness: Harness, tmp_path: Path) -> None:
    # The bot's real choice, held at its start until the other match has been answered: if bot
    # work ran on the event loop, nothing else could be answered meanwhile and this would hang.
    srv = await harness.start()
    _hold(srv, tmp_path)
    vs_bot = _request(ctl.SeatAssignment(index=1, bot_level=6, bot_think_ms=300))
    await harness.control(srv).CreateMatch(vs_bot, metadata=ADMIN)
    humans = await harness.create(srv, players=("bob", "carol"), seed=11)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    mid = vs_bot.match_id

    view = await alice.view(mid)
    await alice.submit(mid, _first_move(view, srv, mid), view.last_seq)
    thinking = await _wait_started(tmp_path, 1)  # the bot is thinking now
    seq_while_thinking = (await alice.view(mid)).last_seq

    other = await bob.view(humans)
    answer = await bob.submit(humans, _first_move(other, srv, humans), other.last_seq)
    assert answer.events and answer.events[0].seq == other.last_seq + 1
    # answered while the bot still thinks: its match has not moved on
    assert (await alice.view(mid)).last_seq == seq_while_thinking
    (tmp_path / "release").touch()
    bot_move = await _next_event(alice, mid, seq_while_thinking)
    assert bot_move.WhichOneof("kind") in ("turn_played", "tiles_exchanged", "turn_passed")
    assert bot_move.to_move_seat == 0
    # it thought in another process, as level 6 with the seat's think time
    assert [text for _, text in thinking] == ["6 300"] and thinking[0][0] != os.getpid()


async def test_bots_think_side_by_side_up_to_the_bot_workers(harness: Harness, tmp_path: Path) -> None:
    srv = await harness.start()
    two, one = tmp_path / "two", tmp_path / "one"
    two.mkdir(), one.mkdir()
    for folder, workers in ((two, 2), (one, 1)):
        _hold(srv, folder, workers)
        alice = harness.player(srv, "alice")
        mids = []
        for _ in range(2):
            req = _request(ctl.SeatAssignment(index=1, bot_level=5))
            await harness.control(srv).CreateMatch(req, metadata=ADMIN)
            view = await alice.view(req.match_id)
            await alice.submit(req.match_id, _first_move(view, srv, req.match_id), view.last_seq)
            mids.append((req.match_id, view.last_seq + 1))
        if workers == 2:  # both think at once, each in its own process
            assert len({pid for pid, _ in await _wait_started(folder, 2)}) == 2
        else:  # the second waits for the first: one worker
            await _wait_started(folder, 1)
            await asyncio.sleep(1.0)
            assert len(bot_hold.started(folder)) == 1
        (folder / "release").touch()
        for mid, seq in mids:
            assert (await _next_event(alice, mid, seq)).to_move_seat == 0
        assert len(bot_hold.started(folder)) == 2


async def test_a_match_with_a_bot_seat_has_its_worker_load_the_lexicon_before_the_first_move(
    harness: Harness,
) -> None:
    srv = await harness.start()
    srv.manager.bot_workers.shutdown()
    srv.manager.bot_workers = BotWorkers(1, think=bot_hold.lexicon_was_loaded)
    req = _request(ctl.SeatAssignment(index=1, bot_level=5))
    await harness.control(srv).CreateMatch(req, metadata=ADMIN)
    alice = harness.player(srv, "alice")
    view = await alice.view(req.match_id)
    await alice.submit(req.match_id, _first_move(view, srv, req.match_id), view.last_seq)
    # the stand-in passes when the lexicon was loaded before it was asked
    assert (await _next_event(alice, req.match_id, view.last_seq + 1)).WhichOneof("kind") == "turn_passed"


async def test_a_bot_worker_killed_while_thinking_is_replaced_and_the_bot_moves(
    harness: Harness, tmp_path: Path
) -> None:
    _, req, alice, view = await _bot_thinking(harness, tmp_path)
    [(first, _)] = await _wait_started(tmp_path, 1)
    os.kill(first, signal.SIGKILL)  # out of memory, say
    pids = {pid for pid, _ in await _wait_started(tmp_path, 2)}  # asked again, of a new worker
    (tmp_path / "release").touch()
    bot_move = await _next_event(alice, req.match_id, view.last_seq + 1)
    # the bot played its own move (not the fallback exchange or pass of a failed bot)
    assert bot_move.WhichOneof("kind") == "turn_played"
    assert first in pids and len(pids) == 2


async def _bot_thinking(harness: Harness, tmp_path: Path) -> tuple[Any, Any, Any, m.MatchView]:
    """A server whose level-5 bot (seat 1) is thinking, held (``_hold``), after alice's first
    move: (server, the CreateMatch request, alice, her view before the move)."""
    srv = await harness.start()
    _hold(srv, tmp_path)
    req = _request(ctl.SeatAssignment(index=1, bot_level=5))
    await harness.control(srv).CreateMatch(req, metadata=ADMIN)
    alice = harness.player(srv, "alice")
    view = await alice.view(req.match_id)
    await alice.submit(req.match_id, _first_move(view, srv, req.match_id), view.last_seq)
    return srv, req, alice, view


def _first_move(view: m.MatchView, srv: Any, mid: str) -> c.Move:
    """The engine's best play for the seat to move, from the server's own state (test only)."""
    rt = srv.manager.matches[mid]
    return engine_move(rt.state, view.to_move_seat)


async def test_stopping_the_workers_ends_a_move_being_thought_out_at_once(
    harness: Harness, tmp_path: Path
) -> None:
    """A server that stops while a bot thinks (up to its think time, 30 s at most) must not wait
    for the move: the worker ends at once, so the process can exit at once."""
    srv, *_ = await _bot_thinking(harness, tmp_path)
    [(worker, _)] = await _wait_started(tmp_path, 1)  # held: it would think for 60 s
    workers = srv.manager.bot_workers
    manager_thread = workers._pool._executor_manager_thread  # what the interpreter joins at exit
    workers.shutdown()
    async with asyncio.timeout(5):
        while _running(worker) or manager_thread.is_alive():
            await asyncio.sleep(0.05)


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
