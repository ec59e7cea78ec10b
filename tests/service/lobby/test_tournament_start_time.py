"""A tournament starts by itself at its start_time (real lobby and match server on loopback
gRPC): the lobby's tournament tick closes check-in, withdraws who did not check in, pairs round 1
and creates its matches on the match server, as a director's StartTournament does."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
import pytest
from google.protobuf import duration_pb2, timestamp_pb2
from tournament_servers import Servers, servers

from wordarena.v1 import common_pb2, lobby_pb2
from wordarena.v1 import tournament_pb2 as tp

GAME = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic", language="en"))


def _at(seconds_from_now: float) -> timestamp_pb2.Timestamp:
    t = timestamp_pb2.Timestamp()
    t.FromNanoseconds(int((time.time() + seconds_from_now) * 1e9))
    return t


async def _create(env: Servers, name: str, start_in: float, bots: int) -> str:
    settings = tp.TournamentSettings(
        name=name,
        game=GAME,
        rounds=2,
        start_time=_at(start_in),
        check_in_window=duration_pb2.Duration(seconds=60),
    )
    t = await env.stub.CreateTournament(tp.CreateTournamentRequest(settings=settings), metadata=env.md)
    tid = t.tournament.tournament_id
    for _ in range(bots):
        await env.stub.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=1), metadata=env.md)
    return tid


async def _state(env: Servers, tid: str) -> tp.TournamentState:
    return (await env.stub.GetTournament(tp.GetTournamentRequest(tournament_id=tid), metadata=env.md)).state


async def test_a_tournament_whose_start_time_comes_starts_by_itself_like_a_directors_start(
    database_url: str, tmp_path: Path
) -> None:
    async with servers(database_url, tmp_path, tournament_tick_s=0.2) as env:
        tid = await _create(env, "Starts at two", 2.0, bots=2)
        lonely = await _create(env, "Too few", 1.0, bots=1)
        anna, amd = await env.guest("Anna")
        _, bmd = await env.guest("Bert")
        for md in (amd, bmd):
            await env.stub.Register(tp.RegisterRequest(tournament_id=tid), metadata=md)
        await env.stub.CheckIn(tp.CheckInRequest(tournament_id=tid), metadata=amd)  # Bert does not
        assert (await _state(env, tid)).tournament.status == tp.TOURNAMENT_STATUS_REGISTRATION

        deadline = time.monotonic() + 15
        while True:
            st = await _state(env, tid)
            if any(g.match_id for g in st.games) or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.1)
        assert st.tournament.status == tp.TOURNAMENT_STATUS_RUNNING
        assert st.tournament.rounds_paired["Open"] >= 1
        withdrawn = {e.player.display_name for e in st.entrants if e.withdrawn}
        assert withdrawn == {"Bert"}  # who did not check in is withdrawn, as at a director's start
        first = [g for g in st.games if g.round == 1]
        (bye,) = [g for g in first if not g.second_entrant_id]  # Anna and two bots: one bye
        (game,) = [g for g in first if g.second_entrant_id]
        active = {e.entrant_id for e in st.entrants if not e.withdrawn}
        assert active == {bye.first_entrant_id, game.first_entrant_id, game.second_entrant_id}
        # created on the match server (two bots may have finished it already)
        assert game.status != tp.TOURNAMENT_GAME_STATUS_PENDING and game.match_id and game.address
        starts = [(x.director_id, x.detail) for x in st.log if x.action == "start"]
        assert starts == [("", "at start_time")]
        assert any(e.player.player_id == anna for e in st.entrants if not e.withdrawn)
        # check-in has closed: Bert, withdrawn, can no longer check in
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await env.stub.CheckIn(tp.CheckInRequest(tournament_id=tid), metadata=bmd)
        assert err.value.code() == grpc.StatusCode.NOT_FOUND

        # a division with fewer than 2 entrants at its start_time: it stays in REGISTRATION
        lst = await _state(env, lonely)
        assert lst.tournament.status == tp.TOURNAMENT_STATUS_REGISTRATION and not lst.games
        # ... and is tried again: with a second entrant it starts at a later tick
        await env.stub.AddEntrant(tp.AddEntrantRequest(tournament_id=lonely, bot_level=1), metadata=env.md)
        deadline = time.monotonic() + 10
        while not (lst := await _state(env, lonely)).games:
            assert time.monotonic() < deadline, "not started once it had 2 entrants"
            await asyncio.sleep(0.1)
        assert lst.tournament.status in (tp.TOURNAMENT_STATUS_RUNNING, tp.TOURNAMENT_STATUS_FINISHED)
        assert [x.detail for x in lst.log if x.action == "start"] == ["at start_time"]
        await env.stub.EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=env.md)
