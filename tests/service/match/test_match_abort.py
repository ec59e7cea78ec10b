"""MatchControlService.AbortMatch over real gRPC on loopback, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest
from grpc_helpers import refused
from match_harness import SERVICE_TOKEN, Harness, pass_move
from metric_samples import counted

from wordarena.services.common.errors import detail
from wordarena.services.match import metrics
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m

SVC = [("authorization", f"Bearer {SERVICE_TOKEN}")]


async def test_abort_a_match_nobody_played_in(harness: Harness) -> None:
    srv = await harness.start()
    control = harness.control(srv)
    # A clock and a bot to move first: both must stop with the abort.
    mid = await harness.create(srv, ruleset="wordtiles", players=("alice",), bots=(1,))
    alice = harness.player(srv, "alice")
    rt = srv.manager.matches[mid]
    assert rt.clocks is not None and rt.timer is not None
    aborted_before = counted(metrics.MATCHES_ABORTED)
    assert (await control.GetLoad(ctl.GetLoadRequest(), metadata=SVC)).load.active_matches == 1

    # A watcher (the seated player, streaming) is told clearly when the match goes away.
    stream = alice.stub.StreamMatch(m.StreamMatchRequest(match_id=mid, after_seq=0), metadata=alice.md)
    first = await stream.read()
    assert first.event.HasField("match_started")
    await asyncio.sleep(0)

    # Auth as for the other control RPCs: no token, a player token.
    err = await refused(control.AbortMatch(ctl.AbortMatchRequest(match_id=mid)))
    assert err.code() == grpc.StatusCode.UNAUTHENTICATED
    err = await refused(control.AbortMatch(ctl.AbortMatchRequest(match_id=mid), metadata=alice.md))
    assert err.code() == grpc.StatusCode.PERMISSION_DENIED
    err = await refused(control.AbortMatch(ctl.AbortMatchRequest(match_id=mid, reason="x" * 201),
                                            metadata=SVC))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT

    got = await control.AbortMatch(ctl.AbortMatchRequest(match_id=mid, reason="ticket cancelled"),
                                   metadata=SVC)
    assert got.match_id == mid and not got.already_aborted and got.reason == "ticket cancelled"
    assert got.abort_time.seconds > 0

    # The watcher's stream ends with FAILED_PRECONDITION MATCH_ABORTED (no MatchMoved).
    async def drain() -> grpc.aio.AioRpcError:
        with pytest.raises(grpc.aio.AioRpcError) as exc:
            while True:
                msg = await stream.read()
                assert msg is not grpc.aio.EOF, "the stream ended without a status"
                assert not msg.event.HasField("game_over")
        return exc.value

    err = await asyncio.wait_for(drain(), 10)
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert detail(err, e.RuleViolation).code == e.RULE_CODE_MATCH_ABORTED
    assert detail(err, e.MatchMoved) is None

    # Gone from memory, stored as aborted, no result for the lobby, no new matches counted.
    assert mid not in srv.manager.matches
    assert rt.timer is None or rt.timer.cancelled() or rt.timer.done()
    row = await srv.manager.store.get(mid)
    assert row is not None and row.status == "aborted" and row.ended_at is not None
    assert await srv.outbox.get(mid) is None
    assert counted(metrics.MATCHES_ABORTED) == aborted_before + 1
    assert (await control.GetLoad(ctl.GetLoadRequest(), metadata=SVC)).load.active_matches == 0
    # The bot and the clock stopped: their tasks have ended (waited for, not slept on), so
    # nothing can be appended after the abort.
    seq = row.last_seq
    for task in (rt.timer, rt.bot_task):
        if isinstance(task, asyncio.TimerHandle):  # a clock timer that has not fired
            assert task.cancelled()
        elif task is not None:
            await asyncio.wait([task], timeout=5)
            assert task.done()
    assert (await srv.manager.store.get(mid)).last_seq == seq  # type: ignore[union-attr]
    assert (await srv.manager.store.load(mid)).events[-1].kind == "aborted"  # type: ignore[union-attr]

    # Players get FAILED_PRECONDITION MATCH_ABORTED, and the match is not loaded back.
    err = await refused(alice.view(mid))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert detail(err, e.RuleViolation).code == e.RULE_CODE_MATCH_ABORTED
    err = await refused(alice.stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=alice.md).read())
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert mid not in srv.manager.matches

    # Idempotent: again OK, already_aborted, the first reason and time.
    again = await control.AbortMatch(ctl.AbortMatchRequest(match_id=mid, reason="other"), metadata=SVC)
    assert again.already_aborted and again.reason == "ticket cancelled"
    assert abs(again.abort_time.ToNanoseconds() - got.abort_time.ToNanoseconds()) < 1_000_000
    assert counted(metrics.MATCHES_ABORTED) == aborted_before + 1

    # Another server starting on the database does not take the aborted match over.
    await srv.stop(0.5)
    srv2 = await harness.start()
    assert mid not in srv2.manager.matches
    again = await harness.control(srv2).AbortMatch(ctl.AbortMatchRequest(match_id=mid), metadata=SVC)
    assert again.already_aborted


async def test_abort_unknown_started_and_finished_matches(harness: Harness) -> None:
    srv = await harness.start()
    control = harness.control(srv)
    err = await refused(control.AbortMatch(ctl.AbortMatchRequest(match_id=uuid.uuid4().hex), metadata=SVC))
    assert err.code() == grpc.StatusCode.NOT_FOUND
    err = await refused(control.AbortMatch(ctl.AbortMatchRequest(match_id=""), metadata=SVC))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT

    # A player has acted (here: a pass): the match is not aborted.
    mid = await harness.create(srv)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    await alice.submit(mid, pass_move(), 1)
    err = await refused(control.AbortMatch(ctl.AbortMatchRequest(match_id=mid), metadata=SVC))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert detail(err, e.RuleViolation).code == e.RULE_CODE_MATCH_STARTED
    assert (await bob.view(mid)).status == m.MATCH_STATUS_IN_PROGRESS

    # A finished match keeps its result: FAILED_PRECONDITION GAME_OVER, in memory or not.
    from wordarena.v1 import common_pb2 as c

    await bob.submit(mid, c.Move(resign=c.ResignMove()), (await bob.view(mid)).last_seq)
    assert (await bob.view(mid)).status == m.MATCH_STATUS_FINISHED
    err = await refused(control.AbortMatch(ctl.AbortMatchRequest(match_id=mid), metadata=SVC))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert detail(err, e.RuleViolation).code == e.RULE_CODE_GAME_OVER
    srv.manager.matches.pop(mid)
    err = await refused(control.AbortMatch(ctl.AbortMatchRequest(match_id=mid), metadata=SVC))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert (await srv.manager.store.get(mid)).status == "finished"  # type: ignore[union-attr]


async def test_abort_loads_a_match_this_server_does_not_hold(harness: Harness) -> None:
    """A match whose server stopped (lease released by the drain) is aborted by another one."""
    a = await harness.start()
    mid = await harness.create(a)
    await a.stop(0.5)
    b = await harness.start()
    await asyncio.sleep(0)
    b.manager.matches.pop(mid, None)  # as if b had not taken it over yet
    got = await harness.control(b).AbortMatch(ctl.AbortMatchRequest(match_id=mid, reason="r"), metadata=SVC)
    assert not got.already_aborted
    assert (await b.manager.store.get(mid)).status == "aborted"  # type: ignore[union-attr]
    assert mid not in b.manager.matches
