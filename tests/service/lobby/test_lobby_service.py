"""The lobby over real loopback gRPC: guests, tables, allocation, results, records, bad input."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lobby_harness import (
    FakeMatchServer,
    LobbyEnv,
    backdate_sign_in_failures,
    backdate_ticket,
    eventually,
    view_at,
)

from wordarena.services.common import auth
from wordarena.services.common.errors import detail
from wordarena.services.match.main import MatchServer
from wordarena.v1 import common_pb2, control_pb2, errors_pb2, lobby_pb2
from wordarena.v1 import match_pb2 as m


def rid() -> str:
    return uuid.uuid4().hex


def md(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def settings_pb(ruleset: str = "classic", seats: int = 2, **kw: object) -> lobby_pb2.TableSettings:
    return lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id=ruleset), seats=seats, **kw)


async def expect(code: grpc.StatusCode, coro: object, lobby_code: str | None = None) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await coro  # type: ignore[misc]
    assert ei.value.code() == code, ei.value.details()
    if lobby_code is not None:
        v = detail(ei.value, errors_pb2.LobbyViolation)
        assert v is not None and v.code_name == lobby_code
    return ei.value


async def test_guest_names_and_tokens(env: LobbyEnv) -> None:
    pid, meta = await env.guest("Alice")
    me = await env.stub.GetMe(lobby_pb2.GetMeRequest(), metadata=meta)
    assert me.player.player_id == pid and me.player.guest
    await expect(
        grpc.StatusCode.ALREADY_EXISTS,
        env.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name="AL1CE")),
        "NAME_TAKEN",
    )
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        env.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name="x" * 300)),
        "NAME_INVALID",
    )
    await expect(grpc.StatusCode.UNAUTHENTICATED, env.stub.GetMe(lobby_pb2.GetMeRequest()))
    forged = auth.issue_token(auth.generate_key_pair(), pid, "Alice", 60)
    await expect(
        grpc.StatusCode.UNAUTHENTICATED, env.stub.GetMe(lobby_pb2.GetMeRequest(), metadata=md(forged))
    )
    # claim, then sign in from "another device"
    claimed = await env.stub.ClaimAccount(lobby_pb2.ClaimAccountRequest(password="hunter22!"), metadata=meta)
    assert not claimed.player.guest
    meta = md(claimed.token.token)  # the guest token is revoked by the claim
    await expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        env.stub.ClaimAccount(lobby_pb2.ClaimAccountRequest(password="hunter22!"), metadata=meta),
        "ALREADY_CLAIMED",
    )
    again = await env.stub.SignIn(lobby_pb2.SignInRequest(name="alice", password="hunter22!"))
    assert again.player.player_id == pid
    await expect(
        grpc.StatusCode.UNAUTHENTICATED,
        env.stub.SignIn(lobby_pb2.SignInRequest(name="alice", password="wrong-password")),
    )
    refreshed = await env.stub.RefreshToken(lobby_pb2.RefreshTokenRequest(), metadata=meta)
    assert auth.verify_token(env.lobby.keys.verifying, refreshed.token.token).player_id == pid


async def test_failed_sign_ins_hold_the_name_back_for_the_backoff(env: LobbyEnv) -> None:
    from sqlmodel import select

    from wordarena.services.lobby.models import SignInFailureRow

    _, meta = await env.guest("Sam")
    await env.stub.ClaimAccount(lobby_pb2.ClaimAccountRequest(password="correct-horse"), metadata=meta)
    for _ in range(5):
        await expect(
            grpc.StatusCode.UNAUTHENTICATED,
            env.stub.SignIn(lobby_pb2.SignInRequest(name="sam", password="wrong-password")),
        )
    # held back (from this address): even the right password is refused, with the time to wait
    for name, password in (("Sam", "correct-horse"), ("SAM", "wrong-password")):
        err = await expect(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            env.stub.SignIn(lobby_pb2.SignInRequest(name=name, password=password)),
        )
        assert err.details() == "too many failed sign-ins"
        info = detail(err, error_details_pb2.RetryInfo)
        assert info is not None and 0.5 < info.retry_delay.ToNanoseconds() / 1e9 <= 1.0
    # later: another name is not affected (an unknown one fails as usual) ...
    await backdate_sign_in_failures(env, 301.0)
    await expect(
        grpc.StatusCode.UNAUTHENTICATED,
        env.stub.SignIn(lobby_pb2.SignInRequest(name="nobody", password="wrong-password")),
    )
    # ... and the backoff has passed: the right password works, and Sam's failures are forgotten
    ok = await env.stub.SignIn(lobby_pb2.SignInRequest(name="Sam", password="correct-horse"))
    assert ok.player.display_name == "Sam"
    keys = await env.lobby.db.run(lambda s: list(s.exec(select(SignInFailureRow.key))))
    assert len(keys) == 1  # only the unknown name's row is left
    # housekeeping deletes it once its failures are out of the window
    assert await env.lobby.housekeep() == 0
    assert len(await env.lobby.db.run(lambda s: list(s.exec(select(SignInFailureRow.key))))) == 1
    await backdate_sign_in_failures(env, 3601.0)
    await env.lobby.housekeep()
    assert await env.lobby.db.run(lambda s: list(s.exec(select(SignInFailureRow.key)))) == []


async def test_fifty_clients_race_for_seats(env: LobbyEnv, real_match_server: MatchServer) -> None:
    host_id, host = await env.guest()
    t = (
        await env.stub.CreateTable(
            lobby_pb2.CreateTableRequest(
                settings=settings_pb("wordtiles", 4, start_policy=lobby_pb2.START_POLICY_HOST),
                request_id=rid(),
            ),
            metadata=host,
        )
    ).table
    players = [await env.guest() for _ in range(50)]

    async def join(meta: tuple[tuple[str, str], ...]) -> str:
        try:
            await env.stub.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=t.table_id, request_id=rid()), metadata=meta
            )
            return "ok"
        except grpc.aio.AioRpcError as exc:
            return exc.code().name

    results = await asyncio.gather(*(join(m) for _, m in players))
    seated = [p for p, r in zip(players, results, strict=True) if r == "ok"]
    assert results.count("ok") == 3
    assert set(results) == {"ok", "FAILED_PRECONDITION"}
    got = (await env.stub.GetTable(lobby_pb2.GetTableRequest(table_id=t.table_id), metadata=host)).table
    assert sum(1 for s in got.seats if s.HasField("player")) == 4
    started = await env.stub.StartTable(
        lobby_pb2.StartTableRequest(table_id=t.table_id, request_id=rid()), metadata=host
    )
    assert started.assignment.seat == 0
    # Every seated player reaches the one match on the real server, in its seat, with the
    # table's ten-minute clock.
    table_seats = [s.player.player_id for s in got.seats]
    assert table_seats[0] == host_id
    for pid, meta in [(host_id, host), *seated]:
        view = await view_at(started.assignment.address, started.assignment.match_id, meta)
        assert view.ruleset.ruleset_id == "wordtiles" and view.viewer_seat == table_seats.index(pid)
        assert [s.player.player_id for s in view.seats] == table_seats
        assert view.options.clock.per_player.seconds == 600


async def test_host_leaves_hand_over_and_bots(env: LobbyEnv, real_match_server: MatchServer) -> None:
    _a, ma = await env.guest()
    b, mb = await env.guest()
    t = (
        await env.stub.CreateTable(
            lobby_pb2.CreateTableRequest(settings=settings_pb("scrabble", 3), request_id=rid()), metadata=ma
        )
    ).table
    await env.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id=t.table_id, request_id=rid()), metadata=mb)
    left = await env.stub.LeaveTable(lobby_pb2.LeaveTableRequest(table_id=t.table_id), metadata=ma)
    assert left.table.host_player_id == b
    await expect(
        grpc.StatusCode.PERMISSION_DENIED,
        env.stub.SitBot(lobby_pb2.SitBotRequest(table_id=t.table_id, request_id=rid()), metadata=ma),
        "NOT_HOST",
    )
    await env.stub.SitBot(
        lobby_pb2.SitBotRequest(table_id=t.table_id, bot_level=2, request_id=rid()), metadata=mb
    )
    started = await env.stub.StartTable(
        lobby_pb2.StartTableRequest(table_id=t.table_id, request_id=rid()), metadata=mb
    )
    assert started.table.status == lobby_pb2.TABLE_STATUS_STARTED
    # On the real server: the bot sits first and plays Scrabble, then it is b's turn.
    where = started.assignment
    view = await view_at(where.address, where.match_id, mb)
    assert view.ruleset.ruleset_id == "scrabble"
    assert [(s.player.bot, s.player.bot_level, s.player.player_id if not s.player.bot else "")
            for s in view.seats] == [(True, 2, ""), (False, 0, b)]

    async def bot_moved() -> m.MatchView | None:
        v = await view_at(where.address, where.match_id, mb)
        return v if v.to_move_seat == where.seat == 1 and v.turn_number >= 1 else None

    await eventually(bot_moved)


async def test_stale_or_refusing_servers_get_nothing(env: LobbyEnv, match_server: FakeMatchServer) -> None:
    # The fake: a real match server cannot be made to refuse CreateMatch with RESOURCE_EXHAUSTED
    # on demand, nor asserted to have been asked nothing.
    _, ma = await env.guest()
    _, mb = await env.guest()
    s = settings_pb("classic", start_policy=lobby_pb2.START_POLICY_HOST)
    t = (
        await env.stub.CreateTable(lobby_pb2.CreateTableRequest(settings=s, request_id=rid()), metadata=ma)
    ).table
    await env.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id=t.table_id, request_id=rid()), metadata=mb)
    match_server.refuse = grpc.StatusCode.RESOURCE_EXHAUSTED
    await expect(
        grpc.StatusCode.UNAVAILABLE,
        env.stub.StartTable(lobby_pb2.StartTableRequest(table_id=t.table_id, request_id=rid()), metadata=ma),
        "NO_CAPACITY",
    )
    match_server.refuse = None
    env.lobby.opt.server_ttl_s = 0.0  # every server is now stale
    await asyncio.sleep(0.01)
    await expect(
        grpc.StatusCode.UNAVAILABLE,
        env.stub.StartTable(lobby_pb2.StartTableRequest(table_id=t.table_id, request_id=rid()), metadata=ma),
        "NO_CAPACITY",
    )
    assert match_server.created == []
    env.lobby.opt.server_ttl_s = 15.0
    await env.registry.Heartbeat(
        control_pb2.HeartbeatRequest(server_id="ms-1", load=control_pb2.ServerLoad(capacity=5)),
        metadata=env.service_md,
    )
    ok = await env.stub.StartTable(
        lobby_pb2.StartTableRequest(table_id=t.table_id, request_id=rid()), metadata=ma
    )
    assert ok.assignment.address == match_server.address
    await expect(
        grpc.StatusCode.NOT_FOUND,
        env.registry.Heartbeat(control_pb2.HeartbeatRequest(server_id="nope"), metadata=env.service_md),
    )


async def test_quick_match(env: LobbyEnv, real_match_server: MatchServer) -> None:
    _, ma = await env.guest()
    _, mb = await env.guest()
    crit = lobby_pb2.QuickMatchCriteria(ruleset=common_pb2.RulesetRef(ruleset_id="wordtiles"), seats=2)
    ta = (
        await env.stub.QuickMatch(lobby_pb2.QuickMatchRequest(criteria=crit, request_id=rid()), metadata=ma)
    ).ticket
    assert ta.status == lobby_pb2.TICKET_STATUS_QUEUED
    await expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        env.stub.QuickMatch(lobby_pb2.QuickMatchRequest(criteria=crit, request_id=rid()), metadata=ma),
        "ALREADY_QUEUED",
    )
    stream = env.stub.WatchQuickMatchTicket(
        lobby_pb2.WatchQuickMatchTicketRequest(ticket_id=ta.ticket_id), metadata=ma
    )
    tb = (
        await env.stub.QuickMatch(lobby_pb2.QuickMatchRequest(criteria=crit, request_id=rid()), metadata=mb)
    ).ticket
    states = [m.ticket async for m in stream]
    assert states[-1].status == lobby_pb2.TICKET_STATUS_MATCHED
    got_b = (
        await env.stub.GetQuickMatchTicket(
            lobby_pb2.GetQuickMatchTicketRequest(ticket_id=tb.ticket_id), metadata=mb
        )
    ).ticket
    assert got_b.assignment.match_id == states[-1].assignment.match_id
    assert {states[-1].assignment.seat, got_b.assignment.seat} == {0, 1}
    await expect(
        grpc.StatusCode.NOT_FOUND,
        env.stub.GetQuickMatchTicket(
            lobby_pb2.GetQuickMatchTicketRequest(ticket_id=tb.ticket_id), metadata=ma
        ),
    )
    # bot offered after the caller's wait (5 s minimum; shortened here through the queue)
    _, mc = await env.guest()
    crit_bot = lobby_pb2.QuickMatchCriteria(
        ruleset=common_pb2.RulesetRef(ruleset_id="classic"),
        bot_after=duration_pb2.Duration(seconds=5),
        bot_level=4,
    )
    tc = (
        await env.stub.QuickMatch(
            lobby_pb2.QuickMatchRequest(criteria=crit_bot, request_id=rid()), metadata=mc
        )
    ).ticket
    await backdate_ticket(env, tc.ticket_id, 10)
    stream = env.stub.WatchQuickMatchTicket(
        lobby_pb2.WatchQuickMatchTicketRequest(ticket_id=tc.ticket_id), metadata=mc
    )
    last = [m.ticket async for m in stream][-1]
    assert last.status == lobby_pb2.TICKET_STATUS_MATCHED
    view = await view_at(last.assignment.address, last.assignment.match_id, mc)
    assert [(s.player.bot, s.player.bot_level) for s in view.seats] == [(False, 0), (True, 4)]
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        env.stub.QuickMatch(
            lobby_pb2.QuickMatchRequest(
                criteria=lobby_pb2.QuickMatchCriteria(
                    ruleset=common_pb2.RulesetRef(ruleset_id="classic"),
                    bot_after=duration_pb2.Duration(seconds=1),
                ),
                request_id=rid(),
            ),
            metadata=mc,
        ),
    )


async def test_bad_input_is_precise(env: LobbyEnv) -> None:
    _, ma = await env.guest()
    await expect(
        grpc.StatusCode.NOT_FOUND,
        env.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id="nope", request_id=rid()), metadata=ma),
    )
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        env.stub.CreateTable(
            lobby_pb2.CreateTableRequest(settings=settings_pb("classic", 3), request_id=rid()), metadata=ma
        ),
        "SETTINGS_INVALID",
    )
    clock = common_pb2.MatchOptions(
        clock=common_pb2.ClockSettings(per_player=duration_pb2.Duration(seconds=60 * 60))
    )
    err = await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        env.stub.CreateTable(
            lobby_pb2.CreateTableRequest(
                settings=settings_pb("wordtiles", 2, options=clock), request_id=rid()
            ),
            metadata=ma,
        ),
        "SETTINGS_INVALID",
    )
    assert detail(err, errors_pb2.LobbyViolation).field == "settings.options.clock.per_player"
    await expect(
        grpc.StatusCode.NOT_FOUND,
        env.stub.CreateTable(
            lobby_pb2.CreateTableRequest(settings=settings_pb("chess"), request_id=rid()), metadata=ma
        ),
    )
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        env.stub.CreateTable(
            lobby_pb2.CreateTableRequest(settings=settings_pb(), request_id=""), metadata=ma
        ),
    )
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        env.stub.ListTables(lobby_pb2.ListTablesRequest(page_token="garbage"), metadata=ma),
    )
    listed = await env.stub.ListTables(lobby_pb2.ListTablesRequest(), metadata=ma)
    assert listed.tables == []
    rs = await env.stub.ListRulesets(lobby_pb2.ListRulesetsRequest())
    assert {r.ruleset_id for r in rs.rulesets} == {"classic", "wordtiles", "scrabble", "warofwords"}
    d = await env.stub.DescribeRuleset(
        lobby_pb2.DescribeRulesetRequest(ruleset=common_pb2.RulesetRef(ruleset_id="wordtiles"))
    )
    assert d.ruleset.clock_min.seconds == 180 and d.ruleset.clock_max.seconds == 1200


_text = st.text(max_size=80)
_ints = st.integers(min_value=-(2**31), max_value=2**31 - 1)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    ruleset=st.sampled_from(["classic", "wordtiles", "warofwords", "scrabble", "", "x" * 100]),
    language=st.sampled_from(["", "en", "pl", "xx", "EN"]),
    seats=_ints,
    clock=st.integers(min_value=0, max_value=10**7),
    bots=st.lists(st.tuples(_ints, _ints), max_size=5),
    table_id=_text,
    page=st.integers(min_value=-5, max_value=500),
)
async def test_random_requests_never_internal(
    env: LobbyEnv, ruleset: str, language: str, seats: int, clock: int, bots: list, table_id: str, page: int
) -> None:
    if not hasattr(env, "_meta"):
        env._meta = (await env.guest())[1]  # type: ignore[attr-defined]
    meta = env._meta  # type: ignore[attr-defined]
    before = len(env.lobby.tables)
    s = lobby_pb2.TableSettings(
        ruleset=common_pb2.RulesetRef(ruleset_id=ruleset, language=language),
        seats=seats,
        options=common_pb2.MatchOptions(
            clock=common_pb2.ClockSettings(per_player=duration_pb2.Duration(seconds=clock))
        ),
        bots=[lobby_pb2.BotSeat(seat=a, bot_level=b) for a, b in bots],
        start_policy=lobby_pb2.START_POLICY_HOST,
    )
    calls = [
        env.stub.CreateTable(lobby_pb2.CreateTableRequest(settings=s, request_id=rid()), metadata=meta),
        env.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id=table_id, request_id=rid()), metadata=meta),
        env.stub.GetTable(lobby_pb2.GetTableRequest(table_id=table_id), metadata=meta),
        env.stub.ListTables(lobby_pb2.ListTablesRequest(page_size=page, page_token=table_id), metadata=meta),
        env.stub.GetLeaderboard(
            lobby_pb2.GetLeaderboardRequest(ruleset_id=ruleset, page_size=page), metadata=meta
        ),
        env.stub.LocateMatch(lobby_pb2.LocateMatchRequest(match_id=table_id), metadata=meta),
        env.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name=table_id)),
    ]
    created = 0
    for c in calls:
        try:
            r = await c
            created += isinstance(r, lobby_pb2.CreateTableResponse)
        except grpc.aio.AioRpcError as exc:
            assert exc.code() not in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN), exc.details()
    assert len(env.lobby.tables) == before + created
