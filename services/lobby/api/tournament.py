"""TournamentService (clients): each handler authenticates, reads the request into domain values,
makes one call into ``Lobby.tournaments`` (or ``Lobby.directors``) and builds the answer."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc

from wordarena.services.common.authn import BearerAuth
from wordarena.services.common.ratelimit import client_address
from wordarena.services.lobby.api import tournament_convert as tc
from wordarena.services.lobby.api.errors import rpc
from wordarena.services.lobby.api.requests import Page, check_id
from wordarena.services.lobby.app import Lobby
from wordarena.services.lobby.errors import LobbyError
from wordarena.services.lobby.tournaments.archive import EXPORT_CHUNK, chunks, standings_csv
from wordarena.services.lobby.tournaments.entities import GameKey
from wordarena.services.lobby.tournaments.export import export_games
from wordarena.v1 import tournament_pb2 as pb
from wordarena.v1 import tournament_pb2_grpc

__all__ = ["TournamentServicer"]


def _key(ref: pb.GameRef) -> GameKey:
    if ref.round < 1 or ref.pairing < 0 or ref.game < 0:
        raise LobbyError.not_found("no such game", "game")
    return (ref.division, ref.round, ref.pairing, ref.game)


def _unavailable(items: Sequence[tuple[GameKey, str]]) -> list[pb.UnavailableRecord]:
    return [
        pb.UnavailableRecord(game=pb.GameRef(division=d, round=r, pairing=p, game=g), reason=why)
        for (d, r, p, g), why in items
    ]


class TournamentServicer(tournament_pb2_grpc.TournamentServiceServicer):
    """The clients' tournament service."""

    def __init__(self, lobby: Lobby, authn: BearerAuth) -> None:
        self.lobby = lobby
        self.t = lobby.tournaments
        self.d = lobby.directors
        self.authn = authn

    def _player(self, request: Any, context: grpc.aio.ServicerContext) -> str:
        """The calling player's id; checks the request's tournament id when it has one."""
        claims = self.authn.player(context)
        self.lobby.accounts.seen(claims.player_id)
        if hasattr(request, "tournament_id"):
            check_id(request.tournament_id, "tournament", "tournament_id")
        return claims.player_id

    @rpc
    async def CreateTournament(self, request: pb.CreateTournamentRequest, context: Any) -> Any:
        pid = self._player(request, context)
        t = await self.t.create(pid, tc.config_from_pb(request.settings), client_address(context.peer()))
        return pb.CreateTournamentResponse(tournament=tc.tournament_pb(t))

    @rpc
    async def GetTournament(self, request: pb.GetTournamentRequest, context: Any) -> Any:
        self._player(request, context)
        return pb.GetTournamentResponse(state=tc.state_pb(await self.t.state(request.tournament_id)))

    @rpc
    async def ListTournaments(self, request: pb.ListTournamentsRequest, context: Any) -> Any:
        pid = self._player(request, context)
        if request.status and request.status not in tc.STATUS_FROM_PB:
            raise LobbyError.invalid("unknown status", "status")
        page = Page(request.page_size, request.page_token, 50, 100, "ListTournaments", pid,
                    request.status, request.invited)
        invited = pid if request.invited else ""
        rows = await self.t.list(tc.STATUS_FROM_PB.get(request.status), page.offset, page.size + 1, invited)
        return pb.ListTournamentsResponse(tournaments=[tc.tournament_pb(t) for t in rows[: page.size]],
                                          next_page_token=page.next_token(len(rows) > page.size))

    @rpc
    async def WatchTournament(self, request: pb.WatchTournamentRequest, context: Any) -> AsyncIterator[Any]:
        self._player(request, context)
        kind = pb.TOURNAMENT_UPDATE_KIND_SNAPSHOT
        async for st in self.t.watch(request.tournament_id):
            yield pb.WatchTournamentResponse(kind=kind, state=tc.state_pb(st))
            kind = pb.TOURNAMENT_UPDATE_KIND_CHANGED

    @rpc
    async def GetStandings(self, request: pb.GetStandingsRequest, context: Any) -> Any:
        self._player(request, context)
        st = await self.t.state(request.tournament_id)
        name = st.tournament.config.division(request.division).name
        names = {e.entrant_id: e.display_name for e in st.entrants}
        rows = dict(st.standings)[name]
        return pb.GetStandingsResponse(standings=tc.standings_pb(name, rows, names, st.ratings))

    @rpc
    async def ExportStandings(self, request: pb.ExportStandingsRequest, context: Any) -> Any:
        self._player(request, context)
        st = await self.t.state(request.tournament_id)
        names = {e.entrant_id: e.display_name for e in st.entrants}
        return pb.ExportStandingsResponse(csv=standings_csv(st.standings, names))

    @rpc
    async def ExportGames(self, request: pb.ExportGamesRequest, context: Any) -> Any:
        pid = self._player(request, context)
        out = await export_games(self.t, self.lobby.allocator.control, request.tournament_id, pid)
        return pb.ExportGamesResponse(
            zip=out.zip,
            games=out.games,
            withheld=out.withheld,
            unavailable=_unavailable(out.unavailable),
        )

    @rpc
    async def ExportGamesStream(
        self, request: pb.ExportGamesStreamRequest, context: Any
    ) -> AsyncIterator[Any]:
        pid = self._player(request, context)
        out = await export_games(self.t, self.lobby.allocator.control, request.tournament_id, pid)
        first = True
        for offset, chunk in chunks(out.zip, EXPORT_CHUNK):
            msg = pb.ExportGamesStreamResponse(offset=offset, chunk=chunk)
            if first:  # the counts, the size and the checksum ride on the first piece
                msg.games, msg.withheld, msg.total_size = out.games, out.withheld, len(out.zip)
                msg.sha256 = hashlib.sha256(out.zip).hexdigest()
                msg.unavailable.extend(_unavailable(out.unavailable))
                first = False
            yield msg

    @rpc
    async def Register(self, request: pb.RegisterRequest, context: Any) -> Any:
        pid = self._player(request, context)
        return pb.RegisterResponse(entrant=tc.entrant_pb(await self.t.register(request.tournament_id, pid)))

    @rpc
    async def Unregister(self, request: pb.UnregisterRequest, context: Any) -> Any:
        pid = self._player(request, context)
        await self.t.unregister(request.tournament_id, pid)
        return pb.UnregisterResponse()

    @rpc
    async def CheckIn(self, request: pb.CheckInRequest, context: Any) -> Any:
        pid = self._player(request, context)
        return pb.CheckInResponse(entrant=tc.entrant_pb(await self.t.check_in(request.tournament_id, pid)))

    @rpc
    async def AddDirector(self, request: pb.AddDirectorRequest, context: Any) -> Any:
        pid = self._player(request, context)
        check_id(request.player_id, "player", "player_id")
        t = await self.d.add_director(request.tournament_id, pid, request.player_id)
        return pb.AddDirectorResponse(tournament=tc.tournament_pb(t))

    @rpc
    async def StartTournament(self, request: pb.StartTournamentRequest, context: Any) -> Any:
        pid = self._player(request, context)
        return pb.StartTournamentResponse(
            tournament=tc.tournament_pb(await self.d.start(request.tournament_id, pid))
        )

    @rpc
    async def PauseTournament(self, request: pb.PauseTournamentRequest, context: Any) -> Any:
        pid = self._player(request, context)
        return pb.PauseTournamentResponse(
            tournament=tc.tournament_pb(await self.d.pause(request.tournament_id, pid))
        )

    @rpc
    async def ResumeTournament(self, request: pb.ResumeTournamentRequest, context: Any) -> Any:
        pid = self._player(request, context)
        t = await self.d.resume(request.tournament_id, pid)
        return pb.ResumeTournamentResponse(tournament=tc.tournament_pb(t))

    @rpc
    async def EndTournament(self, request: pb.EndTournamentRequest, context: Any) -> Any:
        pid = self._player(request, context)
        return pb.EndTournamentResponse(
            tournament=tc.tournament_pb(await self.d.end(request.tournament_id, pid))
        )

    @rpc
    async def PairRound(self, request: pb.PairRoundRequest, context: Any) -> Any:
        pid = self._player(request, context)
        pairs = [(p.first_entrant_id, p.second_entrant_id or None) for p in request.pairings]
        games = await self.d.pair_round(request.tournament_id, pid, request.division, pairs)
        return pb.PairRoundResponse(games=[tc.game_pb(g) for g in games])

    @rpc
    async def SetResult(self, request: pb.SetResultRequest, context: Any) -> Any:
        pid = self._player(request, context)
        if request.first_result and request.first_result not in tc.SIDE_FROM_PB:
            raise LobbyError.invalid("unknown result", "first_result")
        g = await self.d.set_result(
            request.tournament_id,
            pid,
            _key(request.game),
            request.first_score,
            request.second_score,
            tc.SIDE_FROM_PB.get(request.first_result),
            request.reason,
        )
        return pb.SetResultResponse(game=tc.game_pb(g))

    @rpc
    async def AwardForfeit(self, request: pb.AwardForfeitRequest, context: Any) -> Any:
        pid = self._player(request, context)
        g = await self.d.forfeit(
            request.tournament_id, pid, _key(request.game), request.winner_entrant_id, request.reason
        )
        return pb.AwardForfeitResponse(game=tc.game_pb(g))

    @rpc
    async def AddEntrant(self, request: pb.AddEntrantRequest, context: Any) -> Any:
        pid = self._player(request, context)
        e = await self.d.add_entrant(
            request.tournament_id, pid, request.player_id, request.bot_level, request.division
        )
        return pb.AddEntrantResponse(entrant=tc.entrant_pb(e))

    @rpc
    async def RemoveEntrant(self, request: pb.RemoveEntrantRequest, context: Any) -> Any:
        pid = self._player(request, context)
        check_id(request.entrant_id, "entrant", "entrant_id")
        e = await self.d.remove_entrant(request.tournament_id, pid, request.entrant_id, request.reason)
        return pb.RemoveEntrantResponse(entrant=tc.entrant_pb(e))
