"""LobbyService (clients): each handler authenticates, reads the request into domain values,
makes one call into the lobby's parts (``services.lobby.app.Lobby``) and builds the answer."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import grpc

from wordarena.services.common.authn import BearerAuth
from wordarena.services.common.ratelimit import client_address
from wordarena.services.lobby import convert
from wordarena.services.lobby.api.errors import rpc
from wordarena.services.lobby.api.requests import Page, Replay, check_id
from wordarena.services.lobby.app import Lobby
from wordarena.services.lobby.errors import LobbyError, Status
from wordarena.services.lobby.settings import BOT_LEVEL_MAX, catalog, resolve_ruleset, validate_settings
from wordarena.services.lobby.standings import Period, Standing
from wordarena.services.lobby.table_cache import ChangeKind, TableChange
from wordarena.services.lobby.tables import Table
from wordarena.v1 import lobby_pb2, lobby_pb2_grpc

__all__ = ["LobbyServicer"]

PERIODS = {
    lobby_pb2.LEADERBOARD_PERIOD_ALL_TIME: Period.ALL_TIME,
    lobby_pb2.LEADERBOARD_PERIOD_DAY: Period.DAY,
    lobby_pb2.LEADERBOARD_PERIOD_WEEK: Period.WEEK,
    lobby_pb2.LEADERBOARD_PERIOD_MONTH: Period.MONTH,
}
MATCH_STATES = {
    lobby_pb2.MATCH_LIST_STATE_UNSPECIFIED: None,
    lobby_pb2.MATCH_LIST_STATE_ACTIVE: True,
    lobby_pb2.MATCH_LIST_STATE_FINISHED: False,
}


def _seat(request: Any) -> int | None:
    return request.seat if request.HasField("seat") else None


def _change_pb(c: TableChange, table: lobby_pb2.Table | None = None) -> lobby_pb2.WatchTablesResponse:
    return lobby_pb2.WatchTablesResponse(
        kind=convert.change_kind_pb(c.kind), table=table, time=convert.ts(c.time)
    )


class LobbyServicer(lobby_pb2_grpc.LobbyServiceServicer):
    """The clients' service."""

    def __init__(self, lobby: Lobby, authn: BearerAuth) -> None:
        self.lobby = lobby
        self.authn = authn
        self.replay = Replay(lobby.db)

    async def _player(self, context: grpc.aio.ServicerContext) -> str:
        """The calling player's id (a player token: service tokens cannot act as players; a
        guest's token of a claimed account is revoked)."""
        claims = self.authn.player(context)
        await self.lobby.accounts.authorize(claims)
        self.lobby.accounts.seen(claims.player_id)
        return claims.player_id

    async def _at_table(self, request: Any, context: grpc.aio.ServicerContext) -> str:
        """The calling player's id, for a request naming a table."""
        pid = await self._player(context)
        check_id(request.table_id, "table", "table_id")
        return pid

    def _table_pb(self, t: Table, viewer: str) -> lobby_pb2.Table:
        """The table as ``viewer`` sees it; the view of players not seated there is shared."""
        if t.seat_of(viewer) is not None:
            return convert.table_pb(t, viewer)
        return self.lobby.cache.view(t, convert.table_pb)

    # -- players ----------------------------------------------------------------------------------

    @rpc
    async def SignInGuest(self, request: lobby_pb2.SignInGuestRequest, context: Any) -> Any:
        s = await self.lobby.accounts.sign_in_guest(request.display_name, client_address(context.peer()))
        return lobby_pb2.SignInGuestResponse(
            player=convert.account_pb(s.player), token=convert.auth_token_pb(s.token, s.expires_at)
        )

    @rpc
    async def ClaimAccount(self, request: lobby_pb2.ClaimAccountRequest, context: Any) -> Any:
        pid = await self._player(context)
        s = await self.lobby.accounts.claim(pid, request.name, request.password)
        return lobby_pb2.ClaimAccountResponse(
            player=convert.account_pb(s.player), token=convert.auth_token_pb(s.token, s.expires_at)
        )

    @rpc
    async def SignIn(self, request: lobby_pb2.SignInRequest, context: Any) -> lobby_pb2.SignInResponse:
        s = await self.lobby.accounts.sign_in(request.name, request.password, client_address(context.peer()))
        return lobby_pb2.SignInResponse(
            player=convert.account_pb(s.player), token=convert.auth_token_pb(s.token, s.expires_at)
        )

    @rpc
    async def RefreshToken(self, request: Any, context: Any) -> lobby_pb2.RefreshTokenResponse:
        s = await self.lobby.accounts.refresh(await self._player(context))
        return lobby_pb2.RefreshTokenResponse(token=convert.auth_token_pb(s.token, s.expires_at))

    @rpc
    async def GetMe(self, request: Any, context: Any) -> lobby_pb2.GetMeResponse:
        p = await self.lobby.accounts.player(await self._player(context))
        return lobby_pb2.GetMeResponse(player=convert.account_pb(p), create_time=convert.ts(p.created_at))

    # -- tables -----------------------------------------------------------------------------------

    @rpc
    async def CreateTable(self, request: lobby_pb2.CreateTableRequest, context: Any) -> Any:
        pid = await self._player(context)
        if not request.HasField("settings"):
            raise LobbyError.settings("settings are required", "settings")
        cfg = convert.config_from_pb(request.settings)

        async def make() -> lobby_pb2.CreateTableResponse:
            t = await self.lobby.table_ops.create(pid, cfg, _seat(request), client_address(context.peer()))
            return lobby_pb2.CreateTableResponse(table=convert.table_pb(t, pid))

        return await self.replay(pid, "CreateTable", request.request_id, lobby_pb2.CreateTableResponse, make)

    @rpc
    async def GetTable(self, request: lobby_pb2.GetTableRequest, context: Any) -> lobby_pb2.GetTableResponse:
        pid = await self._at_table(request, context)
        t = await self.lobby.table_ops.visible(request.table_id, pid, request.invite_code)
        return lobby_pb2.GetTableResponse(table=convert.table_pb(t, pid))

    @rpc
    async def ListTables(
        self, request: lobby_pb2.ListTablesRequest, context: Any
    ) -> lobby_pb2.ListTablesResponse:
        pid = await self._player(context)
        query = convert.table_query(request.filter)
        page = Page(
            request.page_size,
            request.page_token,
            50,
            200,
            request.filter.SerializeToString(deterministic=True),
        )
        cache = self.lobby.cache

        def answer(viewer: str) -> lobby_pb2.ListTablesResponse:
            rows = cache.query(query, viewer)
            return lobby_pb2.ListTablesResponse(
                tables=[self._table_pb(t, viewer) for t in rows[page.offset : page.offset + page.size]],
                next_page_token=page.next_token(page.offset + page.size < len(rows)),
                total_size=len(rows),
            )

        def shared() -> tuple[frozenset[str], bytes]:
            out = answer("")
            return frozenset(t.table_id for t in out.tables), out.SerializeToString()

        # The page as a player seated nowhere sees it, built and serialized once per change of
        # the cache and sent as bytes to every caller who sees it alike: seated at no private
        # table (which only its players list) and at none of the page's tables (where a seated
        # player sees its invite code and seat).
        ids, blob = cache.shared(("ListTables", query, page.key, page.offset, page.size), shared)
        mine = cache.seated_at(pid)
        if any(t.config.private or t.table_id in ids for t in mine):
            return answer(pid)
        return blob

    @rpc
    async def WatchTables(self, request: lobby_pb2.WatchTablesRequest, context: Any) -> AsyncIterator[Any]:
        pid = await self._player(context)
        query = convert.table_query(request.filter)
        cache = self.lobby.cache
        w, initial = cache.watch(query, pid)
        try:
            now = time.time()
            for t in initial:
                yield _change_pb(TableChange(ChangeKind.EXISTING, t, now), convert.table_pb(t, pid))
            yield _change_pb(TableChange(ChangeKind.SYNCED, None, now))
            while True:
                change = await w.queue.get()
                if change is None:
                    if w.overflow:
                        raise LobbyError(
                            Status.RESOURCE_EXHAUSTED, "too slow to keep up: reconnect to start over"
                        )
                    raise LobbyError(Status.UNAVAILABLE, "lobby shutting down: reconnect")
                # the players seated there see their seat (and invite code); every other watcher
                # is sent the same view of a change (built once per table version)
                table = change.table and self._table_pb(change.table, pid)
                yield _change_pb(change, table)
        finally:
            cache.unwatch(w)

    @rpc
    async def JoinTable(
        self, request: lobby_pb2.JoinTableRequest, context: Any
    ) -> lobby_pb2.JoinTableResponse:
        pid = await self._at_table(request, context)

        async def make() -> lobby_pb2.JoinTableResponse:
            t, i = await self.lobby.table_ops.join(request.table_id, pid, _seat(request), request.invite_code)
            return lobby_pb2.JoinTableResponse(table=convert.table_pb(t, pid), seat=i)

        return await self.replay(pid, "JoinTable", request.request_id, lobby_pb2.JoinTableResponse, make)

    @rpc
    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Any
    ) -> lobby_pb2.LeaveTableResponse:
        pid = await self._at_table(request, context)
        t = await self.lobby.table_ops.leave(request.table_id, pid)
        return lobby_pb2.LeaveTableResponse(table=convert.table_pb(t, pid))

    @rpc
    async def SitBot(self, request: lobby_pb2.SitBotRequest, context: Any) -> lobby_pb2.SitBotResponse:
        pid = await self._at_table(request, context)

        async def make() -> lobby_pb2.SitBotResponse:
            t = await self.lobby.table_ops.sit_bot(
                request.table_id, pid, request.bot_level or 3, _seat(request), request.bot_think_ms
            )
            return lobby_pb2.SitBotResponse(table=convert.table_pb(t, pid))

        return await self.replay(pid, "SitBot", request.request_id, lobby_pb2.SitBotResponse, make)

    @rpc
    async def StartTable(
        self, request: lobby_pb2.StartTableRequest, context: Any
    ) -> lobby_pb2.StartTableResponse:
        pid = await self._at_table(request, context)
        t0 = await self.lobby.cache.get(request.table_id)

        async def make() -> lobby_pb2.StartTableResponse:
            t = await self.lobby.table_ops.start(t0, pid)
            return lobby_pb2.StartTableResponse(
                table=convert.table_pb(t, pid),
                assignment=lobby_pb2.MatchAssignment(
                    match_id=t.match_id, address=t.match_address, seat=t.seat_of(pid)
                ),
            )

        return await self.replay(pid, "StartTable", request.request_id, lobby_pb2.StartTableResponse, make)

    # -- quick match ------------------------------------------------------------------------------

    @rpc
    async def QuickMatch(
        self, request: lobby_pb2.QuickMatchRequest, context: Any
    ) -> lobby_pb2.QuickMatchResponse:
        pid = await self._player(context)
        c = request.criteria
        if not c.HasField("ruleset"):
            raise LobbyError.invalid("criteria.ruleset is required", "criteria.ruleset")
        if not 0 <= c.bot_level <= BOT_LEVEL_MAX:
            raise LobbyError.invalid(f"bot_level must be 1..{BOT_LEVEL_MAX} (0 = 3)",
                                     "criteria.bot_level")
        bot_after: float | None = None
        if c.HasField("bot_after"):
            bot_after = c.bot_after.ToNanoseconds() / 1e9
            if not 5 <= bot_after <= 600:
                raise LobbyError.invalid("bot_after must be 5 s .. 10 min", "criteria.bot_after")
        cfg = validate_settings(
            ruleset_id=c.ruleset.ruleset_id,
            language=c.ruleset.language,
            board_id=c.ruleset.board_id,
            seats=c.seats or 2,
            prefix="criteria",
        )

        async def make() -> lobby_pb2.QuickMatchResponse:
            t, waiting = await self.lobby.quickmatch.enqueue(pid, cfg, bot_after, c.bot_level or 3)
            return lobby_pb2.QuickMatchResponse(ticket=convert.ticket_pb(t, waiting))

        return await self.replay(pid, "QuickMatch", request.request_id, lobby_pb2.QuickMatchResponse, make)

    @rpc
    async def GetQuickMatchTicket(self, request: Any, context: Any) -> lobby_pb2.GetQuickMatchTicketResponse:
        pid = await self._player(context)
        check_id(request.ticket_id, "ticket", "ticket_id")
        t, waiting = await self.lobby.quickmatch.get(request.ticket_id, pid)
        return lobby_pb2.GetQuickMatchTicketResponse(ticket=convert.ticket_pb(t, waiting))

    @rpc
    async def WatchQuickMatchTicket(self, request: Any, context: Any) -> AsyncIterator[Any]:
        pid = await self._player(context)
        check_id(request.ticket_id, "ticket", "ticket_id")
        async for t, waiting in self.lobby.quickmatch.watch(request.ticket_id, pid):
            yield lobby_pb2.WatchQuickMatchTicketResponse(ticket=convert.ticket_pb(t, waiting))

    @rpc
    async def CancelQuickMatchTicket(
        self, request: Any, context: Any
    ) -> lobby_pb2.CancelQuickMatchTicketResponse:
        pid = await self._player(context)
        check_id(request.ticket_id, "ticket", "ticket_id")
        t = await self.lobby.quickmatch.cancel(request.ticket_id, pid)
        return lobby_pb2.CancelQuickMatchTicketResponse(ticket=convert.ticket_pb(t))

    # -- matches, records, leaderboards -----------------------------------------------------------

    @rpc
    async def LocateMatch(self, request: lobby_pb2.LocateMatchRequest, context: Any) -> Any:
        pid = await self._player(context)
        check_id(request.match_id, "match", "match_id")
        m, seat = await self.lobby.standings.locate(request.match_id, pid)
        return lobby_pb2.LocateMatchResponse(
            assignment=lobby_pb2.MatchAssignment(match_id=m.id, address=m.address, seat=seat)
        )

    @rpc
    async def GetPlayerRecord(self, request: lobby_pb2.GetPlayerRecordRequest, context: Any) -> Any:
        me = await self._player(context)
        pid = request.player_id or me
        check_id(pid, "player", "player_id")
        if request.ruleset_id:
            resolve_ruleset(request.ruleset_id, prefix="ruleset_id")
        p, records = await self.lobby.standings.records(pid, request.ruleset_id)
        return lobby_pb2.GetPlayerRecordResponse(
            player=convert.account_pb(p), records=[convert.record_pb(rid, r) for rid, r in records]
        )

    @rpc
    async def GetLeaderboard(self, request: lobby_pb2.GetLeaderboardRequest, context: Any) -> Any:
        pid = await self._player(context)
        if request.ruleset_id not in catalog():
            raise LobbyError.invalid("unknown ruleset", "ruleset_id")
        period = request.period or lobby_pb2.LEADERBOARD_PERIOD_ALL_TIME
        if period not in PERIODS:
            raise LobbyError.invalid("unknown period", "period")
        page = Page(request.page_size, request.page_token, 50, 100, request.ruleset_id, period)
        ranked = await self.lobby.standings.leaderboard(request.ruleset_id, PERIODS[period])
        caller = next((e for e in ranked if e.player.id == pid), None)
        return lobby_pb2.GetLeaderboardResponse(  # messages for the page and the caller only
            entries=[_leaderboard_entry(e) for e in ranked[page.offset : page.offset + page.size]],
            next_page_token=page.next_token(page.offset + page.size < len(ranked)),
            caller_entry=_leaderboard_entry(caller) if caller is not None else None,
            total_size=len(ranked),
        )

    @rpc
    async def ListMyMatches(self, request: lobby_pb2.ListMyMatchesRequest, context: Any) -> Any:
        pid = await self._player(context)
        if request.state not in MATCH_STATES:
            raise LobbyError.invalid("unknown state", "state")
        page = Page(request.page_size, request.page_token, 20, 100, request.state)
        rows = await self.lobby.standings.matches(
            pid, MATCH_STATES[request.state], page.offset, page.size + 1
        )
        return lobby_pb2.ListMyMatchesResponse(
            matches=[convert.match_summary_pb(m, seats, seat) for m, seats, seat in rows[: page.size]],
            next_page_token=page.next_token(len(rows) > page.size),
        )

    @rpc
    async def ListRulesets(self, request: Any, context: Any) -> lobby_pb2.ListRulesetsResponse:
        return lobby_pb2.ListRulesetsResponse(
            rulesets=[
                convert.ruleset_summary_pb(rid, resolve_ruleset(rid), langs)
                for rid, langs in catalog().items()
            ]
        )

    @rpc
    async def DescribeRuleset(self, request: lobby_pb2.DescribeRulesetRequest, context: Any) -> Any:
        r = request.ruleset
        rs = resolve_ruleset(r.ruleset_id, r.language, r.board_id, lookup=True)
        return lobby_pb2.DescribeRulesetResponse(
            ruleset=convert.ruleset_description_pb(r.ruleset_id, rs, catalog()[r.ruleset_id])
        )


def _leaderboard_entry(e: Standing) -> lobby_pb2.LeaderboardEntry:
    return lobby_pb2.LeaderboardEntry(rank=e.rank, player=convert.account_pb(e.player),
                                      record=convert.record_pb("", e.record))
