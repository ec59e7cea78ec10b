"""Guest sign-ins that arrive together are committed together (``db.GroupCommit``), and a
ListTables page is built once per change of the table cache and shared by every caller who sees
it alike: neither changes what anyone is told."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest
from lobby_harness import LobbyEnv

from wordarena.services.common.errors import detail
from wordarena.services.lobby import store
from wordarena.v1 import common_pb2, errors_pb2, lobby_pb2

# the store is what this proves: on SQLite and PostgreSQL (tests/conftest.py)
pytestmark = pytest.mark.database


def _md(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def _sign_in(env: LobbyEnv, name: str) -> lobby_pb2.SignInGuestResponse | grpc.aio.AioRpcError:
    try:
        return await env.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name=name))
    except grpc.aio.AioRpcError as err:
        return err


async def test_guests_signing_in_at_once_are_all_stored_and_a_look_alike_name_is_taken_once(
        env: LobbyEnv) -> None:
    names = [f"g{uuid.uuid4().hex[:10]}" for _ in range(30)]
    # Two look-alikes ("Zoe0" / "ZOEO") race in the same burst as 30 distinct names.
    got = await asyncio.gather(*(_sign_in(env, n) for n in [*names, "Zoe0", "ZOEO"]))
    signed = [r for r in got if isinstance(r, lobby_pb2.SignInGuestResponse)]
    refused = [r for r in got if isinstance(r, grpc.aio.AioRpcError)]
    assert len(signed) == 31 and len(refused) == 1
    assert refused[0].code() == grpc.StatusCode.ALREADY_EXISTS
    v = detail(refused[0], errors_pb2.LobbyViolation)
    assert v is not None and v.code_name == "NAME_TAKEN"
    # Every answered sign-in is in the database (committed before its answer) and its token works.
    for r in signed:
        row = await env.lobby.db.run(store.get_player, r.player.player_id)  # type: ignore[attr-defined]
        assert row is not None and row.display_name == r.player.display_name
    me = await env.stub.GetMe(lobby_pb2.GetMeRequest(), metadata=_md(signed[-1].token.token))
    assert me.player.player_id == signed[-1].player.player_id


async def _list(env: LobbyEnv, who: lobby_pb2.SignInGuestResponse) -> dict[str, lobby_pb2.Table]:
    r = await env.stub.ListTables(lobby_pb2.ListTablesRequest(page_size=50), metadata=_md(who.token.token))
    return {t.table_id: t for t in r.tables}


async def _guest(env: LobbyEnv) -> lobby_pb2.SignInGuestResponse:
    return await env.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name=f"g{uuid.uuid4().hex[:8]}"))


async def _table(env: LobbyEnv, who: lobby_pb2.SignInGuestResponse, private: bool) -> lobby_pb2.Table:
    settings = lobby_pb2.TableSettings(
        ruleset=common_pb2.RulesetRef(ruleset_id="classic"), seats=2,
        visibility=lobby_pb2.VISIBILITY_PRIVATE if private else lobby_pb2.VISIBILITY_PUBLIC)
    req = lobby_pb2.CreateTableRequest(settings=settings, request_id=uuid.uuid4().hex)
    r = await env.stub.CreateTable(req, metadata=_md(who.token.token))
    return r.table


async def test_list_tables_shows_each_caller_its_own_tables_and_follows_every_change(env: LobbyEnv) -> None:
    host, other, third = await _guest(env), await _guest(env), await _guest(env)
    public = await _table(env, host, private=False)
    seats = [s.player.player_id for s in (await _list(env, other))[public.table_id].seats]
    assert seats == [host.player.player_id, ""]
    # A change (a join) shows at once in the page every caller seated nowhere shares.
    join = lobby_pb2.JoinTableRequest(table_id=public.table_id, request_id=uuid.uuid4().hex)
    await env.stub.JoinTable(join, metadata=_md(other.token.token))
    seats = [s.player.player_id for s in (await _list(env, third))[public.table_id].seats]
    assert seats == [host.player.player_id, other.player.player_id]
    # A private table is listed for its host only, with its invite code; for nobody else.
    hidden = await _table(env, third, private=True)
    assert hidden.invite_code
    assert (await _list(env, third))[hidden.table_id].invite_code == hidden.invite_code
    for who in (host, other, await _guest(env)):
        tables = await _list(env, who)
        assert hidden.table_id not in tables and all(not t.invite_code for t in tables.values())
