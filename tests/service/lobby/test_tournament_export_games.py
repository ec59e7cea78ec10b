"""ExportGames over loopback gRPC against a real lobby and match server: the zip holds
standings.csv and one GCG per finished game, fetched from the match server, each re-checking with
the engine's GCG reader and ending on the game's recorded scores; a caller gets only the games
they may read on the match servers."""

from __future__ import annotations

import asyncio
import io
import zipfile
from pathlib import Path

import grpc
from tournament_servers import Servers, servers

from wordarena.engine.families import parse_ruleset_id
from wordarena.engine.interchange import check_record, parse_gcg, record_ruleset_id
from wordarena.v1 import common_pb2, lobby_pb2, match_pb2, match_pb2_grpc
from wordarena.v1 import tournament_pb2 as tp


def _game(spectators: bool) -> lobby_pb2.TableSettings:
    return lobby_pb2.TableSettings(
        ruleset=common_pb2.RulesetRef(ruleset_id="classic", language="en"),
        options=common_pb2.MatchOptions(spectators_allowed=spectators),
    )


async def _bots(env: Servers, name: str, bots: int, rounds: int, spectators: bool) -> str:
    settings = tp.TournamentSettings(name=name, game=_game(spectators), rounds=rounds)
    t = await env.stub.CreateTournament(tp.CreateTournamentRequest(settings=settings), metadata=env.md)
    tid = t.tournament.tournament_id
    for _ in range(bots):
        await env.stub.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=1), metadata=env.md)
    return tid


async def _duel(env: Servers, md: list[tuple[str, str]]) -> tp.TournamentState:
    """A one-round tournament of the player of ``md`` against a bot, no spectators; its state
    once the game's match is created."""
    tid = await _bots(env, "Duel", 1, 1, spectators=False)
    await env.stub.Register(tp.RegisterRequest(tournament_id=tid), metadata=md)
    await env.stub.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=env.md)
    for _ in range(100):
        st = (await env.stub.GetTournament(tp.GetTournamentRequest(tournament_id=tid), metadata=env.md)).state
        if st.games and st.games[0].match_id:
            return st
        await asyncio.sleep(0.1)
    raise AssertionError("the duel's match was not created")


async def _export(
    env: Servers, tid: str, md: list[tuple[str, str]]
) -> tuple[tp.ExportGamesResponse, zipfile.ZipFile]:
    r = await env.stub.ExportGames(tp.ExportGamesRequest(tournament_id=tid), metadata=md)
    return r, zipfile.ZipFile(io.BytesIO(r.zip))


async def test_the_export_holds_one_gcg_per_game_that_rechecks_and_only_what_the_caller_may_read(
    database_url: str, tmp_path: Path
) -> None:
    async with servers(database_url, tmp_path, tournament_tick_s=0.2) as env:
        open_ = await _bots(env, "Open club", 4, 2, spectators=True)
        closed = await _bots(env, "Closed club", 2, 1, spectators=False)
        for tid in (open_, closed):
            await env.stub.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=env.md)
        state, _ = await asyncio.gather(env.watch_to_end(open_, 300), env.watch_to_end(closed, 300))

        # spectators allowed: the director (no player of any game) gets every game
        r, z = await _export(env, open_, env.md)
        csv = await env.stub.ExportStandings(tp.ExportStandingsRequest(tournament_id=open_), metadata=env.md)
        assert z.read("standings.csv").decode() == csv.csv
        assert (r.games, r.withheld, list(r.unavailable)) == (4, 0, [])
        expected = {
            f"1-Open/round-{g.round:02d}-pairing-{g.pairing:02d}-game-{g.game}.gcg": g for g in state.games
        }
        assert len(expected) == 4 and sorted(z.namelist()) == sorted([*expected, "standings.csv"])
        matches = set()
        for path, g in expected.items():
            record = parse_gcg(z.read(path).decode())
            ruleset = parse_ruleset_id(record_ruleset_id(record))
            assert ruleset.id.startswith("classic") and check_record(record, ruleset) == []
            totals = {mv.seat: mv.total for mv in record.moves}
            assert (totals[0], totals[1]) == (g.first_score, g.second_score)
            assert all(mv.rack for mv in record.moves if mv.kind.name == "PLAY")  # finished: racks shown
            assert record.id == f"wordarena {g.match_id}"
            matches.add(g.match_id)
        assert len(matches) == 4

        # no spectators: someone who played none of the games gets none
        r, z = await _export(env, closed, env.md)
        assert (r.games, r.withheld) == (0, 1) and z.namelist() == ["standings.csv"]

        # no spectators: a player gets their own games, read from the match server by the lobby
        anna, amd = await env.guest("Anna")
        left = await _duel(env, amd)
        g = left.games[0]
        async with grpc.aio.insecure_channel(g.address) as ch:
            leave = match_pb2.LeaveMatchRequest(match_id=g.match_id, request_id="r1")
            await match_pb2_grpc.MatchServiceStub(ch).LeaveMatch(leave, metadata=amd)
        (g,) = (await env.watch_to_end(left.tournament.tournament_id, 60)).games
        r, z = await _export(env, left.tournament.tournament_id, amd)
        assert (r.games, r.withheld, list(r.unavailable)) == (1, 0, [])
        record = parse_gcg(z.read("1-Open/round-01-pairing-00-game-0.gcg").decode())
        assert record.id == f"wordarena {g.match_id}" and "Anna" in {p.nick for p in record.players}
        assert check_record(record, parse_ruleset_id(record_ruleset_id(record))) == []
        r, _ = await _export(env, left.tournament.tournament_id, env.md)  # the director played none
        assert (r.games, r.withheld) == (0, 1)

        # a game ended by a director's forfeit while its match goes on: the match server gives
        # the lobby no record of a running match; the player is told so
        forfeited = await _duel(env, amd)
        g = forfeited.games[0]
        duel = forfeited.tournament.tournament_id
        winner = next(e.entrant_id for e in forfeited.entrants if e.player.player_id == anna)
        ref = tp.GameRef(division=g.division, round=g.round, pairing=g.pairing, game=g.game)
        req = tp.AwardForfeitRequest(tournament_id=duel, game=ref, winner_entrant_id=winner, reason="no show")
        await env.stub.AwardForfeit(req, metadata=env.md)
        r, z = await _export(env, duel, amd)
        assert (r.games, r.withheld, len(r.unavailable)) == (0, 0, 1)
        assert r.unavailable[0].game == ref and "PERMISSION_DENIED" in r.unavailable[0].reason
