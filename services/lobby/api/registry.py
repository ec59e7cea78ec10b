"""MatchRegistryService (match servers → lobby), service-authenticated: registration, heartbeats,
match take-overs and results."""

from __future__ import annotations

import hashlib
import time
from typing import Any
from urllib.parse import urlsplit

from wordarena.services.common.authn import BearerAuth
from wordarena.services.lobby import convert
from wordarena.services.lobby.api.errors import rpc
from wordarena.services.lobby.api.requests import check_id
from wordarena.services.lobby.app import Lobby
from wordarena.services.lobby.errors import LobbyError
from wordarena.services.lobby.records import SeatEnd
from wordarena.services.lobby.registry import Load
from wordarena.services.lobby.settings import resolve_ruleset
from wordarena.services.lobby.standings import MatchReport
from wordarena.v1 import common_pb2, control_pb2, control_pb2_grpc

__all__ = ["RegistryServicer"]


def _load(load: control_pb2.ServerLoad) -> Load:
    if load.capacity < 0 or load.active_matches < 0 or load.capacity > 1_000_000:
        raise LobbyError.invalid("bad capacity or load", "load")
    return Load(load.capacity, load.active_matches, load.draining)


def _check_server_id(server_id: str) -> None:
    """A match server's id: 1..128 characters (the length its rows store)."""
    if not server_id or len(server_id) > 128:
        raise LobbyError.invalid("server_id is required (1..128 characters)", "server_id")


def _check_address(address: str) -> None:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536 or len(address) > 256:
        raise LobbyError.invalid("address must be host:port", "address")


def _check_web_url(url: str) -> None:
    """A match server's web URL: empty, or http(s)://host[:port][/path], at most 256 characters."""
    if not url:
        return
    parts = urlsplit(url)
    if len(url) > 256 or parts.scheme not in ("http", "https") or not parts.hostname or parts.query \
            or parts.fragment:
        raise LobbyError.invalid("web_url must be http(s)://host[:port][/path] (256 characters)", "web_url")


def _report(request: control_pb2.ReportResultRequest) -> MatchReport:
    """The result a match server reports, checked for shape (the outcomes are the lobby's to
    decide or check)."""
    check_id(request.match_id, "match", "match_id")
    _check_server_id(request.server_id)
    if not 2 <= len(request.seats) <= 4:
        raise LobbyError.invalid("a result has 2..4 seats", "seats")
    if sorted(s.seat for s in request.seats) != list(range(len(request.seats))):
        raise LobbyError.invalid("seats must be 0..n-1, each once", "seats")
    resolve_ruleset(request.ruleset.ruleset_id, request.ruleset.language, request.ruleset.board_id)
    ordered = sorted(request.seats, key=lambda s: s.seat)
    for s in ordered:
        if s.status not in convert.SEAT_STATUS_FROM_PB or (
            s.outcome and s.outcome not in convert.OUTCOME_FROM_PB
        ):
            raise LobbyError.invalid("unknown seat status or outcome", "seats")
        if not s.player_id or len(s.player_id) > 64:
            raise LobbyError.invalid("seat player_id is required", "seats")
    # The fingerprint of the result, by which a repeat is told from a conflicting report.
    digest = hashlib.sha256(
        control_pb2.ReportResultRequest(
            match_id=request.match_id,
            ruleset=request.ruleset,
            reason=request.reason,
            seats=request.seats,
            unrated=request.unrated,
        ).SerializeToString(deterministic=True)
    ).hexdigest()
    end = request.end_time.ToNanoseconds() / 1e9 if request.HasField("end_time") else time.time()
    return MatchReport(
        match_id=request.match_id,
        ruleset_id=request.ruleset.ruleset_id,
        language=request.ruleset.language,
        board_id=request.ruleset.board_id,
        server_id=request.server_id,
        seats=[
            SeatEnd(
                seat=s.seat,
                player_id=s.player_id,
                score=s.final_score,
                status=convert.SEAT_STATUS_FROM_PB[s.status],
                left_in_first_round=s.outcome == common_pb2.OUTCOME_NO_RESULT,
                score_counts=s.score_counts,
            )
            for s in ordered
        ],
        status_codes=[s.status for s in ordered],
        outcomes=None
        if all(s.outcome == 0 for s in ordered)
        else [convert.OUTCOME_FROM_PB.get(s.outcome) for s in ordered],
        ended_by_kick=any(s.status == common_pb2.SEAT_STATUS_KICKED for s in ordered),
        aborted=request.reason == common_pb2.GAME_OVER_REASON_ABORTED,
        unrated=request.unrated,
        reason=request.reason,
        start=request.start_time.ToNanoseconds() / 1e9 if request.HasField("start_time") else None,
        end=end,
        digest=digest,
        no_show=tuple(s.seat for s in ordered if s.no_show),
    )


class RegistryServicer(control_pb2_grpc.MatchRegistryServiceServicer):
    """The match servers' service."""

    def __init__(self, lobby: Lobby, authn: BearerAuth) -> None:
        self.lobby = lobby
        self.authn = authn

    @rpc
    async def RegisterMatchServer(self, request: control_pb2.RegisterMatchServerRequest, context: Any) -> Any:
        self.authn.service(context)
        _check_server_id(request.server_id)
        _check_address(request.address)
        _check_web_url(request.web_url)
        await self.lobby.registry.register(
            request.server_id, request.address, request.version, _load(request.load), request.web_url
        )
        return control_pb2.RegisterMatchServerResponse(
            heartbeat_interval=convert.dur(self.lobby.opt.heartbeat_interval_s),
            server_ttl=convert.dur(self.lobby.opt.server_ttl_s),
        )

    @rpc
    async def Heartbeat(self, request: control_pb2.HeartbeatRequest, context: Any) -> Any:
        self.authn.service(context)
        _check_server_id(request.server_id)
        if request.address:
            _check_address(request.address)
        due = await self.lobby.registry.heartbeat(request.server_id, request.address, _load(request.load))
        return control_pb2.HeartbeatResponse(next_heartbeat_due=convert.ts(due))

    @rpc
    async def ReportMatchLocation(self, request: control_pb2.ReportMatchLocationRequest, context: Any) -> Any:
        self.authn.service(context)
        check_id(request.match_id, "match", "match_id")
        _check_server_id(request.server_id)
        _check_address(request.address)
        await self.lobby.registry.match_moved(request.match_id, request.server_id, request.address)
        return control_pb2.ReportMatchLocationResponse()

    @rpc
    async def ReportResult(self, request: control_pb2.ReportResultRequest, context: Any) -> Any:
        self.authn.service(context)
        already = await self.lobby.standings.report(_report(request))
        return control_pb2.ReportResultResponse(already_recorded=already)
