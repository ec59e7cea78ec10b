"""Quick-match tickets over real loopback gRPC (SQLite and PostgreSQL): cancelling a ticket while
its group is being allocated, and the deletion of old closed tickets by housekeeping (also while
the background loop's allocation waits for a slow match server)."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from lobby_harness import (
    FakeMatchServer,
    LobbyEnv,
    eventually,
    start_fake_match_server,
    start_lobby,
    stop_lobby,
)
from prometheus_client import REGISTRY
from sqlalchemy import update
from sqlmodel import select

from wordarena.services.common.errors import detail
from wordarena.services.lobby.models import MatchRow, MatchSeatRow, TicketRow
from wordarena.v1 import common_pb2, errors_pb2, lobby_pb2

# the store is what this proves: on SQLite and PostgreSQL (tests/conftest.py)
pytestmark = pytest.mark.database

Meta = tuple[tuple[str, str], ...]
CRIT = lobby_pb2.QuickMatchCriteria(ruleset=common_pb2.RulesetRef(ruleset_id="wordtiles"), seats=2)


def rid() -> str:
    return uuid.uuid4().hex


async def queue(env: LobbyEnv, meta: Meta) -> lobby_pb2.QuickMatchTicket:
    req = lobby_pb2.QuickMatchRequest(criteria=CRIT, request_id=rid())
    return (await env.stub.QuickMatch(req, metadata=meta)).ticket


async def get(env: LobbyEnv, meta: Meta, ticket_id: str) -> lobby_pb2.QuickMatchTicket:
    req = lobby_pb2.GetQuickMatchTicketRequest(ticket_id=ticket_id)
    return (await env.stub.GetQuickMatchTicket(req, metadata=meta)).ticket


async def cancel(env: LobbyEnv, meta: Meta, ticket_id: str) -> lobby_pb2.QuickMatchTicket:
    req = lobby_pb2.CancelQuickMatchTicketRequest(ticket_id=ticket_id)
    return (await env.stub.CancelQuickMatchTicket(req, metadata=meta)).ticket


async def row(env: LobbyEnv, ticket_id: str) -> TicketRow | None:
    return await env.lobby.db.run(lambda s: s.get(TicketRow, ticket_id))


def counter(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
async def lobby(database_url: str, tmp_path: Path) -> AsyncIterator[tuple[LobbyEnv, FakeMatchServer]]:
    """A lobby whose housekeeping runs every 0.1 s with a retention of one hour, and a fake match
    server registered with it that holds CreateMatch until the test lets it answer (a fake: a real
    match server cannot be held inside CreateMatch, which these races need)."""
    env = await start_lobby(database_url, tmp_path, housekeeping_s=0.1, ticket_retention_s=3600.0,
                            create_match_timeout_s=30.0)
    fake, server = await start_fake_match_server(env, hold=asyncio.Event())
    try:
        yield env, fake
    finally:
        if fake.hold is not None:
            fake.hold.set()
        await server.stop(0)
        await stop_lobby(env)


async def test_cancel_while_matching_seats_nobody_and_requeues_the_others(
    lobby: tuple[LobbyEnv, FakeMatchServer],
) -> None:
    env, fake = lobby
    assert fake.hold is not None
    _, ma = await env.guest()
    pb, mb = await env.guest()
    pc, mc = await env.guest()
    ta = await queue(env, ma)
    tb_task = asyncio.create_task(queue(env, mb))  # its matchmaking step waits for CreateMatch
    await asyncio.wait_for(fake.entered.wait(), 10.0)
    tb_id = (await eventually(lambda: env.lobby.db.run(
        lambda s: s.exec(select(TicketRow.id).where(TicketRow.id != ta.ticket_id)).first())))
    assert (await row(env, ta.ticket_id)).status == "matching"  # type: ignore[union-attr]
    withdrawn = counter("wordarena_allocations_total", result="withdrawn")

    # A cancels while the match for A and B is being created: accepted.
    got = await cancel(env, ma, ta.ticket_id)
    assert got.status == lobby_pb2.TICKET_STATUS_CANCELLED
    assert not got.HasField("assignment")
    # Cancelling it again returns it unchanged.
    assert (await cancel(env, ma, ta.ticket_id)).status == lobby_pb2.TICKET_STATUS_CANCELLED

    # The match server answers: the lobby must not commit the match.
    fake.hold.set()
    tb = await asyncio.wait_for(tb_task, 10.0)
    assert tb.ticket_id == tb_id
    await eventually(lambda: _status_is(env, tb_id, "queued"))
    assert counter("wordarena_allocations_total", result="withdrawn") == withdrawn + 1
    assert len(fake.created) == 1
    withdrawn_id = fake.created[0].match_id

    a_after = await get(env, ma, ta.ticket_id)
    assert a_after.status == lobby_pb2.TICKET_STATUS_CANCELLED and not a_after.HasField("assignment")
    b_after = await get(env, mb, tb_id)
    assert b_after.status == lobby_pb2.TICKET_STATUS_QUEUED
    assert b_after.create_time == tb.create_time  # its place in the queue is kept

    # Nothing of the withdrawn match counts: aborted, unrated, no seats, not active.
    def match_rows(s):  # type: ignore[no-untyped-def]
        m = s.get(MatchRow, withdrawn_id)
        seats = list(s.exec(select(MatchSeatRow).where(MatchSeatRow.match_id == withdrawn_id)))
        return m, seats

    m, seats = await env.lobby.db.run(match_rows)
    assert m is not None and not m.active and not m.rated
    assert m.reason == common_pb2.GAME_OVER_REASON_ABORTED
    assert seats == []
    loc = await env.stub.LocateMatch(lobby_pb2.LocateMatchRequest(match_id=withdrawn_id), metadata=ma)
    assert not loc.assignment.HasField("seat")
    # ... and the match server is told to abort it (service-authenticated, with a reason).
    await eventually(lambda: _true(withdrawn_id in fake.aborted))
    assert [c.match_id for c in fake.abort_calls] == [withdrawn_id]
    assert "withdrawn" in fake.abort_calls[0].reason

    # B, still queued first, is matched with the next player: B at seat 0.
    fake.entered.clear()
    fake.hold = None
    tc = await queue(env, mc)

    async def matched() -> lobby_pb2.QuickMatchTicket | None:
        t = await get(env, mb, tb_id)
        return t if t.status == lobby_pb2.TICKET_STATUS_MATCHED else None

    b_final = await eventually(matched)
    c_final = await get(env, mc, tc.ticket_id)
    assert c_final.status == lobby_pb2.TICKET_STATUS_MATCHED
    assert b_final.assignment.match_id == c_final.assignment.match_id != withdrawn_id
    assert (b_final.assignment.seat, c_final.assignment.seat) == (0, 1)
    assert [s.player.player_id for s in fake.created[-1].seats] == [pb, pc]
    # A's ticket never got matched.
    assert (await get(env, ma, ta.ticket_id)).status == lobby_pb2.TICKET_STATUS_CANCELLED


async def _true(value: bool) -> bool:
    return value


async def _withdraw_one(env: LobbyEnv, fake: FakeMatchServer) -> str:
    """Queue two players, cancel one while their match is being created; the withdrawn match id."""
    assert fake.hold is not None
    _, ma = await env.guest()
    _, mb = await env.guest()
    ta = await queue(env, ma)
    tb_task = asyncio.create_task(queue(env, mb))
    await asyncio.wait_for(fake.entered.wait(), 10.0)
    await cancel(env, ma, ta.ticket_id)
    fake.hold.set()
    await asyncio.wait_for(tb_task, 10.0)
    await eventually(lambda: _true(len(fake.created) == 1))
    return fake.created[0].match_id


async def test_withdrawn_match_is_aborted_with_retries_when_the_server_fails(
    database_url: str, tmp_path: Path
) -> None:
    """AbortMatch of a withdrawn allocation is retried while the match server fails (UNAVAILABLE),
    then succeeds; a refusal (NOT_FOUND: nothing to abort) is not retried. A fake: a real server
    cannot be made to fail AbortMatch with chosen codes (the real abort is in
    test_lobby_with_match_server.py)."""
    env = await start_lobby(database_url, tmp_path, create_match_timeout_s=30.0,
                            abort_retry_delays_s=(0.05, 0.05, 0.05))
    fake, server = await start_fake_match_server(env, hold=asyncio.Event())
    fake.abort_failures = [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED]
    try:
        retries = counter("wordarena_match_aborts_total", result="retry")
        aborted = counter("wordarena_match_aborts_total", result="aborted")
        mid = await _withdraw_one(env, fake)
        await eventually(lambda: _true(mid in fake.aborted))
        # the fake records the abort before it answers; the lobby counts it once the answer is in
        await eventually(lambda: _true(counter("wordarena_match_aborts_total", result="aborted") > aborted))
        assert [c.match_id for c in fake.abort_calls] == [mid] * 3
        assert counter("wordarena_match_aborts_total", result="retry") == retries + 2
        assert counter("wordarena_match_aborts_total", result="aborted") == aborted + 1

        # Bounded: a server that keeps failing is given up after the last retry.
        given_up = counter("wordarena_match_aborts_total", result="given_up")
        fake.abort_failures = [grpc.StatusCode.UNAVAILABLE] * 10
        fake.abort_calls.clear()
        assert not await env.lobby.allocator.abort_match(mid, "ms-1", fake.address, "test")
        assert len(fake.abort_calls) == 4  # the first attempt and three retries
        assert counter("wordarena_match_aborts_total", result="given_up") == given_up + 1

        # Refused (nothing to abort there): not retried.
        refused = counter("wordarena_match_aborts_total", result="refused")
        fake.abort_failures = []
        fake.abort_calls.clear()
        assert not await env.lobby.allocator.abort_match("m_unknown", "ms-1", fake.address, "test")
        assert len(fake.abort_calls) == 1
        assert counter("wordarena_match_aborts_total", result="refused") == refused + 1
    finally:
        fake.hold.set()  # type: ignore[union-attr]
        await server.stop(0)
        await stop_lobby(env)


async def _status_is(env: LobbyEnv, ticket_id: str, status: str) -> bool:
    r = await row(env, ticket_id)
    return r is not None and r.status == status


async def test_cancel_after_the_match_is_committed_is_refused_as_matched(
    lobby: tuple[LobbyEnv, FakeMatchServer],
) -> None:
    env, fake = lobby
    fake.hold = None
    _, ma = await env.guest()
    _, mb = await env.guest()
    ta = await queue(env, ma)
    await queue(env, mb)

    async def matched() -> lobby_pb2.QuickMatchTicket | None:
        t = await get(env, ma, ta.ticket_id)
        return t if t.status == lobby_pb2.TICKET_STATUS_MATCHED else None

    before = await eventually(matched)
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await cancel(env, ma, ta.ticket_id)
    assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "matched" in (ei.value.details() or "")
    v = detail(ei.value, errors_pb2.LobbyViolation)
    assert v is not None and v.code_name == "TICKET_CLOSED"
    after = await get(env, ma, ta.ticket_id)
    assert after == before  # unchanged: matched, same assignment


async def test_housekeeping_deletes_old_closed_tickets_only(
    lobby: tuple[LobbyEnv, FakeMatchServer],
) -> None:
    env, fake = lobby
    assert fake.hold is not None
    players = [await env.guest() for _ in range(7)]
    (_, m_queued), (_, m_cancel), (_, m_exp), (_, m1), (_, m2), (_, m3), (_, m4) = players
    # matched: 1 and 2
    t1 = await queue(env, m1)
    matching = asyncio.create_task(queue(env, m2))
    await asyncio.wait_for(fake.entered.wait(), 10.0)
    fake.hold.set()
    await asyncio.wait_for(matching, 10.0)
    await eventually(lambda: _status_is(env, t1.ticket_id, "matched"))
    # cancelled
    t_cancel = await queue(env, m_cancel)
    await cancel(env, m_cancel, t_cancel.ticket_id)
    # expired (waited past the 15-minute TTL: expired by the next matchmaking step)
    t_exp = await queue(env, m_exp)
    await env.lobby.db.run(lambda s: s.exec(update(TicketRow).where(TicketRow.id == t_exp.ticket_id)
                                            .values(created_at=TicketRow.created_at - 3600)))
    await eventually(lambda: _status_is(env, t_exp.ticket_id, "expired"))
    # matching: 3 and 4, held in CreateMatch
    fake.hold, fake.entered = asyncio.Event(), asyncio.Event()
    t3 = await queue(env, m3)
    in_flight = asyncio.create_task(queue(env, m4))
    await asyncio.wait_for(fake.entered.wait(), 10.0)
    assert (await row(env, t3.ticket_id)).status == "matching"  # type: ignore[union-attr]
    # queued: no partner, no bots
    t_queued = await queue(env, m_queued)

    ids = await env.lobby.db.run(lambda s: {r.id: r.status for r in s.exec(select(TicketRow))})
    assert sorted(ids.values()) == sorted(
        ["matched", "matched", "cancelled", "expired", "matching", "matching", "queued"]
    )
    closed = {tid for tid, st in ids.items() if st in ("matched", "cancelled", "expired")}
    deleted = counter("wordarena_tickets_deleted_total")
    # Everything changed two hours ago (retention: one hour); nothing changed since.
    await env.lobby.db.run(lambda s: s.exec(update(TicketRow).values(updated_at=TicketRow.updated_at - 7200)))

    async def gone() -> bool:
        left = await env.lobby.db.run(lambda s: set(s.exec(select(TicketRow.id))))
        return not (left & closed)

    await eventually(gone)
    left = await env.lobby.db.run(lambda s: {r.id: r.status for r in s.exec(select(TicketRow))})
    assert sorted(left.values()) == ["matching", "matching", "queued"]
    assert t_queued.ticket_id in left and t3.ticket_id in left
    assert counter("wordarena_tickets_deleted_total") == deleted + len(closed) == deleted + 4
    # A deleted ticket is unknown now; the queued one is untouched.
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await get(env, m_cancel, t_cancel.ticket_id)
    assert ei.value.code() == grpc.StatusCode.NOT_FOUND
    assert (await get(env, m_queued, t_queued.ticket_id)).status == lobby_pb2.TICKET_STATUS_QUEUED

    # The allocation in flight finishes normally; fresh closed tickets are kept.
    fake.hold.set()
    t4 = await asyncio.wait_for(in_flight, 10.0)
    await eventually(lambda: _status_is(env, t4.ticket_id, "matched"))
    # A housekeeping round (run here, not waited for) deletes none of the fresh closed tickets.
    assert await env.lobby.housekeep() == 0
    assert await _status_is(env, t3.ticket_id, "matched")


async def test_housekeeping_goes_on_while_the_background_loop_allocates(
    lobby: tuple[LobbyEnv, FakeMatchServer],
) -> None:
    """Tickets queued with no QuickMatch call to claim them: the lobby's background loop claims
    their group, and CreateMatch is held. The loop must not wait for that allocation: meanwhile
    housekeeping still deletes old closed tickets; once the match server answers, the group is
    matched."""
    env, fake = lobby
    assert fake.hold is not None
    now = time.time()
    (p1, m1), (p2, _) = await env.guest(), await env.guest()

    def ticket(tid: str, pid: str, status: str, updated_at: float) -> TicketRow:
        return TicketRow(id=tid, player_id=pid, ruleset_id="wordtiles", language="en", board_id="",
                         seats=2, status=status, created_at=updated_at, updated_at=updated_at)

    def insert(s, rows: list[TicketRow]) -> None:  # type: ignore[no-untyped-def]
        for r in rows:
            s.add(r)

    await env.lobby.db.run(insert, [ticket("q_bg_1", p1, "queued", now), ticket("q_bg_2", p2, "queued", now)])
    await asyncio.wait_for(fake.entered.wait(), 10.0)  # only the background loop can have claimed them
    assert await _status_is(env, "q_bg_1", "matching") and await _status_is(env, "q_bg_2", "matching")

    await env.lobby.db.run(insert, [ticket("q_old", "p_old", "cancelled", now - 7200)])
    await eventually(lambda: _missing(env, "q_old"))
    assert await _status_is(env, "q_bg_1", "matching") and await _status_is(env, "q_bg_2", "matching")

    fake.hold.set()
    await eventually(lambda: _status_is(env, "q_bg_2", "matched"))
    t1 = await get(env, m1, "q_bg_1")
    assert t1.status == lobby_pb2.TICKET_STATUS_MATCHED
    assert t1.assignment.match_id == fake.created[0].match_id and len(fake.created) == 1


async def _missing(env: LobbyEnv, ticket_id: str) -> bool:
    return await row(env, ticket_id) is None
