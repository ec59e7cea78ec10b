"""The lobby's client of ``MatchControlService``: how it asks match servers to create and abort
matches (and reads a finished match's record from ``MatchService.GetMatchRecord``). The one
place outside the servicers that speaks gRPC; failures come back as
``ControlCallFailed`` (a status name, its details, and where the match moved, if it did), so the
allocation logic stays free of gRPC."""

from __future__ import annotations

import time

import grpc

from wordarena.services.common import auth
from wordarena.services.common.errors import detail
from wordarena.services.lobby import convert
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.lobby.settings import TableConfig
from wordarena.services.lobby.tables import Occupant
from wordarena.v1 import control_pb2, control_pb2_grpc, errors_pb2, match_pb2, match_pb2_grpc

__all__ = ["ControlCallFailed", "MatchControl"]


class ControlCallFailed(Exception):
    """A MatchControl call failed: ``code`` the gRPC status name, ``details`` its message,
    ``moved_to`` the match's new address when the server answered ``MatchMoved``."""

    def __init__(self, code: str, details: str, moved_to: str = "") -> None:
        super().__init__(f"{code} {details}")
        self.code = code
        self.details = details
        self.moved_to = moved_to


class MatchControl:
    """Calls ``MatchControlService`` on match servers with the lobby's service credentials (one
    channel per address, kept until ``close``)."""

    def __init__(self, keys: auth.TokenKeys, options: LobbyOptions) -> None:
        self.keys = keys
        self.opt = options
        self._channels: dict[str, grpc.aio.Channel] = {}
        self._service_token: tuple[str, float] = ("", 0.0)

    def service_token(self) -> str:
        """The bearer token the lobby presents to match servers (the shared secret, or a service
        token renewed a minute before it expires)."""
        if self.opt.service_secret:
            return self.opt.service_secret
        tok, exp = self._service_token
        if exp - time.time() < 60:
            tok = self.keys.issue("lobby", "lobby", self.opt.service_token_ttl_s, kind="service")
            self._service_token = (tok, time.time() + self.opt.service_token_ttl_s)
        return tok

    def _channel(self, address: str) -> grpc.aio.Channel:
        ch = self._channels.get(address)
        if ch is None:
            ch = grpc.aio.insecure_channel(address)
            self._channels[address] = ch
        return ch

    def _stub(self, address: str) -> control_pb2_grpc.MatchControlServiceStub:
        return control_pb2_grpc.MatchControlServiceStub(self._channel(address))

    def _metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.service_token()}"),)

    async def create_match(
        self, address: str, match_id: str, cfg: TableConfig, occupants: list[Occupant], table_id: str,
        timeout: float = 0.0,
    ) -> str:
        """``CreateMatch`` on the server at ``address``; returns the address the server gives for
        the match ("" when it gave none)."""
        seats = [
            control_pb2.SeatAssignment(index=i, bot_level=o.bot_level,
                                       bot_think_ms=o.think_ms or cfg.bot_think_ms)
            if o.is_bot
            else control_pb2.SeatAssignment(index=i, player=convert.player_pb(o))
            for i, o in enumerate(occupants)
        ]
        req = control_pb2.CreateMatchRequest(
            match_id=match_id,
            ruleset=convert.ruleset_ref(cfg.ruleset_id, cfg.language, cfg.board_id),
            seats=seats,
            options=convert.options_pb(cfg),
            table_id=table_id,
        )
        try:
            resp = await self._stub(address).CreateMatch(
                req, metadata=self._metadata(), timeout=timeout or self.opt.create_match_timeout_s
            )
        except grpc.aio.AioRpcError as exc:
            raise ControlCallFailed(exc.code().name, exc.details() or "") from exc
        return str(resp.address)

    async def abort_match(self, address: str, match_id: str, reason: str) -> bool:
        """``AbortMatch`` on the server at ``address``; returns whether it was aborted already."""
        req = control_pb2.AbortMatchRequest(match_id=match_id, reason=reason)
        try:
            resp = await self._stub(address).AbortMatch(
                req, metadata=self._metadata(), timeout=self.opt.create_match_timeout_s
            )
        except grpc.aio.AioRpcError as exc:
            moved = detail(exc, errors_pb2.MatchMoved)
            raise ControlCallFailed(
                exc.code().name, exc.details() or "", moved.new_address if moved is not None else ""
            ) from exc
        return bool(resp.already_aborted)

    async def match_record(self, address: str, match_id: str) -> str:
        """The GCG record of a finished match (``MatchService.GetMatchRecord`` with the lobby's
        service credentials, which match servers accept for finished matches only)."""
        req = match_pb2.GetMatchRecordRequest(match_id=match_id)
        try:
            resp = await match_pb2_grpc.MatchServiceStub(self._channel(address)).GetMatchRecord(
                req, metadata=self._metadata(), timeout=self.opt.create_match_timeout_s
            )
        except grpc.aio.AioRpcError as exc:
            raise ControlCallFailed(exc.code().name, exc.details() or "") from exc
        return str(resp.gcg)

    async def close(self) -> None:
        """Closes the channels."""
        for ch in self._channels.values():
            await ch.close()
        self._channels.clear()
