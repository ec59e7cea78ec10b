"""Two lobby processes' worth of servers on one PostgreSQL database behave as one lobby.

Each test starts two complete lobbies (their own gRPC server, database pool, table cache and
change listener) on one fresh PostgreSQL database, and a real match server on that database,
registered through the first one: allocations are checked where the players meet them, at the
match server. Clients are split across both.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from lobby_harness import (
    LobbyEnv,
    active_matches,
    backdate_sign_in_failures,
    eventually,
    start_lobby,
    start_real_match_server,
    stop_lobby,
    stop_real_match_server,
    view_at,
)
from sqlmodel import select

from wordarena.services.lobby.passwords import FailureThrottle
from wordarena.services.match.main import MatchServer
from wordarena.v1 import common_pb2, lobby_pb2

pytestmark = pytest.mark.postgres

Meta = tuple[tuple[str, str], ...]


def rid() -> str:
    return uuid.uuid4().hex


@pytest.fixture
async def lobbies(tmp_path: Path, postgres_database: str,
                  ) -> AsyncIterator[tuple[LobbyEnv, LobbyEnv, MatchServer]]:
    """Lobbies A and B on one PostgreSQL database (one data directory: the same token keys, as
    deployed lobbies share theirs) and a real match server on it, registered with A."""
    url = postgres_database
    a = await start_lobby(url, tmp_path)
    b = await start_lobby(url, tmp_path)
    srv = await start_real_match_server(a)
    try:
        yield a, b, srv
    finally:
        await stop_real_match_server(srv)
        await stop_lobby(b)
        await stop_lobby(a)


async def test_fifty_clients_through_two_lobbies_never_overfill(
    lobbies: tuple[LobbyEnv, LobbyEnv, MatchServer],
) -> None:
    a, b, srv = lobbies
    host_id, host = await a.guest()
    t = (
        await a.stub.CreateTable(
            lobby_pb2.CreateTableRequest(
                settings=lobby_pb2.TableSettings(
                    ruleset=common_pb2.RulesetRef(ruleset_id="wordtiles"), seats=4
                ),
                request_id=rid(),
            ),
            metadata=host,
        )
    ).table
    # 50 players, signed in on either lobby, each joining through the other half's lobby too
    envs = [a if i % 2 else b for i in range(50)]
    players = [(env, *(await env.guest())) for env in envs]

    async def join(env: LobbyEnv, meta: Meta) -> str:
        try:
            await env.stub.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=t.table_id, request_id=rid()), metadata=meta
            )
            return "ok"
        except grpc.aio.AioRpcError as exc:
            return exc.code().name

    results = await asyncio.gather(*(join(env, meta) for env, _, meta in players))
    assert results.count("ok") == 3, results
    assert set(results) == {"ok", "FAILED_PRECONDITION"}
    # full: started by itself, once (one match on the server), with the host and the three
    # winners, each of whom reaches it in the seat the table gave
    assert await active_matches(srv, a) == 1
    winners = [(pid, meta) for (_, pid, meta), r in zip(players, results, strict=True) if r == "ok"]
    got = (await a.stub.GetTable(lobby_pb2.GetTableRequest(table_id=t.table_id), metadata=host)).table
    for pid, meta in [(host_id, host), *winners]:
        view = await view_at(got.match.address, got.match.match_id, meta)
        assert {s.player.player_id for s in view.seats} == {host_id} | {p for p, _ in winners}
        assert view.seats[view.viewer_seat].player.player_id == pid
    seated = {s.player.player_id for s in view.seats}
    for env in (a, b):
        got = (await env.stub.GetTable(lobby_pb2.GetTableRequest(table_id=t.table_id), metadata=host)).table
        assert got.status == lobby_pb2.TABLE_STATUS_STARTED
        assert len(got.seats) == 4 and {s.player.player_id for s in got.seats} == seated


async def _next_change(stream: object, table_id: str) -> lobby_pb2.WatchTablesResponse:
    async def read() -> lobby_pb2.WatchTablesResponse:
        while True:
            msg = await stream.read()  # type: ignore[attr-defined]
            assert msg is not grpc.aio.EOF
            if msg.table.table_id == table_id:
                return msg

    return await asyncio.wait_for(read(), 10.0)


async def test_table_created_on_a_is_watched_on_b(
    lobbies: tuple[LobbyEnv, LobbyEnv, MatchServer],
) -> None:
    a, b, srv = lobbies
    _, watcher = await b.guest()
    stream = b.stub.WatchTables(lobby_pb2.WatchTablesRequest(), metadata=watcher)
    first = await asyncio.wait_for(stream.read(), 10.0)
    assert first.kind == lobby_pb2.TABLE_CHANGE_KIND_SYNCED
    _, host = await a.guest()
    t = (
        await a.stub.CreateTable(
            lobby_pb2.CreateTableRequest(
                settings=lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic")),
                request_id=rid(),
            ),
            metadata=host,
        )
    ).table
    opened = await _next_change(stream, t.table_id)
    assert opened.kind == lobby_pb2.TABLE_CHANGE_KIND_OPENED
    assert opened.table.status == lobby_pb2.TABLE_STATUS_OPEN
    # B lists it too, and a player joining through B fills it (started by itself): B's watcher
    # sees the table leave the open list
    listed = (await b.stub.ListTables(lobby_pb2.ListTablesRequest(), metadata=watcher)).tables
    assert t.table_id in {x.table_id for x in listed}
    _, joiner = await b.guest()
    await b.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id=t.table_id, request_id=rid()), metadata=joiner)
    gone = await _next_change(stream, t.table_id)
    while gone.kind == lobby_pb2.TABLE_CHANGE_KIND_UPDATED:
        gone = await _next_change(stream, t.table_id)
    assert gone.kind == lobby_pb2.TABLE_CHANGE_KIND_CLOSED  # no longer matches the OPEN filter
    assert await active_matches(srv, a) == 1
    # and A's cache hears of B's change: A lists it as started
    for _ in range(100):
        cached = a.lobby.tables.get(t.table_id)
        if cached is not None and cached.status.value == "started":
            break
        await asyncio.sleep(0.05)
    else:
        pytest.fail("lobby A never saw the table start")
    stream.cancel()


async def test_quick_match_tickets_on_both_lobbies_matched_once(
    lobbies: tuple[LobbyEnv, LobbyEnv, MatchServer],
) -> None:
    a, b, srv = lobbies
    crit = lobby_pb2.QuickMatchCriteria(ruleset=common_pb2.RulesetRef(ruleset_id="wordtiles"), seats=2)
    players = [(env, *(await env.guest())) for env in [a, b] * 15]

    async def enqueue(env: LobbyEnv, meta: Meta) -> str:
        req = lobby_pb2.QuickMatchRequest(criteria=crit, request_id=rid())
        r = await env.stub.QuickMatch(req, metadata=meta)
        return r.ticket.ticket_id

    tickets = await asyncio.gather(*(enqueue(env, meta) for env, _, meta in players))

    async def outcome(env: LobbyEnv, meta: Meta, ticket_id: str) -> lobby_pb2.QuickMatchTicket:
        # watched on the other lobby than the one it was queued on
        other = b if env is a else a
        stream = other.stub.WatchQuickMatchTicket(
            lobby_pb2.WatchQuickMatchTicketRequest(ticket_id=ticket_id), metadata=meta
        )
        return [m.ticket async for m in stream][-1]

    final = await asyncio.wait_for(
        asyncio.gather(
            *(outcome(env, meta, tid) for (env, _, meta), tid in zip(players, tickets, strict=True))
        ),
        30.0,
    )
    assert all(t.status == lobby_pb2.TICKET_STATUS_MATCHED for t in final)
    # 30 players, 15 matches on the server: every player in exactly one of them, at the seat
    # their ticket names, with the player their partner's ticket names opposite
    assert await active_matches(srv, a) == 15
    seen: dict[str, dict[int, str]] = {}
    for (_, pid, meta), t in zip(players, final, strict=True):
        view = await view_at(t.assignment.address, t.assignment.match_id, meta)
        assert view.ruleset.ruleset_id == "wordtiles" and view.viewer_seat == t.assignment.seat
        assert view.seats[t.assignment.seat].player.player_id == pid
        seen.setdefault(t.assignment.match_id, {})[t.assignment.seat] = pid
    assert len(seen) == 15 and all(sorted(s) == [0, 1] for s in seen.values())


async def test_one_request_id_sent_through_both_lobbies_at_once_runs_once(
    lobbies: tuple[LobbyEnv, LobbyEnv, MatchServer],
) -> None:
    """A client retrying the same CreateTable (same request_id) through two lobbies at the same
    moment gets one table and the same answer twice — never INTERNAL, never two tables."""
    a, b, _ = lobbies
    _, host = await a.guest()
    request = lobby_pb2.CreateTableRequest(
        settings=lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic"),
                                         seats=2),
        request_id=rid(),
    )
    answers = await asyncio.gather(*(
        env.stub.CreateTable(request, metadata=host) for env in (a, b, a, b)
    ))
    assert len({ans.table.table_id for ans in answers}) == 1
    listed = await b.stub.ListTables(lobby_pb2.ListTablesRequest(page_size=50), metadata=host)
    # A fresh database: the only table is the one the four identical requests made.
    assert [t.table_id for t in listed.tables] == [answers[0].table.table_id]


async def _a_backend_waits_for_a_row_lock(env: LobbyEnv) -> None:
    """Return once PostgreSQL shows a session of this database waiting on a lock (the event the
    test waits for, instead of sleeping and hoping the other side has got that far)."""
    from sqlalchemy import text

    def waiting(s: Any) -> int:
        return int(s.execute(text("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                  "AND wait_event_type = 'Lock'")).scalar_one())

    await eventually(lambda: env.lobby.db.run(waiting))


def _insert_tickets(s: object, rows: list[object]) -> None:
    for r in rows:
        s.add(r)  # type: ignore[attr-defined]


async def test_cancel_and_commit_of_a_group_are_ordered_by_row_locks(
    lobbies: tuple[LobbyEnv, LobbyEnv, MatchServer],
) -> None:
    """A cancel through lobby B and lobby A's commit of the same ticket's match: whichever holds the
    row lock first wins, the other sees the result — never a ticket both cancelled and matched."""
    import threading

    from sqlmodel import Session

    from wordarena.services.lobby import store
    from wordarena.services.lobby.models import TicketRow

    a, b, _ = lobbies
    claim = time.time()  # a fresh claim: not taken back by the lobbies' matchmaking steps
    queued_at = claim - 1.0

    def claimed(pid: str, tid: str) -> TicketRow:
        return TicketRow(id=tid, player_id=pid, ruleset_id="wordtiles", language="en", board_id="",
                         seats=2, status=store.MATCHING, claimed_at=claim, created_at=queued_at,
                         updated_at=claim)

    p1, m1 = await a.guest()
    p2, _ = await a.guest()
    await a.lobby.db.run(_insert_tickets, [claimed(p1, "q_one"), claimed(p2, "q_two")])

    # 1. The commit holds the locks first: the cancel waits for it, then is refused as matched.
    committed = threading.Event()
    locked = threading.Event()

    def commit_slowly() -> None:
        with Session(a.lobby.db.engine) as s:
            assert store.finish_group(s, ["q_one", "q_two"], claim, "m_x", "addr", claim + 1) is not None
            locked.set()
            committed.wait(10)
            s.commit()

    th = threading.Thread(target=commit_slowly)
    th.start()
    assert await asyncio.to_thread(locked.wait, 10)
    cancel = asyncio.ensure_future(b.stub.CancelQuickMatchTicket(
        lobby_pb2.CancelQuickMatchTicketRequest(ticket_id="q_one"), metadata=m1))
    await _a_backend_waits_for_a_row_lock(a)
    assert not cancel.done()  # waiting for the row lock
    committed.set()
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await cancel
    await asyncio.to_thread(th.join)
    assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "matched" in (ei.value.details() or "")

    # 2. The cancel holds the lock first: the commit waits for it, seats nobody, re-queues the other.
    p3, _ = await a.guest()
    p4, _ = await a.guest()
    await a.lobby.db.run(_insert_tickets, [claimed(p3, "q_three"), claimed(p4, "q_four")])
    locked.clear()
    committed.clear()

    def cancel_slowly() -> None:
        with Session(a.lobby.db.engine) as s:
            t = store.cancel_ticket(s, "q_four", p4, claim + 2)
            assert t is not None and t.status.value == "cancelled"
            locked.set()
            committed.wait(10)
            s.commit()

    th = threading.Thread(target=cancel_slowly)
    th.start()
    assert await asyncio.to_thread(locked.wait, 10)
    finish = asyncio.create_task(
        b.lobby.db.run(store.finish_group, ["q_three", "q_four"], claim, "m_y", "addr", claim + 3))
    await _a_backend_waits_for_a_row_lock(a)
    assert not finish.done()  # waiting for the row lock
    committed.set()
    assert await finish is None
    await asyncio.to_thread(th.join)
    rows = await a.lobby.db.run(
        lambda s: {r.id: (r.status, r.match_id, r.created_at) for r in s.exec(select(TicketRow))})
    assert rows["q_three"] == ("queued", "", queued_at)  # its place in the queue kept
    assert rows["q_four"] == ("cancelled", "", queued_at)
    assert rows["q_one"][:2] == rows["q_two"][:2] == ("matched", "m_x")


async def test_two_lobbies_delete_old_tickets_at_once(
    lobbies: tuple[LobbyEnv, LobbyEnv, MatchServer],
) -> None:
    from wordarena.services.lobby.models import TicketRow

    a, b, _ = lobbies

    def row(i: int, status: str, updated_at: float) -> TicketRow:
        return TicketRow(id=f"q_{i}", player_id=f"p_{i}", ruleset_id="wordtiles", language="en",
                         board_id="", seats=2, status=status, created_at=time.time(), updated_at=updated_at)

    old = [row(i, ("cancelled", "expired", "matched")[i % 3], 1.0) for i in range(2500)]
    kept = [row(3000, "queued", 1.0), row(3001, "matching", 1.0), row(3002, "matched", 1e12)]
    await a.lobby.db.run(_insert_tickets, old + kept)
    counts = await asyncio.gather(a.lobby.housekeep(), b.lobby.housekeep(), a.lobby.housekeep())
    assert sum(counts) == 2500
    left = await a.lobby.db.run(lambda s: sorted(s.exec(select(TicketRow.id))))
    assert left == ["q_3000", "q_3001", "q_3002"]


async def _wrong(env: LobbyEnv, name: str) -> grpc.StatusCode:
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await env.stub.SignIn(lobby_pb2.SignInRequest(name=name, password="wrong-password"))
    return ei.value.code()


async def test_sign_in_lockout_is_shared_by_both_lobbies_and_survives_a_restart(
        tmp_path: Path, postgres_database: str) -> None:
    """Failed sign-ins (from one address) on lobby A and lobby B add up: after 5 the backoff
    holds on both and after A restarts; once it has passed, the right password works on either
    lobby."""
    url = postgres_database
    # a backoff of five minutes from the first wait on (a restart must not outlast it)
    slow = FailureThrottle(base_s=300.0, max_s=300.0)
    a = await start_lobby(url, tmp_path, sign_in_throttle=slow)
    b = await start_lobby(url, tmp_path, sign_in_throttle=slow)
    try:
        _, meta = await a.guest()
        claimed = await a.stub.ClaimAccount(
            lobby_pb2.ClaimAccountRequest(name="Mallory", password="correct-horse"), metadata=meta
        )
        right = lobby_pb2.SignInRequest(name="mallory", password="correct-horse")
        # four failures at once, two through each lobby: all four count
        codes = await asyncio.gather(_wrong(a, "Mallory"), _wrong(b, "Mallory"),
                                     _wrong(a, "mallory"), _wrong(b, "MALLORY"))
        assert codes == [grpc.StatusCode.UNAUTHENTICATED] * 4
        assert await _wrong(b, "Mallory") == grpc.StatusCode.UNAUTHENTICATED  # the fifth
        # locked out on both lobbies, even with the right password
        for env in (a, b):
            assert await _wrong(env, "Mallory") == grpc.StatusCode.RESOURCE_EXHAUSTED
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                await env.stub.SignIn(right)
            assert ei.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert ei.value.details() == "too many failed sign-ins"
        # a restart of A (same database) forgets nothing
        await stop_lobby(a)
        a = await start_lobby(url, tmp_path, sign_in_throttle=slow)
        assert await _wrong(a, "Mallory") == grpc.StatusCode.RESOURCE_EXHAUSTED
        with pytest.raises(grpc.aio.AioRpcError) as ei:
            await a.stub.SignIn(right)
        assert ei.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        # after the window, the right password works on either lobby
        await backdate_sign_in_failures(a, 301.0)
        assert (await b.stub.SignIn(right)).player.player_id == claimed.player.player_id
        assert (await a.stub.SignIn(right)).player.player_id == claimed.player.player_id
        # and a success reset the count: four more failures do not lock the name out
        for env in (a, b, a, b):
            assert await _wrong(env, "Mallory") == grpc.StatusCode.UNAUTHENTICATED
        assert (await b.stub.SignIn(right)).player.player_id == claimed.player.player_id
    finally:
        await stop_lobby(b)
        await stop_lobby(a)


async def test_failures_recorded_by_two_lobbies_at_once_all_count(
    lobbies: tuple[LobbyEnv, LobbyEnv, MatchServer],
) -> None:
    """Many failures of one new name recorded at the same moment through both lobbies' pools
    (the first ones racing to create its row): none is lost."""
    from wordarena.services.lobby import store
    from wordarena.services.lobby.passwords import FailureThrottle

    a, b, _ = lobbies
    policy = FailureThrottle(limit=100, window_s=300.0)
    now = time.time()
    await asyncio.gather(*(
        env.lobby.db.run(store.add_sign_in_failure, "eve", now + i * 1e-3, policy)
        for i in range(24) for env in ((a, b)[i % 2],)
    ))
    failures = await b.lobby.db.run(store.sign_in_failures, "eve")
    assert failures == sorted(failures) and len(failures) == 24


async def test_parallel_guesses_through_both_lobbies_check_at_most_the_limit(
    lobbies: tuple[LobbyEnv, LobbyEnv, MatchServer],
) -> None:
    """Twenty wrong-password sign-ins at once for one name, half through each lobby: exactly five
    get their password checked (UNAUTHENTICATED), the other fifteen are refused unchecked
    (RESOURCE_EXHAUSTED), for a claimed name and an unknown one alike; then even the right
    password is refused. Each password check is slowed down (as real Argon2 is), so that every
    request has been let in before any check ends: the attempt is counted before the check."""
    a, b, _ = lobbies
    _, meta = await a.guest()
    await a.stub.ClaimAccount(
        lobby_pb2.ClaimAccountRequest(name="Trudy", password="correct-horse"), metadata=meta
    )
    checked: list[str] = []
    for env in (a, b):
        verify = env.lobby.passwords.verify

        def slow_verify(encoded: str | None, password: str, verify: Any = verify) -> bool:
            checked.append(password)
            time.sleep(0.2)
            return bool(verify(encoded, password))

        env.lobby.passwords.verify = slow_verify  # type: ignore[method-assign]

    names = ("Trudy", "trudy", "TRUDY", "Nobody-Here", "nobody-here")
    known = [_wrong((a, b)[i % 2], names[i % 3]) for i in range(20)]
    unknown = [_wrong((b, a)[i % 2], names[3 + i % 2]) for i in range(20)]
    codes = await asyncio.gather(*known, *unknown)
    for got in (codes[:20], codes[20:]):
        assert got.count(grpc.StatusCode.UNAUTHENTICATED) == 5
        assert got.count(grpc.StatusCode.RESOURCE_EXHAUSTED) == 15
    assert len(checked) == 10
    for env in (a, b):
        with pytest.raises(grpc.aio.AioRpcError) as ei:
            await env.stub.SignIn(lobby_pb2.SignInRequest(name="Trudy", password="correct-horse"))
        assert ei.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert len(checked) == 10
