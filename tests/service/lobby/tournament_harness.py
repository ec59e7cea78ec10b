"""Helpers of the tournament service tests: guests, the stub, results reported as a match server
would, and reading refusals."""

from __future__ import annotations

from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_helpers import refused as grpc_refused
from lobby_harness import LobbyEnv

from wordarena.services.common.errors import detail
from wordarena.v1 import common_pb2, control_pb2, lobby_pb2, tournament_pb2_grpc
from wordarena.v1 import tournament_pb2 as tp

CLASSIC = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic", language="en"))
Metadata = list[tuple[str, str]]


async def guest(env: LobbyEnv, name: str) -> tuple[str, Metadata]:
    """A new guest (``LobbyEnv.guest``): (player id, call metadata)."""
    pid, md = await env.guest(name)
    return pid, list(md)


def stub(env: LobbyEnv) -> tournament_pb2_grpc.TournamentServiceStub:
    """A TournamentService stub on the lobby's channel."""
    return tournament_pb2_grpc.TournamentServiceStub(env.channel)


async def create(env: LobbyEnv, md: Metadata, **settings: Any) -> str:
    """A new classic tournament's id."""
    settings.setdefault("name", "Club night")
    t = await stub(env).CreateTournament(
        tp.CreateTournamentRequest(settings=tp.TournamentSettings(game=CLASSIC, **settings)), metadata=md
    )
    return str(t.tournament.tournament_id)


async def state(env: LobbyEnv, tid: str, md: Metadata) -> tp.TournamentState:
    """The tournament's state."""
    return (await stub(env).GetTournament(tp.GetTournamentRequest(tournament_id=tid), metadata=md)).state


async def report(env: LobbyEnv, create: control_pb2.CreateMatchRequest, scores: tuple[int, int]) -> bool:
    """Reports a result of a match the fake match server created (as ReportResult); returns
    ``already_recorded``."""
    seats = [
        control_pb2.SeatResult(
            seat=s.index,
            player_id=s.player.player_id if s.WhichOneof("occupant") == "player" else f"bot:{s.bot_level}",
            final_score=scores[s.index],
            status=common_pb2.SEAT_STATUS_ACTIVE,
            score_counts=True,
        )
        for s in create.seats
    ]
    r = await env.registry.ReportResult(
        control_pb2.ReportResultRequest(
            match_id=create.match_id,
            server_id="ms-1",
            ruleset=common_pb2.RulesetRef(ruleset_id="classic"),
            reason=common_pb2.GAME_OVER_REASON_OUT_OF_TILES,
            seats=seats,
        ),
        metadata=env.service_md,
    )
    return bool(r.already_recorded)


async def playing(env: LobbyEnv, tid: str, md: Metadata, round_no: int, n: int) -> list[tp.TournamentGame]:
    """Round ``round_no``'s games being played, once there are ``n`` (else empty)."""
    st = await state(env, tid, md)
    games = [g for g in st.games if g.round == round_no and g.status == tp.TOURNAMENT_GAME_STATUS_PLAYING]
    return games if len(games) >= n else []


async def refused(call: Any) -> tuple[grpc.StatusCode, str]:
    """The code and message of a refused call."""
    err = await grpc_refused(call)
    return err.code(), err.details() or ""


async def bad_field(call: Any) -> str:
    """The field an INVALID_ARGUMENT names (google.rpc.BadRequest)."""
    err = await grpc_refused(call)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, err.details()
    br = detail(err, error_details_pb2.BadRequest)
    assert br is not None
    return str(br.field_violations[0].field)
