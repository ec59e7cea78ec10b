"""More of lobby.proto's promises: the rest of the refusals its RPC comments list (NOT_FOUND,
taken seats, full and started tables, closed tickets, bad filters)."""

from __future__ import annotations

import asyncio
import contextlib

import grpc
from world import Guest, World, eventually, lobby_code, promise, refused, rid

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import lobby_pb2 as lb
from wordarena.v1 import lobby_pb2_grpc

S = grpc.StatusCode


async def _started_table(w: World) -> tuple[lb.Table, Guest]:
    """The table of a started match, and its host (seat 0)."""
    mid, (host, _) = await w.match()
    tables = await host.lobby.ListTables(lb.ListTablesRequest(filter=lb.TableFilter(
        statuses=[lb.TABLE_STATUS_STARTED])), metadata=host.md)
    [table] = [t for t in tables.tables if t.match.match_id == mid]
    return table, host


@promise("LobbyService.ClaimAccount",
         "ALREADY_EXISTS NAME_TAKEN (a live player or an account has the name); INVALID_ARGUMENT "
         "NAME_INVALID")
async def _(w: World) -> None:
    g, other = await w.guest(), await w.guest()
    taken = lb.ClaimAccountRequest(name=other.name, password="a long secret")
    err = await refused(g.lobby.ClaimAccount(taken, metadata=g.md), S.ALREADY_EXISTS)
    assert lobby_code(err) == e.LOBBY_CODE_NAME_TAKEN
    err = await refused(g.lobby.ClaimAccount(lb.ClaimAccountRequest(name="x", password="a long secret"),
                                             metadata=g.md), S.INVALID_ARGUMENT)
    assert lobby_code(err) == e.LOBBY_CODE_NAME_INVALID


@promise("LobbyService.JoinTable", "ALREADY_EXISTS the requested seat is taken; NOT_FOUND unknown table")
async def _(w: World) -> None:
    host, joiner = await w.guest(), await w.guest()
    table = await w.table(host, seats=3, ruleset="wordtiles", host_start=True)
    seat_0 = lb.JoinTableRequest(table_id=table.table_id, seat=0, request_id=rid())  # the host's
    await refused(joiner.lobby.JoinTable(seat_0, metadata=joiner.md), S.ALREADY_EXISTS)
    await refused(joiner.lobby.JoinTable(lb.JoinTableRequest(table_id="nope", request_id=rid()),
                                         metadata=joiner.md), S.NOT_FOUND)


@promise("LobbyService.LeaveTable",
         "FAILED_PRECONDITION TABLE_NOT_OPEN once the match started (leave it with "
         "MatchService.LeaveMatch); NOT_FOUND unknown table")
async def _(w: World) -> None:
    table, a = await _started_table(w)
    err = await refused(a.lobby.LeaveTable(lb.LeaveTableRequest(table_id=table.table_id), metadata=a.md),
                        S.FAILED_PRECONDITION)
    assert lobby_code(err) == e.LOBBY_CODE_TABLE_NOT_OPEN
    await refused(a.lobby.LeaveTable(lb.LeaveTableRequest(table_id="nope"), metadata=a.md), S.NOT_FOUND)


@promise("LobbyService.SitBot", "FAILED_PRECONDITION TABLE_FULL; NOT_FOUND unknown table")
async def _(w: World) -> None:
    host, joiner = await w.guest(), await w.guest()
    table = await w.table(host, host_start=True)
    await joiner.lobby.JoinTable(lb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                 metadata=joiner.md)
    err = await refused(host.lobby.SitBot(lb.SitBotRequest(table_id=table.table_id, bot_level=1,
                                                           request_id=rid()), metadata=host.md),
                        S.FAILED_PRECONDITION)
    assert lobby_code(err) == e.LOBBY_CODE_TABLE_FULL
    await refused(host.lobby.SitBot(lb.SitBotRequest(table_id="nope", bot_level=1, request_id=rid()),
                                    metadata=host.md), S.NOT_FOUND)


@promise("LobbyService.JoinTable", "FAILED_PRECONDITION TABLE_NOT_OPEN once the table started")
async def _(w: World) -> None:
    table, _ = await _started_table(w)
    late = await w.guest()
    err = await refused(late.lobby.JoinTable(lb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                             metadata=late.md), S.FAILED_PRECONDITION)
    assert lobby_code(err) == e.LOBBY_CODE_TABLE_NOT_OPEN


@promise("LobbyService.SitBot", "FAILED_PRECONDITION TABLE_NOT_OPEN once the table started")
async def _(w: World) -> None:
    table, a = await _started_table(w)
    assert table.host_player_id == a.player_id  # the host, who may seat bots on an open table
    err = await refused(a.lobby.SitBot(lb.SitBotRequest(table_id=table.table_id, bot_level=1,
                                                        request_id=rid()), metadata=a.md),
                        S.FAILED_PRECONDITION)
    assert lobby_code(err) == e.LOBBY_CODE_TABLE_NOT_OPEN


@promise("LobbyService.StartTable",
         "PERMISSION_DENIED NOT_HOST for a seated player who is not host; NOT_FOUND unknown table; a "
         "repeated request_id returns the first answer")
async def _(w: World) -> None:
    host, joiner = await w.guest(), await w.guest()
    table = await w.table(host, host_start=True)
    await refused(host.lobby.StartTable(lb.StartTableRequest(table_id="nope", request_id=rid()),
                                        metadata=host.md), S.NOT_FOUND)
    await joiner.lobby.JoinTable(lb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                 metadata=joiner.md)
    err = await refused(joiner.lobby.StartTable(lb.StartTableRequest(table_id=table.table_id,
                                                                     request_id=rid()), metadata=joiner.md),
                        S.PERMISSION_DENIED)
    assert lobby_code(err) == e.LOBBY_CODE_NOT_HOST
    once = lb.StartTableRequest(table_id=table.table_id, request_id="start-1")
    first = await host.lobby.StartTable(once, metadata=host.md)
    assert (await host.lobby.StartTable(once, metadata=host.md)).assignment == first.assignment


@promise("LobbyService.WatchTables", "INVALID_ARGUMENT bad filter")
async def _(w: World) -> None:
    g = await w.guest()
    call = g.lobby.WatchTables(lb.WatchTablesRequest(filter=lb.TableFilter(seats=9)), metadata=g.md)
    await refused(call.read(), S.INVALID_ARGUMENT)


@promise("LobbyService.CancelQuickMatchTicket", "FAILED_PRECONDITION TICKET_CLOSED once matched")
async def _(w: World) -> None:
    g, other = await w.guest(), await w.guest()
    # Two players asking for the same game are matched at the next tick (no bot: no 5 s wait).
    criteria = lb.QuickMatchCriteria(ruleset=c.RulesetRef(ruleset_id="classic"), seats=2)
    ticket = (await g.lobby.QuickMatch(lb.QuickMatchRequest(criteria=criteria, request_id=rid()),
                                       metadata=g.md)).ticket
    await other.lobby.QuickMatch(lb.QuickMatchRequest(criteria=criteria, request_id=rid()), metadata=other.md)

    async def matched() -> bool:
        got = await g.lobby.GetQuickMatchTicket(lb.GetQuickMatchTicketRequest(ticket_id=ticket.ticket_id),
                                                metadata=g.md)
        return got.ticket.status == lb.TICKET_STATUS_MATCHED

    await eventually(matched, timeout=30)
    err = await refused(g.lobby.CancelQuickMatchTicket(lb.CancelQuickMatchTicketRequest(
        ticket_id=ticket.ticket_id), metadata=g.md), S.FAILED_PRECONDITION)
    assert lobby_code(err) == e.LOBBY_CODE_TICKET_CLOSED


@promise("LobbyService.CreateTable",
         "INVALID_ARGUMENT SETTINGS_INVALID naming the field: a clock outside 3..20 minutes for wordtiles")
async def _(w: World) -> None:
    g = await w.guest()
    options = c.MatchOptions()
    options.clock.per_player.seconds = 60
    settings = lb.TableSettings(ruleset=c.RulesetRef(ruleset_id="wordtiles"), seats=2, options=options)
    err = await refused(g.lobby.CreateTable(lb.CreateTableRequest(settings=settings, request_id=rid()),
                                            metadata=g.md), S.INVALID_ARGUMENT)
    assert lobby_code(err) == e.LOBBY_CODE_SETTINGS_INVALID


@promise("LobbyService.DescribeRuleset", "every ruleset offers the Tile Bag (FEATURE_TILE_BAG)")
async def _(w: World) -> None:
    for summary in (await w.lobby.ListRulesets(lb.ListRulesetsRequest())).rulesets:
        described = await w.lobby.DescribeRuleset(lb.DescribeRulesetRequest(
            ruleset=c.RulesetRef(ruleset_id=summary.ruleset_id)))
        assert lb.FEATURE_TILE_BAG in described.ruleset.features, summary.ruleset_id


@promise("LobbyService.WatchTables",
         "RESOURCE_EXHAUSTED for a consumer too slow to keep up (reconnect: the stream starts over)")
async def _(w: World) -> None:
    hosts = [await w.guest() for _ in range(4)]
    tables = [await w.table(h, "scrabble", host_start=True) for h in hosts]
    # A client that does not read, on a channel whose HTTP/2 window stays at its initial 64 KiB.
    channel = grpc.aio.insecure_channel(w.lobby_address, options=[("grpc.http2.bdp_probe", 0)])
    w.channels.append(channel)
    watch = lb.WatchTablesRequest(filter=lb.TableFilter(ruleset_id="scrabble"))
    call = lobby_pb2_grpc.LobbyServiceStub(channel).WatchTables(watch, metadata=hosts[0].md)
    await call.wait_for_connection()

    async def churn(table: lb.Table) -> None:  # 200 changes of one table
        joiner = await w.guest()
        for _ in range(100):
            await joiner.lobby.JoinTable(lb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                         metadata=joiner.md)
            await joiner.lobby.LeaveTable(lb.LeaveTableRequest(table_id=table.table_id), metadata=joiner.md)

    await asyncio.gather(*(churn(t) for t in tables))  # 800 changes, four tables at a time
    got = 0
    with contextlib.suppress(grpc.aio.AioRpcError):
        while await call.read() is not grpc.aio.EOF:
            got += 1
    assert await call.code() == S.RESOURCE_EXHAUSTED
    assert got < 800
    again = hosts[0].lobby.WatchTables(watch, metadata=hosts[0].md)  # reconnecting starts over
    assert (await again.read()).kind == lb.TABLE_CHANGE_KIND_EXISTING
    again.cancel()
