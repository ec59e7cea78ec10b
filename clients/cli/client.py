"""The reference client library: talks to the lobby and match servers through the public contract.

Everything here goes through ``wordarena.v1``; nothing imports server code.

* :class:`Config` — the signed-in identity per lobby, in ``$WORDARENA_CONFIG`` or
  ``~/.config/wordarena/config.json``.
* :class:`Client` — channels, ``authorization: Bearer`` metadata, typed wrappers for the lobby and
  match RPCs, transparent reconnection when a match moves (``MatchMoved`` / ``LocateMatch``).
* :class:`ClientError` / :func:`explain_rpc_error` (from :mod:`clients.cli.errors`) — a gRPC
  failure in plain words, with the exit code the scripting commands return (:data:`EXIT_OK` …).
* :meth:`Client.follow` — a stream consumer that reconnects and resumes with ``after_seq``.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from wordarena.clients.cli.config import Config, Profile, config_path
from wordarena.clients.cli.errors import (
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
    ClientError,
    explain_rpc_error,
    explain_rule_violation,
    rule_name,
)
from wordarena.v1 import (
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    match_pb2,
    match_pb2_grpc,
    tournament_pb2_grpc,
)

__all__ = ["EXIT_OK", "EXIT_REFUSED", "EXIT_UNREACHABLE", "EXIT_USAGE", "Client", "ClientError",
           "Config", "Profile", "config_path", "explain_rpc_error", "explain_rule_violation",
           "rule_name", "to_dict"]

DEFAULT_LOBBY = "127.0.0.1:50051"
DEFAULT_TIMEOUT = 10.0


def default_lobby() -> str:
    """The lobby address: ``$WORDARENA_LOBBY`` or ``127.0.0.1:50051``."""
    return os.environ.get("WORDARENA_LOBBY") or DEFAULT_LOBBY


def new_request_id() -> str:
    """A fresh idempotency key."""
    return uuid.uuid4().hex


# --------------------------------------------------------------------------------------------
# The client
# --------------------------------------------------------------------------------------------


def to_dict(message: Message) -> dict[str, Any]:
    """A protobuf message as JSON-ready data (field names as in the .proto)."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


Notice = Callable[[str], None]


class Client:
    """A signed-in (or not yet) client of one lobby and the match servers it points to."""

    def __init__(self, lobby: str | None = None, *, config: Config | None = None,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        self.lobby_address = lobby or default_lobby()
        self.config = config or Config.load()
        self.timeout = timeout
        self._channels: dict[str, grpc.Channel] = {}

    # -- plumbing -----------------------------------------------------------------------------

    @property
    def profile(self) -> Profile:
        """The remembered identity for this lobby."""
        return self.config.profile(self.lobby_address)

    def channel(self, address: str) -> grpc.Channel:
        """A (cached) insecure channel to ``address``."""
        ch = self._channels.get(address)
        if ch is None:
            ch = grpc.insecure_channel(address, options=[
                ("grpc.max_receive_message_length", 16 * 1024 * 1024),
                ("grpc.enable_retries", 1),
            ])
            self._channels[address] = ch
        return ch

    def close(self) -> None:
        """Close every channel."""
        for ch in self._channels.values():
            ch.close()
        self._channels.clear()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def metadata(self) -> list[tuple[str, str]]:
        """``authorization: Bearer <token>`` when signed in."""
        token = self.profile.token
        return [("authorization", f"Bearer {token}")] if token else []

    @property
    def lobby(self) -> lobby_pb2_grpc.LobbyServiceStub:
        """The lobby stub."""
        return lobby_pb2_grpc.LobbyServiceStub(self.channel(self.lobby_address))

    @property
    def tournaments(self) -> tournament_pb2_grpc.TournamentServiceStub:
        """The lobby's tournament stub."""
        return tournament_pb2_grpc.TournamentServiceStub(self.channel(self.lobby_address))

    def _call(self, method: Callable[..., Any], request: Message, *, timeout: float | None = None) -> Any:
        try:
            return method(request, metadata=self.metadata(), timeout=timeout or self.timeout)
        except grpc.RpcError as err:
            raise explain_rpc_error(err) from err

    #: One call with the player's token; failures become a ``ClientError`` in plain words.
    call = _call

    # -- identity -----------------------------------------------------------------------------

    def sign_in_guest(self, name: str) -> common_pb2.Player:
        """Sign in as a new guest and remember the token in the config file."""
        resp = self._call(self.lobby.SignInGuest, lobby_pb2.SignInGuestRequest(display_name=name))
        self._remember(resp.player, resp.token)
        return resp.player

    def sign_in(self, name: str, password: str) -> common_pb2.Player:
        """Sign in to a claimed account and remember the token."""
        resp = self._call(self.lobby.SignIn, lobby_pb2.SignInRequest(name=name, password=password))
        self._remember(resp.player, resp.token)
        return resp.player

    def _remember(self, player: common_pb2.Player, token: lobby_pb2.AuthToken) -> None:
        prof = self.profile
        prof.player_id = player.player_id
        prof.display_name = player.display_name
        prof.token = token.token
        prof.expire_time = token.expire_time.ToJsonString() if token.HasField("expire_time") else ""
        self.config.save()

    def ensure_signed_in(self, name: str | None = None) -> Profile:
        """Use the remembered token if it still works, else sign in as a new guest."""
        if self.profile.token:
            try:
                me = self._call(self.lobby.GetMe, lobby_pb2.GetMeRequest())
                if not name or me.player.display_name == name:
                    return self.profile
            except ClientError as exc:
                if exc.exit_code == EXIT_UNREACHABLE:
                    raise
        base = name or f"guest-{uuid.uuid4().hex[:6]}"
        for attempt in range(5):
            candidate = base if attempt == 0 else f"{base[:19]}-{uuid.uuid4().hex[:4]}"
            try:
                self.sign_in_guest(candidate)
                return self.profile
            except ClientError as exc:
                if exc.rule != "NAME_TAKEN" or name:
                    raise
        raise ClientError("Could not find a free guest name", EXIT_REFUSED)

    def signed_in_as(self, name: str) -> common_pb2.Player | None:
        """The remembered player when its token still works and its display name is ``name``
        (letter case aside): ``login --name NAME`` run again signs nobody new in."""
        if not self.profile.token:
            return None
        try:
            me = self.me()
        except ClientError as exc:
            if exc.exit_code == EXIT_UNREACHABLE:
                raise
            return None
        return me.player if me.player.display_name.casefold() == name.casefold() else None

    def require_signed_in(self) -> Profile:
        """The remembered identity. Scripting commands never sign in by themselves (a command run
        without ``login`` would act as a stranger): without a token they stop here."""
        if not self.profile.token:
            raise ClientError(f"Not signed in at {self.lobby_address}: run `wordarena login "
                              f"--name NAME` first (identity kept in {self.config.path})", EXIT_REFUSED)
        return self.profile

    def me(self) -> lobby_pb2.GetMeResponse:
        """The caller's identity (GetMe)."""
        return self._call(self.lobby.GetMe, lobby_pb2.GetMeRequest())

    # -- lobby --------------------------------------------------------------------------------

    def create_table(self, settings: lobby_pb2.TableSettings, seat: int | None = None) -> lobby_pb2.Table:
        """CreateTable; the caller becomes host and sits down."""
        req = lobby_pb2.CreateTableRequest(settings=settings, request_id=new_request_id())
        if seat is not None:
            req.seat = seat
        return self._call(self.lobby.CreateTable, req).table

    def list_tables(self, filter_: lobby_pb2.TableFilter | None = None,
                    page_size: int = 0) -> list[lobby_pb2.Table]:
        """ListTables, every page."""
        out: list[lobby_pb2.Table] = []
        token = ""
        while True:
            resp = self._call(self.lobby.ListTables, lobby_pb2.ListTablesRequest(
                filter=filter_ or lobby_pb2.TableFilter(), page_size=page_size, page_token=token))
            out.extend(resp.tables)
            token = resp.next_page_token
            if not token or page_size:
                return out

    def get_table(self, table_id: str) -> lobby_pb2.Table:
        """GetTable."""
        return self._call(self.lobby.GetTable, lobby_pb2.GetTableRequest(table_id=table_id)).table

    def join_table(self, table_id: str, invite_code: str = "",
                   seat: int | None = None) -> lobby_pb2.JoinTableResponse:
        """JoinTable."""
        req = lobby_pb2.JoinTableRequest(table_id=table_id, invite_code=invite_code,
                                         request_id=new_request_id())
        if seat is not None:
            req.seat = seat
        return self._call(self.lobby.JoinTable, req)

    def sit_bot(self, table_id: str, level: int, seat: int | None = None) -> lobby_pb2.Table:
        """SitBot."""
        req = lobby_pb2.SitBotRequest(table_id=table_id, bot_level=level, request_id=new_request_id())
        if seat is not None:
            req.seat = seat
        return self._call(self.lobby.SitBot, req).table

    def start_table(self, table_id: str, *, request_id: str | None = None,
                    timeout: float | None = None) -> lobby_pb2.StartTableResponse:
        """StartTable (a retry passes the first try's ``request_id``; the lobby allocates the match
        within the call, so a caller with a short default timeout may give it a longer one)."""
        return self._call(self.lobby.StartTable, lobby_pb2.StartTableRequest(
            table_id=table_id, request_id=request_id or new_request_id()), timeout=timeout)

    def wait_for_match(self, table_id: str, timeout: float = 60.0,
                       on_wait: Callable[[lobby_pb2.Table], None] | None = None) -> lobby_pb2.MatchAssignment:
        """Poll the table until its match has started; returns where to play."""
        deadline = time.monotonic() + timeout
        while True:
            table = self.get_table(table_id)
            if table.match.match_id:
                self.remember_match(table.match)
                return table.match
            if table.status == lobby_pb2.TABLE_STATUS_CLOSED:
                raise ClientError(f"Table {table_id} closed without a match", EXIT_REFUSED)
            if time.monotonic() > deadline:
                raise ClientError(f"Table {table_id} did not start within {timeout:.0f} s", EXIT_REFUSED)
            if on_wait:
                on_wait(table)
            time.sleep(0.5)

    def quick_match(self, criteria: lobby_pb2.QuickMatchCriteria) -> lobby_pb2.QuickMatchTicket:
        """QuickMatch: enqueue and return the ticket."""
        return self._call(self.lobby.QuickMatch, lobby_pb2.QuickMatchRequest(
            criteria=criteria, request_id=new_request_id())).ticket

    def wait_for_ticket(self, ticket_id: str, timeout: float = 600.0) -> lobby_pb2.QuickMatchTicket:
        """Poll a ticket (once a second) until it is no longer queued."""
        deadline = time.monotonic() + timeout
        while True:
            ticket = self._call(self.lobby.GetQuickMatchTicket,
                                lobby_pb2.GetQuickMatchTicketRequest(ticket_id=ticket_id)).ticket
            if ticket.status != lobby_pb2.TICKET_STATUS_QUEUED:
                if ticket.assignment.match_id:
                    self.remember_match(ticket.assignment)
                return ticket
            if time.monotonic() > deadline:
                return ticket
            time.sleep(1.0)

    def cancel_ticket(self, ticket_id: str) -> lobby_pb2.QuickMatchTicket:
        """CancelQuickMatchTicket."""
        return self._call(self.lobby.CancelQuickMatchTicket,
                          lobby_pb2.CancelQuickMatchTicketRequest(ticket_id=ticket_id)).ticket

    def leaderboard(self, ruleset_id: str, period: int = 0,
                    page_size: int = 0) -> lobby_pb2.GetLeaderboardResponse:
        """GetLeaderboard (first page)."""
        return self._call(self.lobby.GetLeaderboard, lobby_pb2.GetLeaderboardRequest(
            ruleset_id=ruleset_id, period=period, page_size=page_size))  # type: ignore[arg-type]

    def my_matches(self, state: int = 0, page_size: int = 0) -> list[lobby_pb2.MatchSummary]:
        """ListMyMatches (first page)."""
        return list(self._call(self.lobby.ListMyMatches, lobby_pb2.ListMyMatchesRequest(
            state=state, page_size=page_size)).matches)  # type: ignore[arg-type]

    def locate(self, match_id: str) -> str:
        """LocateMatch → the match server's address (remembered)."""
        a = self._call(self.lobby.LocateMatch, lobby_pb2.LocateMatchRequest(match_id=match_id)).assignment
        self.remember_match(a)
        return a.address

    def remember_match(self, assignment: lobby_pb2.MatchAssignment) -> None:
        """Remember where a match is played."""
        if (assignment.match_id and assignment.address
                and self.profile.matches.get(assignment.match_id) != assignment.address):
            self.profile.matches[assignment.match_id] = assignment.address
            self.config.save()

    # -- match servers ------------------------------------------------------------------------

    def match_address(self, match_id: str) -> str:
        """Where ``match_id`` is played: remembered, else asked of the lobby."""
        return self.profile.matches.get(match_id) or self.locate(match_id)

    def match_stub(self, match_id: str) -> match_pb2_grpc.MatchServiceStub:
        """A MatchService stub for the server that owns ``match_id``."""
        return match_pb2_grpc.MatchServiceStub(self.channel(self.match_address(match_id)))

    def relocate(self, match_id: str, exc: ClientError) -> bool:
        """Follow a MatchMoved error; True when there is a new address to retry at."""
        if exc.new_address is None and exc.exit_code != EXIT_UNREACHABLE:
            return False
        old = self.profile.matches.get(match_id)
        if exc.new_address:
            self.profile.matches[match_id] = exc.new_address
            self.config.save()
        else:
            try:
                self.profile.matches.pop(match_id, None)
                self.locate(match_id)
            except ClientError:
                if old:
                    self.profile.matches[match_id] = old
                return False
        return self.profile.matches.get(match_id) != old

    def match_call(self, match_id: str, rpc: str, request: Message, *, timeout: float | None = None) -> Any:
        """Call ``MatchService.<rpc>`` for ``match_id``, following the match if it moved."""
        for attempt in range(3):
            stub = self.match_stub(match_id)
            try:
                return self._call(getattr(stub, rpc), request, timeout=timeout)
            except ClientError as exc:
                if attempt < 2 and self.relocate(match_id, exc):
                    continue
                raise
        raise AssertionError("unreachable")

    def get_match(self, match_id: str) -> match_pb2.MatchView:
        """GetMatch → the caller's view."""
        return self.match_call(match_id, "GetMatch", match_pb2.GetMatchRequest(match_id=match_id)).match

    def submit(self, match_id: str, move: common_pb2.Move, expected_seq: int | None = None,
               request_id: str | None = None, seat: int | None = None) -> match_pb2.SubmitTurnResponse:
        """SubmitTurn; ``expected_seq`` defaults to the view's latest seq; ``seat`` acts for one
        of the caller's seats (pass-and-play)."""
        if expected_seq is None:
            expected_seq = self.get_match(match_id).last_seq
        req = match_pb2.SubmitTurnRequest(match_id=match_id, expected_seq=expected_seq,
                                          request_id=request_id or new_request_id(), move=move)
        if seat is not None:
            req.seat = seat
        return self.match_call(match_id, "SubmitTurn", req)

    def decide(self, match_id: str, decision: int,
               expected_seq: int | None = None) -> match_pb2.DecidePendingResponse:
        """DecidePending (accept / check)."""
        if expected_seq is None:
            expected_seq = self.get_match(match_id).last_seq
        req = match_pb2.DecidePendingRequest(match_id=match_id, expected_seq=expected_seq,
                                             request_id=new_request_id(), decision=decision)  # type: ignore[arg-type]
        return self.match_call(match_id, "DecidePending", req)

    def preview(self, match_id: str, placements: list[common_pb2.Placement],
                seat: int | None = None,
                effect_moves: list[common_pb2.EffectMove] | None = None) -> match_pb2.PreviewPlayResponse:
        """PreviewPlay (``seat``: whose rack, pass-and-play; ``effect_moves``: War of Words
        moves of a Rain / Whirlwind)."""
        req = match_pb2.PreviewPlayRequest(match_id=match_id, placements=placements,
                                           effect_moves=effect_moves or [])
        if seat is not None:
            req.seat = seat
        return self.match_call(match_id, "PreviewPlay", req)

    def hindsight(self, match_id: str, turn_seq: int = 0, limit: int = 5,
                  by_simulation: bool = False) -> match_pb2.HindsightResponse:
        """Hindsight (with ``by_simulation``, the best plays ranked by simulation too)."""
        return self.match_call(match_id, "Hindsight", match_pb2.HindsightRequest(
            match_id=match_id, turn_seq=turn_seq, limit=limit, by_simulation=by_simulation))

    def strength(self, match_id: str, placements: list[common_pb2.Placement],
                 seat: int | None = None) -> match_pb2.WordStrengthResponse:
        """WordStrength (``seat``: whose rack, pass-and-play)."""
        req = match_pb2.WordStrengthRequest(match_id=match_id, placements=placements)
        if seat is not None:
            req.seat = seat
        return self.match_call(match_id, "WordStrength", req)

    def tile_bag(self, match_id: str) -> match_pb2.TileBagResponse:
        """TileBag."""
        return self.match_call(match_id, "TileBag", match_pb2.TileBagRequest(match_id=match_id))

    def define(self, match_id: str | None, word: str, language: str = "") -> match_pb2.DefineResponse:
        """Define, on the match's server (any match server answers; language from the match)."""
        req = match_pb2.DefineRequest(word=word, language=language)
        if match_id:
            return self.match_call(match_id, "Define", req)
        raise ClientError("define needs --match MATCH (a match server to ask)", EXIT_USAGE)

    def chat(self, match_id: str, text: str) -> match_pb2.SendChatResponse:
        """SendChat."""
        return self.match_call(match_id, "SendChat", match_pb2.SendChatRequest(
            match_id=match_id, request_id=new_request_id(), text=text))

    def leave(self, match_id: str) -> match_pb2.LeaveMatchResponse:
        """LeaveMatch."""
        return self.match_call(match_id, "LeaveMatch", match_pb2.LeaveMatchRequest(
            match_id=match_id, request_id=new_request_id()))

    def list_log(self, match_id: str, channel: int = 0, page_size: int = 0,
                 page_token: str = "") -> match_pb2.ListLogResponse:
        """ListLog: chat and / or combat-log events, newest first (one page)."""
        return self.match_call(match_id, "ListLog", match_pb2.ListLogRequest(
            match_id=match_id, channel=channel, page_size=page_size,  # type: ignore[arg-type]
            page_token=page_token))

    def kick(self, match_id: str, seat: int) -> match_pb2.KickIdlePlayerResponse:
        """KickIdlePlayer."""
        return self.match_call(match_id, "KickIdlePlayer", match_pb2.KickIdlePlayerRequest(
            match_id=match_id, request_id=new_request_id(), seat=seat))

    def match_record(self, match_id: str) -> match_pb2.GetMatchRecordResponse:
        """GetMatchRecord: the match's GCG (racks only once it is over)."""
        return self.match_call(match_id, "GetMatchRecord", match_pb2.GetMatchRecordRequest(match_id=match_id))

    def player_record(self, player_id: str = "", ruleset_id: str = "") -> lobby_pb2.GetPlayerRecordResponse:
        """GetPlayerRecord (``player_id`` empty: the caller)."""
        return self._call(self.lobby.GetPlayerRecord, lobby_pb2.GetPlayerRecordRequest(
            player_id=player_id, ruleset_id=ruleset_id))

    def follow(self, match_id: str, after_seq: int = 0, **options: Any) -> Iterator[common_pb2.Event]:
        """Every event after ``after_seq``, live, reconnecting and resuming with the last seq seen
        (:func:`clients.cli.follow.follow`; ``options``: ``notice``, ``heartbeats``,
        ``max_retries``, ``stop``)."""
        from wordarena.clients.cli.follow import follow

        return follow(self, match_id, after_seq, **options)
