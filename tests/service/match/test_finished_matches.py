"""Finished matches beyond ``MatchManager.FINISHED_KEPT`` leave the server's memory once nobody
follows them; a later call about one loads it again from the log and answers as before."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import grpc
import pytest
from match_harness import Harness, MatchServer, Player

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m

# the store is what this proves: on SQLite and PostgreSQL (tests/conftest.py)
pytestmark = pytest.mark.database


async def test_an_old_finished_match_is_forgotten_and_read_again_from_its_log(harness: Harness) -> None:
    srv = await harness.start()
    srv.manager.FINISHED_KEPT = 1  # type: ignore[misc]
    alice = harness.player(srv, "alice")
    first, second = await harness.create(srv), await harness.create(srv)
    views = {}
    for mid in (first, second):
        view = await alice.view(mid)
        await alice.stub.SubmitTurn(m.SubmitTurnRequest(
            match_id=mid, expected_seq=view.last_seq, request_id=uuid.uuid4().hex,
            move=c.Move(resign=c.ResignMove())), metadata=alice.md)
        views[mid] = await alice.view(mid)
        assert views[mid].status == m.MATCH_STATUS_FINISHED
    # The second match finished: the first, older than the one kept, is gone from memory...
    assert first not in srv.manager.matches and second in srv.manager.matches
    # ... and answers from its log as it did from memory.
    again = await alice.view(first)
    assert again == views[first]
    assert first in srv.manager.matches


async def _resign(alice: Player, mid: str) -> None:
    view = await alice.view(mid)
    await alice.stub.SubmitTurn(m.SubmitTurnRequest(
        match_id=mid, expected_seq=view.last_seq, request_id=uuid.uuid4().hex,
        move=c.Move(resign=c.ResignMove())), metadata=alice.md)


def _finished_in_memory(srv: MatchServer) -> set[str]:
    return {mid for mid, rt in srv.manager.matches.items() if rt.state.over}


async def test_finished_matches_read_from_their_logs_do_not_pile_up(harness: Harness) -> None:
    """Someone browsing old games (GetMatch of finished matches, each loaded from its log) must
    not make the server keep every one of them: at most ``FINISHED_KEPT`` stay in memory."""
    srv = await harness.start()
    srv.manager.FINISHED_KEPT = 2  # type: ignore[misc]
    alice = harness.player(srv, "alice")
    mids = [await harness.create(srv) for _ in range(5)]
    for mid in mids:
        await _resign(alice, mid)
    assert _finished_in_memory(srv) == set(mids[-2:])
    for mid in mids[:3]:  # read again from their logs
        assert (await alice.view(mid)).status == m.MATCH_STATUS_FINISHED
    assert _finished_in_memory(srv) == set(mids[1:3])


async def test_a_finished_match_in_use_leaves_memory_once_it_is_not(harness: Harness) -> None:
    """A finished match that a call is still using when newer ones finish stays (the call goes
    on); once it is done with, the match leaves memory at the next finish, however long it was
    in use."""
    srv = await harness.start()
    srv.manager.FINISHED_KEPT = 1  # type: ignore[misc]
    alice = harness.player(srv, "alice")
    used, *others = [await harness.create(srv) for _ in range(4)]
    await _resign(alice, used)
    async with srv.manager.matches[used].lock:  # as a call using it holds it
        await _resign(alice, others[0])
        await _resign(alice, others[1])
        assert used in srv.manager.matches
    await _resign(alice, others[2])
    assert _finished_in_memory(srv) == {others[2]}


async def test_asking_about_matches_leaves_nothing_behind(harness: Harness) -> None:
    """Every match id asked about (a real one loaded from its log, or none at all: NOT_FOUND)
    must not leave a trace in the server's memory, or a client asking about made-up ids grows
    it without bound."""
    srv = await harness.start()
    alice = harness.player(srv, "alice")
    real = await harness.create(srv)
    await _resign(alice, real)
    del srv.manager.matches[real]  # as if forgotten: the next call loads it from the log
    srv.manager.finished.clear()
    calls = [alice.stub.GetMatch(m.GetMatchRequest(match_id=f"no-such-{n}"), metadata=alice.md)
             for n in range(50)]
    calls.append(alice.stub.GetMatch(m.GetMatchRequest(match_id=real), metadata=alice.md))
    answers = await asyncio.gather(*calls, return_exceptions=True)
    assert all(isinstance(a, grpc.aio.AioRpcError) and a.code() == grpc.StatusCode.NOT_FOUND
               for a in answers[:-1])
    assert answers[-1].match.status == m.MATCH_STATUS_FINISHED
    assert len(srv.manager.loading) == 0


async def test_an_outsider_asking_about_a_private_match_does_not_make_the_server_load_it(
        harness: Harness) -> None:
    """A match without spectators that is not in memory is not read from its log for someone
    with no seat in it: refused (PERMISSION_DENIED NOT_YOUR_SEAT) from its row alone, so made-up
    interest in others' old games costs the server one row, not a replay."""
    srv = await harness.start()
    alice, mallory = harness.player(srv, "alice"), harness.player(srv, "mallory")
    mid = await harness.create(srv)
    await _resign(alice, mid)
    del srv.manager.matches[mid]  # as if forgotten
    srv.manager.finished.clear()
    for call in (mallory.stub.GetMatch(m.GetMatchRequest(match_id=mid), metadata=mallory.md),
                 _drain(mallory.stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=mallory.md))):
        try:
            await call
        except grpc.aio.AioRpcError as err:
            assert err.code() == grpc.StatusCode.PERMISSION_DENIED
        else:
            raise AssertionError("an outsider saw a private match")
    assert mid not in srv.manager.matches
    assert (await alice.view(mid)).status == m.MATCH_STATUS_FINISHED  # its players still may


async def _drain(call: Any) -> None:
    async for _ in call:
        pass
