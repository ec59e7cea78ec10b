"""gRPC servicer of MatchControlService (lobby → match server): create, abort, load and drain,
service-authenticated (``services.common.authn``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from wordarena.engine.errors import EngineError
from wordarena.services.common import logs
from wordarena.services.common.authn import BearerAuth
from wordarena.services.common.errors import invalid_argument, rpc
from wordarena.services.match.manager import MatchManager
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import control_pb2_grpc as ctl_grpc

log = logs.get_logger(__name__)


class ControlServicer(ctl_grpc.MatchControlServiceServicer):
    """MatchControlService (lobby → match server), service-authenticated."""

    def __init__(
        self, manager: MatchManager, authn: BearerAuth, on_drain: Callable[[bool], Awaitable[int]]
    ) -> None:
        self.manager = manager
        self.authn = authn
        self.on_drain = on_drain

    @rpc
    async def CreateMatch(self, request: ctl.CreateMatchRequest, context: Any) -> ctl.CreateMatchResponse:
        self.authn.service(context)
        try:
            return await self.manager.create(request)
        except EngineError as exc:
            raise invalid_argument("ruleset", str(exc)) from exc

    @rpc
    async def AbortMatch(self, request: ctl.AbortMatchRequest, context: Any) -> ctl.AbortMatchResponse:
        who = self.authn.service(context)
        log.info("AbortMatch", caller=who, reason=request.reason[:200])
        return await self.manager.abort(request.match_id, request.reason)

    @rpc
    async def GetLoad(self, request: ctl.GetLoadRequest, context: Any) -> ctl.GetLoadResponse:
        self.authn.service(context)
        return ctl.GetLoadResponse(load=self.manager.load_pb())

    @rpc
    async def Drain(self, request: ctl.DrainRequest, context: Any) -> ctl.DrainResponse:
        self.authn.service(context)
        remaining = await self.on_drain(request.release_matches)
        return ctl.DrainResponse(remaining_matches=remaining)
