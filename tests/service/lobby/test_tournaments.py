"""TournamentService over loopback gRPC, with a fake match server whose results the test reports
through MatchRegistryService.ReportResult (the match servers' result path)."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from lobby_harness import LobbyEnv, eventually

from wordarena.services.common.errors import detail
from wordarena.v1 import common_pb2, control_pb2, lobby_pb2, tournament_pb2_grpc
from wordarena.v1 import tournament_pb2 as tp

CLASSIC = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic", language="en"))


async def _guest(env: LobbyEnv, name: str) -> tuple[str, list[tuple[str, str]]]:
    g = await env.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name=name))
    return g.player.player_id, [("authorization", f"Bearer {g.token.token}")]


def _stub(env: LobbyEnv) -> tournament_pb2_grpc.TournamentServiceStub:
    return tournament_pb2_grpc.TournamentServiceStub(env.channel)


async def _report(env: LobbyEnv, create: control_pb2.CreateMatchRequest, scores: tuple[int, int]) -> bool:
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
    return r.already_recorded


async def test_a_five_player_swiss_runs_to_its_end_with_byes_no_repeats_and_correct_standings(
    env: LobbyEnv, match_server: Any
) -> None:
    """A..E register in order; the earlier letter always wins 400-350. Round 1: A-B, C-D, E bye;
    round 2: A-C, E-B, D bye; round 3 (A-B and B-E already met): A-E, B-D, C bye."""
    stub = _stub(env)
    director, dmd = await _guest(env, "Dora")
    t = await stub.CreateTournament(
        tp.CreateTournamentRequest(settings=tp.TournamentSettings(name="Club night", game=CLASSIC, rounds=3)),
        metadata=dmd,
    )
    tid = t.tournament.tournament_id
    assert list(t.tournament.director_ids) == [director]
    players: dict[str, str] = {}  # player id -> letter
    for letter in "ABCDE":
        pid, md = await _guest(env, f"Player {letter}")
        e = await stub.Register(tp.RegisterRequest(tournament_id=tid), metadata=md)
        again = await stub.Register(tp.RegisterRequest(tournament_id=tid), metadata=md)
        assert again.entrant.entrant_id == e.entrant.entrant_id
        players[pid] = letter
    watch = stub.WatchTournament(tp.WatchTournamentRequest(tournament_id=tid), metadata=dmd)
    seen: list[tp.WatchTournamentResponse] = []

    async def read_watch() -> None:
        async for msg in watch:
            seen.append(msg)

    reader = asyncio.create_task(read_watch())
    await stub.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=dmd)
    expected_rounds = [{"AB", "CD"}, {"AC", "BE"}, {"AE", "BD"}]
    for rnd, pairs in enumerate(expected_rounds, start=1):
        playing = await eventually(lambda r=rnd: _playing(stub, tid, dmd, r, 2))
        created = {c.match_id: c for c in match_server.created}
        got = set()
        for create in (created[m] for m in playing):
            a, b = (players[s.player.player_id] for s in sorted(create.seats, key=lambda s: s.index))
            got.add("".join(sorted(a + b)))
            scores = (400, 350) if a < b else (350, 400)
            assert not await _report(env, create, scores)
        assert got == pairs, f"round {rnd}"
    assert await _report(env, match_server.created[0], (400, 350))  # a repeat counts once
    state = (await stub.GetTournament(tp.GetTournamentRequest(tournament_id=tid), metadata=dmd)).state
    await asyncio.wait_for(reader, 10)  # the stream ends after the FINISHED state
    assert state.tournament.status == tp.TOURNAMENT_STATUS_FINISHED
    assert dict(state.tournament.rounds_paired) == {"Open": 3}
    assert len(match_server.created) == 6
    letter_of = {e.entrant_id: players[e.player.player_id] for e in state.entrants}
    (div,) = state.standings
    table = [(letter_of[s.entrant_id], s.rank, s.wins, s.losses, s.spread, s.byes) for s in div.standings]
    assert table == [
        ("A", 1, 3, 0, 150, 0),
        ("B", 2, 2, 1, 50, 0),
        ("C", 3, 2, 1, 50, 1),
        ("E", 4, 1, 2, -50, 1),
        ("D", 5, 1, 2, -50, 1),
    ]
    byes = [(g.round, letter_of[g.first_entrant_id]) for g in state.games if not g.second_entrant_id]
    assert byes == [(1, "E"), (2, "D"), (3, "C")]
    # the watch stream told where each game is played, and its last state is the final one
    streamed = {g.match_id: g.address for m in seen for g in m.state.games if g.match_id}
    assert streamed == {c.match_id: match_server.address for c in match_server.created}
    assert seen[0].kind == tp.TOURNAMENT_UPDATE_KIND_SNAPSHOT
    assert seen[-1].state.standings == state.standings
    csv = (await stub.ExportStandings(tp.ExportStandingsRequest(tournament_id=tid), metadata=dmd)).csv
    lines = csv.splitlines()
    assert lines[0] == "division,rank,entrant_id,name,wins,losses,ties,spread,byes,points,opponents_points"
    assert lines[1].split(",")[3:] == ["Player A", "3", "0", "0", "150", "0", "3", "5"]
    assert len(lines) == 6


async def _playing(stub: Any, tid: str, md: Any, round_no: int, n: int) -> list[str]:
    """The match ids of round ``round_no``'s games being played, once there are ``n``."""
    st = (await stub.GetTournament(tp.GetTournamentRequest(tournament_id=tid), metadata=md)).state
    ids = [
        g.match_id for g in st.games if g.round == round_no and g.status == tp.TOURNAMENT_GAME_STATUS_PLAYING
    ]
    return ids if len(ids) >= n else []


async def _tournament(env: LobbyEnv, md: Any, **settings: Any) -> str:
    t = await _stub(env).CreateTournament(
        tp.CreateTournamentRequest(settings=tp.TournamentSettings(game=CLASSIC, **settings)), metadata=md
    )
    return t.tournament.tournament_id


async def _code(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    return err.value.code(), err.value.details() or ""


async def _bad_field(call: Any) -> str:
    """The field an INVALID_ARGUMENT names (google.rpc.BadRequest)."""
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    br = detail(err.value, error_details_pb2.BadRequest)
    assert br is not None
    return str(br.field_violations[0].field)


async def test_bad_settings_and_non_directors_are_refused_naming_the_field(env: LobbyEnv) -> None:
    stub = _stub(env)
    _, md = await _guest(env, "Dora")
    _, other = await _guest(env, "Olga")
    bad = [
        (tp.TournamentSettings(name="", game=CLASSIC, rounds=3), "settings.name"),
        (tp.TournamentSettings(name="x", game=CLASSIC, rounds=0), "settings.rounds"),
        (tp.TournamentSettings(name="x", game=CLASSIC, rounds=3, games_per_pairing=10),
         "settings.games_per_pairing"),
        (tp.TournamentSettings(name="x", rounds=3), "settings.game"),
        (tp.TournamentSettings(name="x", game=CLASSIC, rounds=3, round_methods=[99]),
         "settings.round_methods[0]"),
        (tp.TournamentSettings(name="x", game=CLASSIC, rounds=3,
                               divisions=[tp.Division(name="A"), tp.Division(name="A")]),
         "settings.divisions[1].name"),
    ]  # fmt: skip
    for settings, field in bad:
        assert (
            await _bad_field(
                stub.CreateTournament(tp.CreateTournamentRequest(settings=settings), metadata=md)
            )
            == field
        )
    assert not (await stub.ListTournaments(tp.ListTournamentsRequest(), metadata=md)).tournaments
    tid = await _tournament(env, md, name="Cup", rounds=2)
    code, _ = await _code(stub.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=other))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    code, details = await _code(
        stub.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=md)
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "fewer than 2" in details
    code, _ = await _code(stub.GetTournament(tp.GetTournamentRequest(tournament_id="tn_nope"), metadata=md))
    assert code == grpc.StatusCode.NOT_FOUND
