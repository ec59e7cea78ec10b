"""What control.proto promises about the internal services (MatchControlService on match
servers, MatchRegistryService on the lobby), as checks over real gRPC with a service token (see
``world``)."""

from __future__ import annotations

import uuid

import grpc
from google.rpc import error_details_pb2
from world import World, detail, promise, refused, rule

from wordarena.services.common.config import Settings
from wordarena.services.match.main import start as start_match
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import control_pb2_grpc, match_pb2_grpc
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import lobby_pb2 as lb
from wordarena.v1 import match_pb2 as m

S = grpc.StatusCode


def _create(players: tuple[str, ...] = ("ctl-a", "ctl-b"), match_id: str = "", ruleset: str = "classic",
            seed: int = 7) -> ctl.CreateMatchRequest:
    seats = [ctl.SeatAssignment(index=i, player=c.Player(player_id=p, display_name=p))
             for i, p in enumerate(players)]
    return ctl.CreateMatchRequest(match_id=match_id or uuid.uuid4().hex[:12],
                                  ruleset=c.RulesetRef(ruleset_id=ruleset), seats=seats, seed=seed)


@promise("MatchControlService.CreateMatch",
         "idempotent by match_id; a different request for it ALREADY_EXISTS; INVALID_ARGUMENT unknown "
         "ruleset; a player's token is not a service token")
async def _(w: World) -> None:
    req = _create()
    first = await w.control.CreateMatch(req, metadata=w.service_md)
    assert first.match_id == req.match_id and first.address
    assert await w.control.CreateMatch(req, metadata=w.service_md) == first
    other = _create(match_id=req.match_id, seed=8)
    await refused(w.control.CreateMatch(other, metadata=w.service_md), S.ALREADY_EXISTS)
    await refused(w.control.CreateMatch(_create(ruleset="chess"), metadata=w.service_md), S.INVALID_ARGUMENT)
    g = await w.guest()
    await refused(w.control.CreateMatch(_create(), metadata=g.md), S.PERMISSION_DENIED)


@promise("MatchControlService.CreateMatch",
         "a bot seat: bot_level 1..6 and bot_think_ms 100..30000 (0 = the default); INVALID_ARGUMENT naming "
         "seats[k].bot_level or seats[k].bot_think_ms outside them, or bot_think_ms on a player's seat")
async def _(w: World) -> None:
    def with_bot(bot: ctl.SeatAssignment, player_think: int = 0) -> ctl.CreateMatchRequest:
        req = _create(players=("ctl-h",))
        req.seats[0].bot_think_ms = player_think
        req.seats.append(bot)
        return req

    for req, field in (
        (with_bot(ctl.SeatAssignment(index=1, bot_level=7)), "seats[1].bot_level"),
        (with_bot(ctl.SeatAssignment(index=1, bot_level=0)), "seats[1].bot_level"),
        (with_bot(ctl.SeatAssignment(index=1, bot_level=6, bot_think_ms=99)), "seats[1].bot_think_ms"),
        (with_bot(ctl.SeatAssignment(index=1, bot_level=6, bot_think_ms=30_001)), "seats[1].bot_think_ms"),
        (with_bot(ctl.SeatAssignment(index=1, bot_level=6), player_think=500), "seats[0].bot_think_ms"),
    ):
        err = await refused(w.control.CreateMatch(req, metadata=w.service_md), S.INVALID_ARGUMENT)
        bad = detail(err, error_details_pb2.BadRequest)
        assert bad is not None and [v.field for v in bad.field_violations] == [field]
    ok = with_bot(ctl.SeatAssignment(index=1, bot_level=6, bot_think_ms=30_000))
    assert (await w.control.CreateMatch(ok, metadata=w.service_md)).match_id == ok.match_id


@promise("MatchControlService.AbortMatch",
         "aborts a match nobody played in; idempotent (already_aborted, the first reason); then "
         "MatchService calls fail FAILED_PRECONDITION MATCH_ABORTED; NOT_FOUND; MATCH_STARTED")
async def _(w: World) -> None:
    g = await w.guest()
    req = _create(players=(g.player_id, "ctl-other"))
    await w.control.CreateMatch(req, metadata=w.service_md)
    first = await w.control.AbortMatch(ctl.AbortMatchRequest(match_id=req.match_id, reason="first"),
                                       metadata=w.service_md)
    again = await w.control.AbortMatch(ctl.AbortMatchRequest(match_id=req.match_id, reason="second"),
                                       metadata=w.service_md)
    assert not first.already_aborted and again.already_aborted and again.reason == "first"
    err = await refused(g.view(req.match_id), S.FAILED_PRECONDITION)
    assert rule(err) == e.RULE_CODE_MATCH_ABORTED
    await refused(w.control.AbortMatch(ctl.AbortMatchRequest(match_id="nope"), metadata=w.service_md),
                  S.NOT_FOUND)
    mid, (a, _) = await w.match()
    await a.submit(mid, c.Move(pass_turn=c.PassMove()))
    err = await refused(w.control.AbortMatch(ctl.AbortMatchRequest(match_id=mid), metadata=w.service_md),
                        S.FAILED_PRECONDITION)
    assert rule(err) == e.RULE_CODE_MATCH_STARTED


@promise("MatchControlService.GetLoad", "the server's current load")
async def _(w: World) -> None:
    before = (await w.control.GetLoad(ctl.GetLoadRequest(), metadata=w.service_md)).load
    await w.control.CreateMatch(_create(), metadata=w.service_md)
    after = (await w.control.GetLoad(ctl.GetLoadRequest(), metadata=w.service_md)).load
    assert after.active_matches == before.active_matches + 1 and after.capacity > 0


@promise("MatchControlService.Drain",
         "stops accepting new matches (CreateMatch then UNAVAILABLE); idempotent")
async def _(w: World) -> None:
    folder = w.data_dir / "drained"
    folder.mkdir(exist_ok=True)
    settings = Settings(service="match", listen="127.0.0.1:0", advertise_address="127.0.0.1:0",
                        data_dir=w.data_dir, database_url=f"sqlite:///{folder / 'match.db'}",
                        server_id="conformance-drain", shutdown_grace=0.5)
    srv = await start_match(settings)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}")
    w.channels.append(channel)
    try:
        control = control_pb2_grpc.MatchControlServiceStub(channel)
        await control.CreateMatch(_create(), metadata=w.service_md)
        for _ in range(2):
            r = await control.Drain(ctl.DrainRequest(), metadata=w.service_md)
            assert r.remaining_matches == 1
        await refused(control.CreateMatch(_create(), metadata=w.service_md), S.UNAVAILABLE)
    finally:
        await srv.stop(0.5)


@promise("MatchRegistryService.RegisterMatchServer",
         "idempotent by server_id; INVALID_ARGUMENT bad address or capacity")
async def _(w: World) -> None:
    full = ctl.ServerLoad(active_matches=1, capacity=1)  # never chosen for a new match
    req = ctl.RegisterMatchServerRequest(server_id="conf-reg", address="127.0.0.1:9", load=full)
    first = await w.registry.RegisterMatchServer(req, metadata=w.service_md)
    assert await w.registry.RegisterMatchServer(req, metadata=w.service_md) == first
    bad = ctl.RegisterMatchServerRequest(server_id="conf-bad", address="not an address", load=full)
    await refused(w.registry.RegisterMatchServer(bad, metadata=w.service_md), S.INVALID_ARGUMENT)
    bad = ctl.RegisterMatchServerRequest(server_id="conf-bad", address="127.0.0.1:9",
                                         load=ctl.ServerLoad(capacity=-1))
    await refused(w.registry.RegisterMatchServer(bad, metadata=w.service_md), S.INVALID_ARGUMENT)


@promise("MatchRegistryService.Heartbeat", "NOT_FOUND unknown server_id (register again)")
async def _(w: World) -> None:
    full = ctl.ServerLoad(active_matches=1, capacity=1)
    await refused(w.registry.Heartbeat(ctl.HeartbeatRequest(server_id="conf-never", load=full),
                                       metadata=w.service_md), S.NOT_FOUND)
    await w.registry.RegisterMatchServer(ctl.RegisterMatchServerRequest(
        server_id="conf-hb", address="127.0.0.1:9", load=full), metadata=w.service_md)
    r = await w.registry.Heartbeat(ctl.HeartbeatRequest(server_id="conf-hb", load=full),
                                   metadata=w.service_md)
    assert r.HasField("next_heartbeat_due")


def _result(match_id: str, reason: int = c.GAME_OVER_REASON_PLAYERS_LEFT) -> ctl.ReportResultRequest:
    seats = [ctl.SeatResult(seat=i, player_id=f"conf-p{i}", final_score=10 - i, status=c.SEAT_STATUS_ACTIVE,
                            score_counts=True) for i in range(2)]
    return ctl.ReportResultRequest(match_id=match_id, server_id="conformance", seats=seats, unrated=True,
                                   ruleset=c.RulesetRef(ruleset_id="classic"), reason=reason, turn_count=3)


@promise("MatchRegistryService.ReportResult",
         "idempotent by match_id (a repeat is acknowledged, already_recorded); FAILED_PRECONDITION a "
         "different result; INVALID_ARGUMENT inconsistent result")
async def _(w: World) -> None:
    mid = uuid.uuid4().hex[:12]
    first = await w.registry.ReportResult(_result(mid), metadata=w.service_md)
    again = await w.registry.ReportResult(_result(mid), metadata=w.service_md)
    assert not first.already_recorded and again.already_recorded
    changed = _result(mid, c.GAME_OVER_REASON_OUT_OF_TILES)
    await refused(w.registry.ReportResult(changed, metadata=w.service_md), S.FAILED_PRECONDITION)
    lonely = _result(uuid.uuid4().hex[:12])
    del lonely.seats[1:]
    await refused(w.registry.ReportResult(lonely, metadata=w.service_md), S.INVALID_ARGUMENT)


@promise("MatchRegistryService.ReportMatchLocation",
         "idempotent; LocateMatch then points clients to the reporting server")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    req = ctl.ReportMatchLocationRequest(match_id=mid, server_id="conformance", address=w.match_address)
    for _ in range(2):
        await w.registry.ReportMatchLocation(req, metadata=w.service_md)
    located = await a.lobby.LocateMatch(lb.LocateMatchRequest(match_id=mid), metadata=a.md)
    assert located.assignment.address == w.match_address
    assert (await a.view(mid)).status == m.MATCH_STATUS_IN_PROGRESS


async def _second_server(w: World, name: str, database: str,
                         **extra: object) -> tuple[object, grpc.aio.Channel]:
    """Another match server (no lobby link) on ``database``, and a channel to it."""
    settings = Settings(service="match", listen="127.0.0.1:0", advertise_address="127.0.0.1:0",
                        data_dir=w.data_dir, database_url=database, server_id=name, shutdown_grace=0.5,
                        extra=dict(extra))
    srv = await start_match(settings)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}")
    w.channels.append(channel)
    return srv, channel


@promise("MatchControlService.CreateMatch",
         "RESOURCE_EXHAUSTED at capacity; UNAVAILABLE while draining")
async def _(w: World) -> None:
    folder = w.data_dir / "small"
    folder.mkdir(exist_ok=True)
    database = f"sqlite:///{folder / 'match.db'}"
    srv, channel = await _second_server(w, "conformance-small", database, capacity=1)
    try:
        control = control_pb2_grpc.MatchControlServiceStub(channel)
        await control.CreateMatch(_create(), metadata=w.service_md)
        await refused(control.CreateMatch(_create(), metadata=w.service_md), S.RESOURCE_EXHAUSTED)
        await control.Drain(ctl.DrainRequest(), metadata=w.service_md)
        await refused(control.CreateMatch(_create(), metadata=w.service_md), S.UNAVAILABLE)
    finally:
        await srv.stop(0.5)  # type: ignore[attr-defined]


@promise("MatchControlService.AbortMatch",
         "UNAVAILABLE + MatchMoved when another server owns the match (MatchService calls alike)")
async def _(w: World) -> None:
    srv, channel = await _second_server(w, "conformance-other", f"sqlite:///{w.data_dir / 'match.db'}")
    try:
        g = await w.guest()
        req = _create(players=(g.player_id, "ctl-other"))
        await w.control.CreateMatch(req, metadata=w.service_md)  # owned by the world's server
        other = control_pb2_grpc.MatchControlServiceStub(channel)
        err = await refused(other.AbortMatch(ctl.AbortMatchRequest(match_id=req.match_id),
                                             metadata=w.service_md), S.UNAVAILABLE)
        assert detail(err, e.MatchMoved).new_address == w.match_address
        err = await refused(match_pb2_grpc.MatchServiceStub(channel).GetMatch(
            m.GetMatchRequest(match_id=req.match_id), metadata=g.md), S.UNAVAILABLE)
        assert detail(err, e.MatchMoved).new_address == w.match_address
    finally:
        await srv.stop(0.5)  # type: ignore[attr-defined]


@promise("LobbyService.LocateMatch",
         "UNAVAILABLE while no server owns the match (here: a result reported for a match the lobby "
         "never placed)")
async def _(w: World) -> None:
    g = await w.guest()
    mid = uuid.uuid4().hex[:12]
    report = _result(mid)
    report.seats[0].player_id = g.player_id
    await w.registry.ReportResult(report, metadata=w.service_md)
    await refused(g.lobby.LocateMatch(lb.LocateMatchRequest(match_id=mid), metadata=g.md), S.UNAVAILABLE)
