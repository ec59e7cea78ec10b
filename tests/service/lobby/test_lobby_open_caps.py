"""No flood hides the lobby (issue 38, finding 4): one guest opened 300 tables in 9 s and 150
tournaments in 2 s, and ListTournaments (at most 100, newest first, no paging) lost the real
events. Each account may hold a few open tables and unfinished tournaments, the guests of one
address a few more together; every list pages; real events come first."""

from __future__ import annotations

import uuid
from pathlib import Path

import grpc
import pytest
from lobby_harness import LobbyEnv, start_lobby, stop_lobby
from tournament_harness import CLASSIC, bad_field, create, guest, refused, stub

from wordarena.services.common.errors import detail
from wordarena.v1 import errors_pb2, lobby_pb2
from wordarena.v1 import tournament_pb2 as tp

Metadata = list[tuple[str, str]]


def _rid() -> str:
    return uuid.uuid4().hex


async def _table(env: LobbyEnv, md: Metadata) -> str:
    req = lobby_pb2.CreateTableRequest(settings=CLASSIC, request_id=_rid())
    got = await env.stub.CreateTable(req, metadata=md)
    return str(got.table.table_id)


async def _too_many(call: object) -> str:
    """The message of a TOO_MANY_OPEN refusal (RESOURCE_EXHAUSTED with its LobbyViolation)."""
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call  # type: ignore[misc]
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, err.value
    v = detail(err.value, errors_pb2.LobbyViolation)
    assert v is not None and v.code == errors_pb2.LOBBY_CODE_TOO_MANY_OPEN, v
    return str(err.value.details())


async def test_a_player_holds_at_most_five_open_tables(env: LobbyEnv) -> None:
    _, md = await guest(env, "Flood")
    tables = [await _table(env, md) for _ in range(5)]
    assert "5 tables open" in await _too_many(
        env.stub.CreateTable(lobby_pb2.CreateTableRequest(settings=CLASSIC, request_id=_rid()),
                             metadata=md))
    _, omd = await guest(env, "Other")
    theirs = await _table(env, omd)
    join = lobby_pb2.JoinTableRequest(table_id=theirs, request_id=_rid())
    await _too_many(env.stub.JoinTable(join, metadata=md))
    # the refused calls changed nothing; leaving a table frees its place
    listed = await env.stub.ListTables(lobby_pb2.ListTablesRequest(), metadata=md)
    assert sum(1 for t in listed.tables if t.table_id in tables) == 5 and len(listed.tables) == 6
    await env.stub.LeaveTable(lobby_pb2.LeaveTableRequest(table_id=tables[0]), metadata=md)
    await env.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id=theirs, request_id=_rid()), metadata=md)


async def test_a_player_creates_at_most_five_unfinished_tournaments(env: LobbyEnv) -> None:
    _, md = await guest(env, "Spammer")
    ids = [await create(env, md, rounds=1) for _ in range(5)]
    assert "5 tournaments open" in await _too_many(stub(env).CreateTournament(
        tp.CreateTournamentRequest(settings=tp.TournamentSettings(name="x", game=CLASSIC, rounds=1)),
        metadata=md))
    await stub(env).EndTournament(tp.EndTournamentRequest(tournament_id=ids[0]), metadata=md)
    await create(env, md, rounds=1)


async def test_the_guests_of_one_address_share_a_cap(database_url: str, tmp_path: Path) -> None:
    """Guests are free: many from one address count together. A claimed account is a person and
    only has its own cap."""
    env = await start_lobby(database_url, tmp_path, max_open_tables_per_guest_address=4,
                            max_open_tournaments_per_guest_address=3)
    try:
        for n in range(2):
            _, md = await guest(env, f"Sock{n}")
            for _ in range(2):
                await _table(env, md)
        _, fresh = await guest(env, "Sock9")
        assert "your address" in await _too_many(
            env.stub.CreateTable(lobby_pb2.CreateTableRequest(settings=CLASSIC, request_id=_rid()),
                                 metadata=fresh))
        for _ in range(3):
            await create(env, fresh, rounds=1)
        _, fresher = await guest(env, "Sock10")
        await _too_many(stub(env).CreateTournament(
            tp.CreateTournamentRequest(settings=tp.TournamentSettings(name="x", game=CLASSIC, rounds=1)),
            metadata=fresher))
        claimed = await env.stub.ClaimAccount(
            lobby_pb2.ClaimAccountRequest(name="RealPerson", password="password1"), metadata=fresher)
        person = [("authorization", f"Bearer {claimed.token.token}")]
        await _table(env, person)
        await create(env, person, rounds=1)
    finally:
        await stop_lobby(env)


async def test_tournaments_list_real_events_first_and_page(database_url: str, tmp_path: Path) -> None:
    env = await start_lobby(database_url, tmp_path, max_open_tournaments=50,
                            max_open_tournaments_per_guest_address=100)
    try:
        ts = stub(env)
        _, dmd = await guest(env, "Director")
        running = await create(env, dmd, rounds=1, name="Running")
        for level in (1, 2):
            await ts.AddEntrant(tp.AddEntrantRequest(tournament_id=running, bot_level=level), metadata=dmd)
        await ts.StartTournament(tp.StartTournamentRequest(tournament_id=running), metadata=dmd)
        club = await create(env, dmd, rounds=1, name="Club")
        for n in range(3):
            _, pmd = await guest(env, f"Player{n}")
            await ts.Register(tp.RegisterRequest(tournament_id=club), metadata=pmd)
        _, smd = await guest(env, "Spammer")
        spam = [await create(env, smd, rounds=1, name=f"Spam {n}") for n in range(5)]
        first = await ts.ListTournaments(tp.ListTournamentsRequest(page_size=2), metadata=dmd)
        assert [t.tournament_id for t in first.tournaments] == [running, club]
        seen, token = [], first.next_page_token
        while token:
            page = await ts.ListTournaments(tp.ListTournamentsRequest(page_size=2, page_token=token),
                                            metadata=dmd)
            seen += [t.tournament_id for t in page.tournaments]
            token = page.next_page_token
        assert seen == spam[::-1]  # the empty ones, newest first, each once
        code, _ = await refused(ts.ListTournaments(
            tp.ListTournamentsRequest(status=tp.TOURNAMENT_STATUS_REGISTRATION,
                                      page_token=first.next_page_token), metadata=dmd))
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert await bad_field(ts.ListTournaments(
            tp.ListTournamentsRequest(page_token="nonsense"), metadata=dmd)) == "page_token"
    finally:
        await stop_lobby(env)
