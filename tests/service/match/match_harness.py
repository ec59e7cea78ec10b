"""Helpers for match server tests: in-process servers on loopback over real gRPC, clients."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc

from wordarena.services.common import auth
from wordarena.services.common.config import Settings
from wordarena.services.common.errors import details_of
from wordarena.services.match.main import MatchServer, start
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import control_pb2_grpc, match_pb2_grpc
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m

SERVICE_TOKEN = "test-service-secret"


class Player:
    """A player's client: token + stubs."""

    def __init__(self, channel: grpc.aio.Channel, token: str, player_id: str) -> None:
        self.player_id = player_id
        self.md = [("authorization", f"Bearer {token}")]
        self.stub = match_pb2_grpc.MatchServiceStub(channel)
        self.received: list[Any] = []  # every message this player received

    async def view(self, match_id: str) -> m.MatchView:
        r = await self.stub.GetMatch(m.GetMatchRequest(match_id=match_id), metadata=self.md)
        self.received.append(r)
        return r.match

    async def submit(self, match_id: str, move: c.Move, expected_seq: int,
                     request_id: str | None = None) -> m.SubmitTurnResponse:
        r = await self.stub.SubmitTurn(m.SubmitTurnRequest(
            match_id=match_id, move=move, expected_seq=expected_seq,
            request_id=request_id or uuid.uuid4().hex), metadata=self.md)
        self.received.append(r)
        return r


class RecordingRegistry(control_pb2_grpc.MatchRegistryServiceServicer):
    """A stand-in for the lobby's registry: it accepts registrations and heartbeats and records
    every ReportResult it receives, which is what "the result reaches the lobby" means from the
    match server's side. The lobby's own handling of a report is tested in tests/service/lobby."""

    def __init__(self) -> None:
        self.reports: list[ctl.ReportResultRequest] = []
        self.reported = asyncio.Condition()
        self.address = ""

    async def RegisterMatchServer(self, request: Any, context: Any) -> Any:
        return ctl.RegisterMatchServerResponse()

    async def Heartbeat(self, request: Any, context: Any) -> Any:
        return ctl.HeartbeatResponse()

    async def ReportMatchLocation(self, request: Any, context: Any) -> Any:
        return ctl.ReportMatchLocationResponse()

    async def ReportResult(self, request: ctl.ReportResultRequest, context: Any) -> Any:
        async with self.reported:
            self.reports.append(request)
            self.reported.notify_all()
        return ctl.ReportResultResponse()

    async def wait_for(self, match_id: str) -> ctl.ReportResultRequest:
        """The report of ``match_id``, once it has arrived (30 s at most)."""
        async with asyncio.timeout(30), self.reported:
            await self.reported.wait_for(lambda: any(r.match_id == match_id for r in self.reports))
        return next(r for r in self.reports if r.match_id == match_id)


@contextlib.asynccontextmanager
async def recording_lobby() -> AsyncIterator[RecordingRegistry]:
    """A :class:`RecordingRegistry` served on loopback; pass ``lobby=registry.address`` to
    ``Harness.start`` to link a match server to it."""
    registry = RecordingRegistry()
    server = grpc.aio.server()
    control_pb2_grpc.add_MatchRegistryServiceServicer_to_server(registry, server)
    registry.address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    await server.start()
    try:
        yield registry
    finally:
        await server.stop(0)


class Harness:
    """Servers on one database, and clients."""

    def __init__(self, database_url: str, data_dir: Path) -> None:
        self.database_url = database_url
        self.data_dir = data_dir
        self.servers: list[MatchServer] = []
        self.channels: list[grpc.aio.Channel] = []
        self.keys = auth.load_token_keys(data_dir)

    async def start(self, *, web_listen: str = "", web_origins: str = "", max_connections: int = 10_000,
                    **extra: Any) -> MatchServer:
        settings = Settings(service="match", listen="127.0.0.1:0", data_dir=self.data_dir,
                            web_listen=web_listen, web_origins=web_origins, max_connections=max_connections,
                            database_url=self.database_url, service_token=SERVICE_TOKEN,
                            metrics_listen="127.0.0.1:0" if not self.servers else "",
                            shutdown_grace=1.0, server_id=f"test-{len(self.servers)}",
                            advertise_address="127.0.0.1:0",
                            extra={"heartbeat_seconds": 0.5, "lease_seconds": 30.0} | extra)
        srv = await start(settings)
        self.servers.append(srv)
        return srv

    def channel(self, srv: MatchServer) -> grpc.aio.Channel:
        ch = grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}")
        self.channels.append(ch)
        return ch

    def player(self, srv: MatchServer, player_id: str) -> Player:
        return Player(self.channel(srv), self.keys.issue(player_id, player_id.title(), 3600), player_id)

    def control(self, srv: MatchServer) -> control_pb2_grpc.MatchControlServiceStub:
        return control_pb2_grpc.MatchControlServiceStub(self.channel(srv))

    async def create(self, srv: MatchServer, match_id: str = "", ruleset: str = "classic",
                     players: tuple[str, ...] = ("alice", "bob"), seed: int = 42,
                     bots: tuple[int, ...] = (), **options: Any) -> str:
        match_id = match_id or uuid.uuid4().hex[:12]
        seats = [ctl.SeatAssignment(index=i, player=c.Player(player_id=p, display_name=p.title()))
                 for i, p in enumerate(players)]
        seats += [ctl.SeatAssignment(index=len(players) + k, bot_level=b) for k, b in enumerate(bots)]
        req = ctl.CreateMatchRequest(match_id=match_id, ruleset=c.RulesetRef(ruleset_id=ruleset), seats=seats,
                                     seed=seed, options=c.MatchOptions(**options))
        await self.control(srv).CreateMatch(req, metadata=[("authorization", f"Bearer {SERVICE_TOKEN}")])
        return match_id

    async def close(self) -> None:
        for ch in self.channels:
            await ch.close()
        for srv in self.servers:
            if not srv.grpc._stopping.is_set():
                await srv.stop(0.5)


def pass_move() -> c.Move:
    return c.Move(pass_turn=c.PassMove())


def play_move(action: Any) -> c.Move:
    """The contract Move for an engine Play."""
    return c.Move(play=c.PlayMove(placements=[
        c.Placement(square=c.Square(row=p.row, col=p.col), letter=p.letter, is_blank=p.blank)
        for p in action.placements]))


def engine_move(state: Any, seat: int) -> c.Move:
    """A legal move for ``seat``: the engine's best-scoring play, else an exchange or a pass."""
    from wordarena.engine.game import Exchange, Play
    from wordarena.engine.movegen import generate_moves
    from wordarena.services.match import bots

    moves = generate_moves(state, seat)
    action = moves[0].to_play(seat) if moves else bots.safe_action(state, seat)
    if isinstance(action, Play):
        return play_move(action)
    if isinstance(action, Exchange):
        return c.Move(exchange=c.ExchangeMove(tiles=[
            c.Tile(letter="" if t == "?" else t, is_blank=t == "?") for t in action.tiles]))
    return pass_move()


Factory = Callable[..., Any]


# --- What a client knows ----------------------------------------------------------------------
#
# Tests take the values they check from here: the board, rack and seq a client received (GetMatch,
# StreamMatch), never the server's runtime objects. The engine's move generator run on the
# client-visible board is the oracle for legal plays and their scores.


def client_cells(view: m.MatchView) -> tuple[Any, ...]:
    """The engine cells of the board as ``view`` shows it (hidden squares read as empty)."""
    from wordarena.engine.tiles import Tile

    cols = view.board.cols
    cells: list[Any] = [None] * (view.board.rows * cols)
    for sq in view.board.squares:
        if sq.HasField("tile") and sq.tile.letter:
            cells[sq.square.row * cols + sq.square.col] = Tile(sq.tile.letter.upper(), sq.tile.is_blank, 0)
    return tuple(cells)


def client_rack(view: m.MatchView) -> list[str]:
    """The viewer's rack as engine tokens (``?`` for a blank)."""
    return ["?" if t.is_blank else t.letter for t in view.rack.tiles]


def client_moves(view: m.MatchView) -> list[Any]:
    """Every legal play of the viewer's rack on the board the viewer sees, best score first."""
    from wordarena.engine.families import parse_ruleset_id
    from wordarena.engine.lexicon import load_lexicon
    from wordarena.engine.movegen import generate

    ruleset = parse_ruleset_id(view.ruleset.ruleset_id)
    moves = generate(ruleset, client_cells(view), client_rack(view), load_lexicon(ruleset.lexicon))
    return sorted(moves, key=lambda mv: (-mv.score, mv.tiles))


def client_move(view: m.MatchView) -> c.Move:
    """The viewer's best-scoring play on the board it sees, else a pass."""
    moves = client_moves(view)
    return play_move(moves[0].to_play(view.viewer_seat)) if moves else pass_move()


def expected_notation(view: m.MatchView, placements: Any, across: bool) -> str:
    """``8H WORD`` written by hand (not by the engine's notation module): the square where the
    main word starts (row number then column letter across, column letter then row down); the
    word with rack tiles upper-case, blanks lower-case and tiles already on the board as ``.``."""
    cells = client_cells(view)
    cols = view.board.cols
    placed = {(p.row, p.col): p for p in placements}
    dr, dc = (0, 1) if across else (1, 0)
    r, c_ = min(placed)
    while r - dr >= 0 and c_ - dc >= 0 and cells[(r - dr) * cols + c_ - dc] is not None:
        r, c_ = r - dr, c_ - dc
    start = (r, c_)
    letters = []
    while r < view.board.rows and c_ < cols and ((r, c_) in placed or cells[r * cols + c_] is not None):
        p = placed.get((r, c_))
        letters.append("." if p is None else (p.letter.lower() if p.blank else p.letter.upper()))
        r, c_ = r + dr, c_ + dc
    row, col = str(start[0] + 1), chr(ord("A") + start[1])
    position = row + col if across else col + row
    return f"{position} {''.join(letters)}"


def violation_of(err: grpc.aio.AioRpcError) -> e.RuleViolation | None:
    """The RuleViolation among a refused call's details (grpc-status-details-bin), if any."""
    return next((d for d in details_of(err) if isinstance(d, e.RuleViolation)), None)
