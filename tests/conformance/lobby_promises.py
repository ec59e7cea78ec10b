"""What lobby.proto promises about each LobbyService RPC, as checks over real gRPC (see
``world``): the status codes and LobbyViolation codes its comments list, the file comment's
rules on tokens, idempotency (request_id) and pagination."""

from __future__ import annotations

import asyncio

import grpc
from google.rpc import error_details_pb2
from world import Guest, World, detail, eventually, lobby_code, promise, refused, rid

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import lobby_pb2 as lb

S = grpc.StatusCode


def field_of(err: grpc.aio.AioRpcError) -> str:
    """The field google.rpc.BadRequest names."""
    return str(detail(err, error_details_pb2.BadRequest).field_violations[0].field)


# --- identity ----------------------------------------------------------------------------------


@promise("LobbyService.SignInGuest",
         "no token needed; INVALID_ARGUMENT NAME_INVALID (3..24 characters); ALREADY_EXISTS NAME_TAKEN")
async def _(w: World) -> None:
    r = await w.lobby.SignInGuest(lb.SignInGuestRequest(display_name="Conformance Guest"))
    assert r.player.guest and r.token.token
    err = await refused(w.lobby.SignInGuest(lb.SignInGuestRequest(display_name="ab")), S.INVALID_ARGUMENT)
    assert lobby_code(err) == e.LOBBY_CODE_NAME_INVALID
    err = await refused(w.lobby.SignInGuest(lb.SignInGuestRequest(display_name="Conformance Guest")),
                        S.ALREADY_EXISTS)
    assert lobby_code(err) == e.LOBBY_CODE_NAME_TAKEN


@promise("LobbyService.ClaimAccount",
         "keeps the player id and returns a fresh token; PASSWORD_TOO_WEAK under 8 characters; "
         "FAILED_PRECONDITION ALREADY_CLAIMED")
async def _(w: World) -> None:
    g = await w.guest("claim")
    err = await refused(g.lobby.ClaimAccount(lb.ClaimAccountRequest(name=g.name, password="short"),
                                             metadata=g.md), S.INVALID_ARGUMENT)
    assert lobby_code(err) == e.LOBBY_CODE_PASSWORD_TOO_WEAK
    r = await g.lobby.ClaimAccount(lb.ClaimAccountRequest(name=g.name, password="a long secret"),
                                   metadata=g.md)
    assert r.player.player_id == g.player_id and not r.player.guest and r.token.token
    md = [("authorization", f"Bearer {r.token.token}")]
    err = await refused(g.lobby.ClaimAccount(lb.ClaimAccountRequest(name=g.name, password="a long secret"),
                                             metadata=md), S.FAILED_PRECONDITION)
    assert lobby_code(err) == e.LOBBY_CODE_ALREADY_CLAIMED


@promise("LobbyService.ClaimAccount",
         "the guest's earlier tokens are revoked: the lobby answers them UNAUTHENTICATED")
async def _(w: World) -> None:
    g = await w.guest("revoke")
    assert (await g.lobby.GetMe(lb.GetMeRequest(), metadata=g.md)).player.guest
    r = await g.lobby.ClaimAccount(lb.ClaimAccountRequest(name=g.name, password="a long secret"),
                                   metadata=g.md)
    for call in (g.lobby.GetMe(lb.GetMeRequest(), metadata=g.md),
                 g.lobby.RefreshToken(lb.RefreshTokenRequest(), metadata=g.md)):
        await refused(call, S.UNAUTHENTICATED)
    me = await g.lobby.GetMe(lb.GetMeRequest(), metadata=[("authorization", f"Bearer {r.token.token}")])
    assert me.player.player_id == g.player_id and not me.player.guest


@promise("LobbyService.SignIn",
         "signs in to a claimed account with no token; UNAUTHENTICATED wrong password")
async def _(w: World) -> None:
    g = await w.guest("acct")
    await g.lobby.ClaimAccount(lb.ClaimAccountRequest(name=g.name, password="correct horse"), metadata=g.md)
    r = await w.lobby.SignIn(lb.SignInRequest(name=g.name, password="correct horse"))
    assert r.player.player_id == g.player_id
    await refused(w.lobby.SignIn(lb.SignInRequest(name=g.name, password="wrong horse")), S.UNAUTHENTICATED)


@promise("LobbyService.RefreshToken",
         "a valid token is exchanged for one with a later expiry; UNAUTHENTICATED invalid token")
async def _(w: World) -> None:
    g = await w.guest()
    me = await g.lobby.GetMe(lb.GetMeRequest(), metadata=g.md)
    await asyncio.sleep(1.1)  # expiry times are in seconds
    r = await g.lobby.RefreshToken(lb.RefreshTokenRequest(), metadata=g.md)
    assert r.token.token and r.token.token != g.token
    assert me.player.player_id == (await g.lobby.GetMe(lb.GetMeRequest(), metadata=[
        ("authorization", f"Bearer {r.token.token}")])).player.player_id
    await refused(g.lobby.RefreshToken(lb.RefreshTokenRequest(), metadata=[("authorization", "Bearer x")]),
                  S.UNAUTHENTICATED)


@promise("LobbyService.GetMe", "the caller's identity; UNAUTHENTICATED without a token")
async def _(w: World) -> None:
    g = await w.guest()
    me = await g.lobby.GetMe(lb.GetMeRequest(), metadata=g.md)
    assert me.player.player_id == g.player_id and me.player.display_name == g.name
    await refused(w.lobby.GetMe(lb.GetMeRequest()), S.UNAUTHENTICATED)


# --- tables ------------------------------------------------------------------------------------


def _settings(seats: int = 2, ruleset: str = "classic", **kw: object) -> lb.TableSettings:
    return lb.TableSettings(ruleset=c.RulesetRef(ruleset_id=ruleset), seats=seats, **kw)  # type: ignore[arg-type]


@promise("LobbyService.CreateTable",
         "INVALID_ARGUMENT SETTINGS_INVALID with the field (seats outside the ruleset's range); "
         "NOT_FOUND unknown ruleset; a repeated request_id returns the first answer")
async def _(w: World) -> None:
    g = await w.guest()
    err = await refused(g.lobby.CreateTable(lb.CreateTableRequest(settings=_settings(4), request_id=rid()),
                                            metadata=g.md), S.INVALID_ARGUMENT)
    assert lobby_code(err) == e.LOBBY_CODE_SETTINGS_INVALID and field_of(err) == "settings.seats"
    await refused(g.lobby.CreateTable(lb.CreateTableRequest(settings=_settings(2, "chess"), request_id=rid()),
                                      metadata=g.md), S.NOT_FOUND)
    first = await g.lobby.CreateTable(lb.CreateTableRequest(settings=_settings(), request_id="t-1"),
                                      metadata=g.md)
    again = await g.lobby.CreateTable(lb.CreateTableRequest(settings=_settings(), request_id="t-1"),
                                      metadata=g.md)
    assert again.table.table_id == first.table.table_id and first.table.host_player_id == g.player_id


@promise("LobbyService.CreateTable",
         "TableSettings.bot_think_ms and BotSeat.bot_think_ms: 100..30000 ms or 0 (the default), shown "
         "back in the table; outside, INVALID_ARGUMENT naming settings.bot_think_ms or "
         "settings.bots[i].bot_think_ms; BotSeat.bot_level 1..6 (settings.bots[i].bot_level)")
async def _(w: World) -> None:
    g = await w.guest()
    bot6 = lb.BotSeat(seat=1, bot_level=6)
    for settings, field in (
        (_settings(bots=[bot6], bot_think_ms=99), "settings.bot_think_ms"),
        (_settings(bots=[bot6], bot_think_ms=30_001), "settings.bot_think_ms"),
        (_settings(bots=[lb.BotSeat(seat=1, bot_level=6, bot_think_ms=50)]), "settings.bots[0].bot_think_ms"),
        (_settings(bots=[lb.BotSeat(seat=1, bot_level=7)]), "settings.bots[0].bot_level"),
    ):
        err = await refused(g.lobby.CreateTable(lb.CreateTableRequest(settings=settings, request_id=rid()),
                                                metadata=g.md), S.INVALID_ARGUMENT)
        assert field_of(err) == field
    ok = _settings(bots=[lb.BotSeat(seat=1, bot_level=6, bot_think_ms=100)], bot_think_ms=30_000,
                   start_policy=lb.START_POLICY_HOST)
    table = (await g.lobby.CreateTable(lb.CreateTableRequest(settings=ok, request_id=rid()),
                                       metadata=g.md)).table
    assert table.settings.bot_think_ms == 30_000
    assert [(b.bot_level, b.bot_think_ms) for b in table.settings.bots] == [(6, 100)]


@promise("LobbyService.GetTable",
         "NOT_FOUND; PERMISSION_DENIED a private table the caller is not seated at, unless invite_code; "
         "a string field with a control character or over 1024 characters is INVALID_ARGUMENT naming it")
async def _(w: World) -> None:
    host, other = await w.guest(), await w.guest()
    for bad in ("tab\x00le", "t" * 1025):
        err = await refused(other.lobby.GetTable(lb.GetTableRequest(table_id=bad), metadata=other.md),
                            S.INVALID_ARGUMENT)
        assert field_of(err) == "table_id"
    table = await w.table(host, private=True)
    await refused(other.lobby.GetTable(lb.GetTableRequest(table_id="nope"), metadata=other.md), S.NOT_FOUND)
    await refused(other.lobby.GetTable(lb.GetTableRequest(table_id=table.table_id), metadata=other.md),
                  S.PERMISSION_DENIED)
    invited = lb.GetTableRequest(table_id=table.table_id, invite_code=table.invite_code)
    got = await other.lobby.GetTable(invited, metadata=other.md)
    assert got.table.table_id == table.table_id


@promise("LobbyService.GetTable",
         "the refusal of a string field with a control character or over 1024 characters carries a "
         "LobbyViolation naming its rule (TEXT_INVALID) and the field")
async def _(w: World) -> None:
    g = await w.guest()
    calls = [("table_id", g.lobby.GetTable, lb.GetTableRequest(table_id="tab\x00le")),
             ("table_id", g.lobby.GetTable, lb.GetTableRequest(table_id="t" * 1025)),
             ("invite_code", g.lobby.GetTable, lb.GetTableRequest(table_id="t1", invite_code="\x1b[2J")),
             ("display_name", w.lobby.SignInGuest, lb.SignInGuestRequest(display_name="Ann\x00"))]
    for field, rpc, request in calls:
        err = await refused(rpc(request, metadata=g.md), S.INVALID_ARGUMENT)
        violation = detail(err, e.LobbyViolation)
        assert (violation.code_name, violation.field) == ("TEXT_INVALID", field), (field, violation)
        assert violation.code == e.LobbyCode.Value("LOBBY_CODE_TEXT_INVALID")
        assert field_of(err) == field


@promise("LobbyService.ListTables",
         "public tables, newest first, paged (AIP-158); INVALID_ARGUMENT negative page_size, bad token")
async def _(w: World) -> None:
    g = await w.guest()
    made = [(await w.table(g)).table_id for _ in range(2)]
    r = await g.lobby.ListTables(lb.ListTablesRequest(page_size=1, filter=lb.TableFilter(has_free_seat=True)),
                                 metadata=g.md)
    assert [t.table_id for t in r.tables] == [made[-1]] and r.next_page_token
    await refused(g.lobby.ListTables(lb.ListTablesRequest(page_size=-1), metadata=g.md), S.INVALID_ARGUMENT)
    await refused(g.lobby.ListTables(lb.ListTablesRequest(page_token="garbage"), metadata=g.md),
                  S.INVALID_ARGUMENT)


@promise("LobbyService.WatchTables",
         "first every current table (EXISTING), then a SYNCED marker, then live changes; watching one "
         "table, STARTED carries Table.match with the match server's address")
async def _(w: World) -> None:
    g = await w.guest()
    table = await w.table(g)
    states = [lb.TABLE_STATUS_OPEN, lb.TABLE_STATUS_STARTING, lb.TABLE_STATUS_STARTED]
    call = g.lobby.WatchTables(lb.WatchTablesRequest(filter=lb.TableFilter(table_id=table.table_id,
                                                                           statuses=states)), metadata=g.md)
    kinds = []
    async for msg in call:
        kinds.append(msg.kind)
        if msg.kind == lb.TABLE_CHANGE_KIND_SYNCED:
            other = await w.guest()
            await other.lobby.JoinTable(lb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                        metadata=other.md)
        elif msg.kind == lb.TABLE_CHANGE_KIND_STARTED:
            assert msg.table.match.match_id and msg.table.match.address == w.match_address
            break
    call.cancel()
    assert kinds[:2] == [lb.TABLE_CHANGE_KIND_EXISTING, lb.TABLE_CHANGE_KIND_SYNCED]
    assert kinds[-1] == lb.TABLE_CHANGE_KIND_STARTED


@promise("LobbyService.JoinTable",
         "joining a table one sits at returns it unchanged; FAILED_PRECONDITION TABLE_FULL; "
         "PERMISSION_DENIED BAD_INVITE_CODE; INVALID_ARGUMENT seat out of range")
async def _(w: World) -> None:
    host, joiner, late = await w.guest(), await w.guest(), await w.guest()
    table = await w.table(host, host_start=True)
    err = await refused(joiner.lobby.JoinTable(lb.JoinTableRequest(table_id=table.table_id, seat=9,
                                                                   request_id=rid()), metadata=joiner.md),
                        S.INVALID_ARGUMENT)
    assert field_of(err) == "seat"
    first = await joiner.lobby.JoinTable(lb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                         metadata=joiner.md)
    again = await joiner.lobby.JoinTable(lb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                         metadata=joiner.md)
    assert again.seat == first.seat and again.table.seats == first.table.seats
    err = await refused(late.lobby.JoinTable(lb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                             metadata=late.md), S.FAILED_PRECONDITION)
    assert lobby_code(err) == e.LOBBY_CODE_TABLE_FULL
    private = await w.table(host, private=True)
    err = await refused(late.lobby.JoinTable(lb.JoinTableRequest(table_id=private.table_id, invite_code="x",
                                                                 request_id=rid()), metadata=late.md),
                        S.PERMISSION_DENIED)
    assert lobby_code(err) == e.LOBBY_CODE_BAD_INVITE_CODE


@promise("LobbyService.LeaveTable",
         "a host who leaves hands the table on to the next seated human; FAILED_PRECONDITION NOT_SEATED")
async def _(w: World) -> None:
    host, joiner, outsider = await w.guest(), await w.guest(), await w.guest()
    table = await w.table(host, seats=3, ruleset="wordtiles", host_start=True)
    await joiner.lobby.JoinTable(lb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                 metadata=joiner.md)
    left = await host.lobby.LeaveTable(lb.LeaveTableRequest(table_id=table.table_id), metadata=host.md)
    assert left.table.host_player_id == joiner.player_id
    err = await refused(outsider.lobby.LeaveTable(lb.LeaveTableRequest(table_id=table.table_id),
                                                  metadata=outsider.md), S.FAILED_PRECONDITION)
    assert lobby_code(err) == e.LOBBY_CODE_NOT_SEATED


@promise("LobbyService.SitBot",
         "host only: PERMISSION_DENIED NOT_HOST; INVALID_ARGUMENT bot_level outside 1..6 or "
         "bot_think_ms outside 100..30000 (naming the field); a repeated request_id seats no second bot")
async def _(w: World) -> None:
    host, other = await w.guest(), await w.guest()
    table = await w.table(host, host_start=True)
    err = await refused(other.lobby.SitBot(lb.SitBotRequest(table_id=table.table_id, bot_level=3,
                                                            request_id=rid()), metadata=other.md),
                        S.PERMISSION_DENIED)
    assert lobby_code(err) == e.LOBBY_CODE_NOT_HOST
    for level, think, field in ((7, 0, "bot_level"), (6, 99, "bot_think_ms"), (6, 30_001, "bot_think_ms")):
        err = await refused(host.lobby.SitBot(lb.SitBotRequest(table_id=table.table_id, bot_level=level,
                                                               bot_think_ms=think, request_id=rid()),
                                              metadata=host.md), S.INVALID_ARGUMENT)
        assert field_of(err) == field
    big = await w.table(host, seats=4, ruleset="wordtiles", host_start=True)
    once = lb.SitBotRequest(table_id=big.table_id, bot_level=2, request_id="bot-1")
    first = await host.lobby.SitBot(once, metadata=host.md)
    hardest = await host.lobby.SitBot(lb.SitBotRequest(table_id=big.table_id, bot_level=6,
                                                       bot_think_ms=30_000, request_id=rid()),
                                      metadata=host.md)
    assert sorted(s.player.bot_level for s in hardest.table.seats if s.player.bot) == [2, 6]
    again = await host.lobby.SitBot(once, metadata=host.md)
    assert again == first and sum(s.player.bot for s in again.table.seats) == 1
    assert sum(s.player.bot for s in hardest.table.seats) == 2  # the repeat seated no third bot


@promise("LobbyService.StartTable",
         "host only (NOT_HOST); FAILED_PRECONDITION TABLE_NOT_READY with fewer than 2 seats filled; "
         "returns where to connect")
async def _(w: World) -> None:
    host, joiner = await w.guest(), await w.guest()
    table = await w.table(host, host_start=True)
    err = await refused(host.lobby.StartTable(lb.StartTableRequest(table_id=table.table_id, request_id=rid()),
                                              metadata=host.md), S.FAILED_PRECONDITION)
    assert lobby_code(err) == e.LOBBY_CODE_TABLE_NOT_READY
    await joiner.lobby.JoinTable(lb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                 metadata=joiner.md)
    err = await refused(joiner.lobby.StartTable(lb.StartTableRequest(table_id=table.table_id,
                                                                     request_id=rid()), metadata=joiner.md),
                        S.PERMISSION_DENIED)
    assert lobby_code(err) == e.LOBBY_CODE_NOT_HOST
    started = await host.lobby.StartTable(lb.StartTableRequest(table_id=table.table_id, request_id=rid()),
                                          metadata=host.md)
    assert started.assignment.address == w.match_address and started.assignment.seat == 0
    assert (await host.view(started.assignment.match_id)).viewer_seat == 0


@promise("LobbyService.StartTable",
         "FAILED_PRECONDITION TABLE_NOT_OPEN on a started table (a new request_id), whether the host "
         "started it or it started by itself when full")
async def _(w: World) -> None:
    host, joiner = await w.guest(), await w.guest()
    table = await w.table(host, host_start=True)
    await joiner.lobby.JoinTable(lb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                 metadata=joiner.md)
    await host.lobby.StartTable(lb.StartTableRequest(table_id=table.table_id, request_id=rid()),
                                metadata=host.md)
    err = await refused(host.lobby.StartTable(lb.StartTableRequest(table_id=table.table_id, request_id=rid()),
                                              metadata=host.md), S.FAILED_PRECONDITION)
    assert lobby_code(err) == e.LOBBY_CODE_TABLE_NOT_OPEN, err.details()
    host, joiner = await w.guest(), await w.guest()
    table = await w.table(host)  # starts by itself once full
    joined = await joiner.lobby.JoinTable(lb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                          metadata=joiner.md)
    assert joined.table.status == lb.TABLE_STATUS_STARTED
    err = await refused(host.lobby.StartTable(lb.StartTableRequest(table_id=table.table_id, request_id=rid()),
                                              metadata=host.md), S.FAILED_PRECONDITION)
    assert lobby_code(err) == e.LOBBY_CODE_TABLE_NOT_OPEN, err.details()


# --- quick match -------------------------------------------------------------------------------


async def _ticket(g: Guest) -> lb.QuickMatchTicket:
    criteria = lb.QuickMatchCriteria(ruleset=c.RulesetRef(ruleset_id="wordtiles"), seats=4)
    r = await g.lobby.QuickMatch(lb.QuickMatchRequest(criteria=criteria, request_id=rid()), metadata=g.md)
    return r.ticket


@promise("LobbyService.QuickMatch",
         "returns a queued ticket; FAILED_PRECONDITION ALREADY_QUEUED naming the ticket; a repeated "
         "request_id returns the first answer; INVALID_ARGUMENT bad criteria")
async def _(w: World) -> None:
    g = await w.guest()
    ticket = await _ticket(g)
    assert ticket.status == lb.TICKET_STATUS_QUEUED
    err = await refused(_ticket(g), S.FAILED_PRECONDITION)
    assert lobby_code(err) == e.LOBBY_CODE_ALREADY_QUEUED and ticket.ticket_id in err.details()
    await g.lobby.CancelQuickMatchTicket(lb.CancelQuickMatchTicketRequest(ticket_id=ticket.ticket_id),
                                         metadata=g.md)
    criteria = lb.QuickMatchCriteria(ruleset=c.RulesetRef(ruleset_id="wordtiles"), seats=4)
    h = await w.guest()
    once = lb.QuickMatchRequest(criteria=criteria, request_id="qm-1")
    first = await h.lobby.QuickMatch(once, metadata=h.md)
    again = await h.lobby.QuickMatch(once, metadata=h.md)
    assert again.ticket.ticket_id == first.ticket.ticket_id  # the request_id's first answer
    await h.lobby.CancelQuickMatchTicket(lb.CancelQuickMatchTicketRequest(ticket_id=first.ticket.ticket_id),
                                         metadata=h.md)
    bad = lb.QuickMatchCriteria(ruleset=c.RulesetRef(ruleset_id="classic"), seats=9)
    await refused(g.lobby.QuickMatch(lb.QuickMatchRequest(criteria=bad, request_id=rid()), metadata=g.md),
                  S.INVALID_ARGUMENT)


@promise("LobbyService.GetQuickMatchTicket", "the ticket's state; NOT_FOUND someone else's ticket")
async def _(w: World) -> None:
    g, other = await w.guest(), await w.guest()
    ticket = await _ticket(g)
    got = await g.lobby.GetQuickMatchTicket(lb.GetQuickMatchTicketRequest(ticket_id=ticket.ticket_id),
                                            metadata=g.md)
    assert got.ticket.ticket_id == ticket.ticket_id
    await refused(other.lobby.GetQuickMatchTicket(lb.GetQuickMatchTicketRequest(ticket_id=ticket.ticket_id),
                                                  metadata=other.md), S.NOT_FOUND)
    await g.lobby.CancelQuickMatchTicket(lb.CancelQuickMatchTicketRequest(ticket_id=ticket.ticket_id),
                                         metadata=g.md)


@promise("LobbyService.WatchQuickMatchTicket",
         "the current state at once, then changes; the stream ends once cancelled; NOT_FOUND")
async def _(w: World) -> None:
    g = await w.guest()
    ticket = await _ticket(g)
    call = g.lobby.WatchQuickMatchTicket(lb.WatchQuickMatchTicketRequest(ticket_id=ticket.ticket_id),
                                         metadata=g.md)
    first = await call.read()
    assert first.ticket.status == lb.TICKET_STATUS_QUEUED
    await g.lobby.CancelQuickMatchTicket(lb.CancelQuickMatchTicketRequest(ticket_id=ticket.ticket_id),
                                         metadata=g.md)
    rest = []
    while (msg := await call.read()) is not grpc.aio.EOF:
        rest.append(msg.ticket.status)
    assert rest[-1] == lb.TICKET_STATUS_CANCELLED  # and the stream ended
    call = g.lobby.WatchQuickMatchTicket(lb.WatchQuickMatchTicketRequest(ticket_id="nope"), metadata=g.md)
    await refused(call.read(), S.NOT_FOUND)


@promise("LobbyService.CancelQuickMatchTicket",
         "cancelling a cancelled ticket returns it unchanged; NOT_FOUND")
async def _(w: World) -> None:
    g = await w.guest()
    ticket = await _ticket(g)
    req = lb.CancelQuickMatchTicketRequest(ticket_id=ticket.ticket_id)
    first = await g.lobby.CancelQuickMatchTicket(req, metadata=g.md)
    again = await g.lobby.CancelQuickMatchTicket(req, metadata=g.md)
    assert first.ticket.status == again.ticket.status == lb.TICKET_STATUS_CANCELLED
    await refused(g.lobby.CancelQuickMatchTicket(lb.CancelQuickMatchTicketRequest(ticket_id="nope"),
                                                 metadata=g.md), S.NOT_FOUND)


# --- matches, records, rulesets ----------------------------------------------------------------


@promise("LobbyService.LocateMatch", "where a match is played now; NOT_FOUND unknown match")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    r = await a.lobby.LocateMatch(lb.LocateMatchRequest(match_id=mid), metadata=a.md)
    assert r.assignment.address == w.match_address and r.assignment.match_id == mid
    await refused(a.lobby.LocateMatch(lb.LocateMatchRequest(match_id="nope"), metadata=a.md), S.NOT_FOUND)


@promise("LobbyService.ListMyMatches",
         "the caller's matches with where to reconnect; INVALID_ARGUMENT bad page token")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    r = await a.lobby.ListMyMatches(lb.ListMyMatchesRequest(), metadata=a.md)
    assert [(s.assignment.match_id, s.assignment.address) for s in r.matches] == [(mid, w.match_address)]
    await refused(a.lobby.ListMyMatches(lb.ListMyMatchesRequest(page_token="garbage"), metadata=a.md),
                  S.INVALID_ARGUMENT)


@promise("LobbyService.GetPlayerRecord",
         "a finished rated match is counted in both players' records; NOT_FOUND unknown player")
async def _(w: World) -> None:
    mid, (a, b) = await w.match()
    await b.submit(mid, c.Move(resign=c.ResignMove()))

    async def counted() -> lb.GetPlayerRecordResponse | None:
        r = await a.lobby.GetPlayerRecord(lb.GetPlayerRecordRequest(player_id=b.player_id), metadata=a.md)
        return r if r.records and r.records[0].games == 1 else None

    record = await eventually(counted)
    assert record.records[0].losses == 1
    await refused(a.lobby.GetPlayerRecord(lb.GetPlayerRecordRequest(player_id="nope"), metadata=a.md),
                  S.NOT_FOUND)


@promise("LobbyService.GetLeaderboard", "INVALID_ARGUMENT unknown ruleset or bad page token")
async def _(w: World) -> None:
    g = await w.guest()
    r = await g.lobby.GetLeaderboard(lb.GetLeaderboardRequest(ruleset_id="classic"), metadata=g.md)
    assert r.total_size >= 0
    await refused(g.lobby.GetLeaderboard(lb.GetLeaderboardRequest(ruleset_id="chess"), metadata=g.md),
                  S.INVALID_ARGUMENT)
    await refused(g.lobby.GetLeaderboard(lb.GetLeaderboardRequest(ruleset_id="classic", page_token="garbage"),
                                         metadata=g.md), S.INVALID_ARGUMENT)


@promise("LobbyService.ListRulesets", "no token needed; every family is offered")
async def _(w: World) -> None:
    r = await w.lobby.ListRulesets(lb.ListRulesetsRequest())
    assert {x.family for x in r.rulesets} == {c.FAMILY_CLASSIC, c.FAMILY_WORDTILES, c.FAMILY_WAROFWORDS,
                                              c.FAMILY_SCRABBLE}


@promise("LobbyService.DescribeRuleset",
         "no token needed: the board, the tile set and the alphabet; NOT_FOUND unknown board")
async def _(w: World) -> None:
    r = await w.lobby.DescribeRuleset(lb.DescribeRulesetRequest(ruleset=c.RulesetRef(ruleset_id="classic")))
    assert r.ruleset.board.rows == 15 and r.ruleset.tiles and r.ruleset.alphabet
    await refused(w.lobby.DescribeRuleset(lb.DescribeRulesetRequest(
        ruleset=c.RulesetRef(ruleset_id="classic", board_id="no-such-board"))), S.NOT_FOUND)
