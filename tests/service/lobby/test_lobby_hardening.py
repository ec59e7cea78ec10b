"""The lobby's boundary holds against what a hostile or crashed client leaves behind: an
idempotency claim left pending by a lobby that died mid-request is taken over after its lease, and
a string carrying NUL or other control characters in any field of any request is INVALID_ARGUMENT
naming the field, never an error showing SQL, a stack or the schema (PostgreSQL refuses NUL in
text: that is where it used to leak)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from lobby_harness import LobbyEnv

from wordarena.services.common.errors import detail
from wordarena.services.lobby.api import requests
from wordarena.services.lobby.models import RequestRow
from wordarena.services.lobby.options import REQUEST_LEASE_S
from wordarena.v1 import common_pb2, control_pb2, lobby_pb2

# the store is what this proves: on SQLite and PostgreSQL (tests/conftest.py)
pytestmark = pytest.mark.database

LEAKS = ("sql", "select ", "insert ", "update ", "psycopg", "traceback", "lobby_", "exception", "nul",
         "0x00", "\x00", "file \"")


def _md(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def test_a_claim_left_pending_by_a_dead_lobby_is_taken_over_after_its_lease(env: LobbyEnv) -> None:
    pid, md = await env.guest()
    rid = uuid.uuid4().hex
    dead_at = time.time() - REQUEST_LEASE_S - 1

    def dead_handler(s: Any) -> None:  # claimed, then the process died before answering
        s.add(RequestRow(player_id=pid, method="CreateTable", request_id=rid, response=b"\x00",
                         created_at=dead_at))

    await env.lobby.db.run(dead_handler)
    settings = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic"), seats=2)
    request = lobby_pb2.CreateTableRequest(settings=settings, request_id=rid)
    first = await env.stub.CreateTable(request, metadata=md, timeout=5)
    again = await env.stub.CreateTable(request, metadata=md, timeout=5)
    assert again.table.table_id == first.table.table_id  # exactly once
    mine = await env.stub.ListTables(lobby_pb2.ListTablesRequest(), metadata=md)
    assert [t.table_id for t in mine.tables if t.host_player_id == pid] == [first.table.table_id]


async def test_a_claim_still_within_its_lease_is_not_taken_over(
    env: LobbyEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A repeat waits REQUEST_WAIT_S (10 s) for the first call's answer before ABORTED: 1 s here
    # (the claim is an hour from its lease's end either way).
    monkeypatch.setattr(requests, "REQUEST_WAIT_S", 1.0)
    pid, md = await env.guest()
    rid = uuid.uuid4().hex

    def live_handler(s: Any) -> None:  # another lobby is running it right now
        s.add(RequestRow(player_id=pid, method="CreateTable", request_id=rid, response=b"\x00",
                         created_at=time.time() + 3600))

    await env.lobby.db.run(live_handler)
    settings = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic"), seats=2)
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await env.stub.CreateTable(lobby_pb2.CreateTableRequest(settings=settings, request_id=rid),
                                   metadata=md, timeout=30)
    assert ei.value.code() == grpc.StatusCode.ABORTED


# -- NUL bytes in every string field ------------------------------------------------------------


def string_paths(msg: Message, prefix: str = "", depth: int = 0) -> Iterator[str]:
    """Dotted paths of every string field of ``msg`` (nested messages included; repeated message
    fields through their first element, when there is one)."""
    for f in msg.DESCRIPTOR.fields:
        path = f"{prefix}{f.name}"
        if f.type == FieldDescriptor.TYPE_STRING:
            yield path
        elif f.type == FieldDescriptor.TYPE_MESSAGE and depth < 4 and not f.message_type.full_name.startswith(
            "google.protobuf."
        ):
            if f.is_repeated:
                items = getattr(msg, f.name)
                if len(items):
                    yield from string_paths(items[0], f"{path}[0].", depth + 1)
            else:
                yield from string_paths(getattr(msg, f.name), f"{path}.", depth + 1)


def set_field(msg: Message, path: str, value: str) -> None:
    *parents, last = path.split(".")
    for p in parents:
        msg = getattr(msg, p[:-3])[0] if p.endswith("[0]") else getattr(msg, p)
    setattr(msg, last, value)


def cases(tid: str) -> list[tuple[str, Callable[[], Message], str]]:
    """(method, a valid request, who calls: guest / none / service)."""
    ruleset = common_pb2.RulesetRef(ruleset_id="classic", language="en", board_id="classic")
    settings = lobby_pb2.TableSettings(ruleset=ruleset, seats=2)
    rid = uuid.uuid4().hex
    seats = [control_pb2.SeatResult(seat=i, player_id=f"p{i}") for i in range(2)]
    return [
        ("SignInGuest", lambda: lobby_pb2.SignInGuestRequest(display_name="Someone"), "none"),
        ("SignIn", lambda: lobby_pb2.SignInRequest(name="someone", password="password1"), "none"),
        ("ClaimAccount", lambda: lobby_pb2.ClaimAccountRequest(name="Claimer", password="password1"),
         "guest"),
        ("CreateTable", lambda: lobby_pb2.CreateTableRequest(settings=settings, request_id=rid), "guest"),
        ("GetTable", lambda: lobby_pb2.GetTableRequest(table_id=tid, invite_code="x"), "guest"),
        ("ListTables", lambda: lobby_pb2.ListTablesRequest(
            filter=lobby_pb2.TableFilter(ruleset_id="classic", language="en"), page_token="a:1"), "guest"),
        ("WatchTables", lambda: lobby_pb2.WatchTablesRequest(
            filter=lobby_pb2.TableFilter(ruleset_id="classic", language="en")), "guest"),
        ("JoinTable", lambda: lobby_pb2.JoinTableRequest(table_id=tid, invite_code="x", request_id=rid),
         "guest"),
        ("LeaveTable", lambda: lobby_pb2.LeaveTableRequest(table_id=tid), "guest"),
        ("SitBot", lambda: lobby_pb2.SitBotRequest(table_id=tid, request_id=rid), "guest"),
        ("StartTable", lambda: lobby_pb2.StartTableRequest(table_id=tid, request_id=rid), "guest"),
        ("QuickMatch", lambda: lobby_pb2.QuickMatchRequest(
            criteria=lobby_pb2.QuickMatchCriteria(ruleset=ruleset), request_id=rid), "guest"),
        ("GetQuickMatchTicket", lambda: lobby_pb2.GetQuickMatchTicketRequest(ticket_id="t1"), "guest"),
        ("WatchQuickMatchTicket", lambda: lobby_pb2.WatchQuickMatchTicketRequest(ticket_id="t1"), "guest"),
        ("CancelQuickMatchTicket", lambda: lobby_pb2.CancelQuickMatchTicketRequest(ticket_id="t1"), "guest"),
        ("LocateMatch", lambda: lobby_pb2.LocateMatchRequest(match_id="m1"), "guest"),
        ("GetPlayerRecord", lambda: lobby_pb2.GetPlayerRecordRequest(player_id="p1", ruleset_id="classic"),
         "guest"),
        ("GetLeaderboard", lambda: lobby_pb2.GetLeaderboardRequest(ruleset_id="classic", page_token="a:1"),
         "guest"),
        ("ListMyMatches", lambda: lobby_pb2.ListMyMatchesRequest(page_token="a:1"), "guest"),
        ("DescribeRuleset", lambda: lobby_pb2.DescribeRulesetRequest(ruleset=ruleset), "none"),
        ("RegisterMatchServer", lambda: control_pb2.RegisterMatchServerRequest(
            server_id="ms-9", address="127.0.0.1:1", version="1"), "service"),
        ("Heartbeat", lambda: control_pb2.HeartbeatRequest(server_id="ms-9", address="127.0.0.1:1"),
         "service"),
        ("ReportMatchLocation", lambda: control_pb2.ReportMatchLocationRequest(
            match_id="m1", server_id="ms-9", address="127.0.0.1:1"), "service"),
        ("ReportResult", lambda: control_pb2.ReportResultRequest(
            match_id="m1", server_id="ms-9", ruleset=ruleset, seats=seats), "service"),
    ]


async def call_rpc(env: LobbyEnv, method: str, request: Message, md: Any) -> None:
    stub = env.registry if isinstance(request, tuple(
        getattr(control_pb2, n) for n in dir(control_pb2) if n.endswith("Request"))) else env.stub
    rpc = getattr(stub, method)
    if method.startswith("Watch"):
        call = rpc(request, metadata=md, timeout=5)
        async for _ in call:
            break
        call.cancel()
        return
    await rpc(request, metadata=md, timeout=5)


@pytest.mark.parametrize("bad", ["a\x00b", "\x00", "x\x01y", "line\nbreak", "x" * 1025])
async def test_control_characters_or_overlong_text_in_any_string_field_are_invalid_argument_naming_it(
    env: LobbyEnv, bad: str
) -> None:
    _, md = await env.guest()
    service_md = env.service_md
    table = await env.stub.CreateTable(lobby_pb2.CreateTableRequest(
        settings=lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic"), seats=2),
        request_id=uuid.uuid4().hex), metadata=md)
    tested = 0
    for method, make, who in cases(table.table.table_id):
        caller = {"none": (), "guest": md, "service": service_md}[who]
        for path in string_paths(make()):
            request = make()
            set_field(request, path, bad)
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                await call_rpc(env, method, request, caller)
            where = f"{method} {path}"
            assert ei.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (where, ei.value.details())
            text = (ei.value.details() or "").lower()
            assert not any(leak in text for leak in LEAKS), (where, text)
            br = detail(ei.value, error_details_pb2.BadRequest)
            assert br is not None and br.field_violations[0].field == path, (where, br)
            tested += 1
    assert tested >= 40


async def test_long_text_within_the_limit_in_any_field_is_a_refusal_never_an_internal_error(
    env: LobbyEnv,
) -> None:
    """Text longer than the columns that store it (64, 128 characters) but within the request
    limit: each field answers with a refusal a client can act on (or is accepted), never a
    database error."""
    _, md = await env.guest()
    table = await env.stub.CreateTable(lobby_pb2.CreateTableRequest(
        settings=lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic"), seats=2),
        request_id=uuid.uuid4().hex), metadata=md)
    wrong: list[str] = []
    for method, make, who in cases(table.table.table_id):
        caller = {"none": (), "guest": md, "service": env.service_md}[who]
        for path in string_paths(make()):
            request = make()
            set_field(request, path, "y" * 300)
            try:
                await call_rpc(env, method, request, caller)
            except grpc.aio.AioRpcError as exc:
                text = (exc.details() or "").lower()
                if exc.code() in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN) or any(
                    leak in text for leak in LEAKS
                ):
                    wrong.append(f"{method} {path}: {exc.code().name} {text[:80]}")
    assert not wrong, "\n".join(wrong)


async def test_an_unexpected_failure_answers_internal_without_its_text(
    env: LobbyEnv, monkeypatch: Any
) -> None:
    _, md = await env.guest()

    async def broken(player_id: str) -> None:
        raise RuntimeError('(psycopg.DataError) SELECT * FROM lobby_players WHERE id = %(id)s')

    monkeypatch.setattr(env.lobby.accounts, "player", broken)
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await env.stub.GetMe(lobby_pb2.GetMeRequest(), metadata=md)
    assert ei.value.code() == grpc.StatusCode.INTERNAL
    assert not any(leak in ei.value.details().lower() for leak in LEAKS), ei.value.details()
