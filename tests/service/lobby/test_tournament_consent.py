"""Nobody plays a tournament they did not agree to (issue 38, finding 1): a director's AddEntrant of
another player is an invitation that the player accepts (Register) or declines (Unregister); until
then the player is paired in no game, holds no result and their rating does not move. The
attack as the hostile tester ran it: a guest directs a rated round robin with a short no-show
time, enters a victim found on the leaderboard and a second account of its own, and starts it."""

from __future__ import annotations

from pathlib import Path

import grpc
from google.protobuf.duration_pb2 import Duration
from tournament_harness import CLASSIC, refused
from tournament_servers import Servers, servers

from wordarena.v1 import lobby_pb2, lobby_pb2_grpc
from wordarena.v1 import tournament_pb2 as tp

Metadata = list[tuple[str, str]]


async def _rated_round_robin(env: Servers) -> str:
    settings = tp.TournamentSettings(
        name="Free rating", game=CLASSIC, rounds=1, games_per_pairing=3,
        round_methods=[tp.PAIRING_METHOD_ROUND_ROBIN], no_show_timeout=Duration(seconds=5),
    )  # fmt: skip
    got = await env.stub.CreateTournament(tp.CreateTournamentRequest(settings=settings), metadata=env.md)
    return str(got.tournament.tournament_id)


async def _record(env: Servers, player_id: str, md: Metadata) -> list[lobby_pb2.PlayerRecord]:
    got = await lobby_pb2_grpc.LobbyServiceStub(env.channel).GetPlayerRecord(
        lobby_pb2.GetPlayerRecordRequest(player_id=player_id), metadata=md
    )
    return list(got.records)


async def _entrant(env: Servers, tid: str, player_id: str) -> tp.Entrant:
    st = (await env.stub.GetTournament(tp.GetTournamentRequest(tournament_id=tid), metadata=env.md)).state
    (e,) = [e for e in st.entrants if e.player.player_id == player_id]
    return e


async def test_a_director_cannot_enter_another_player_into_a_rated_event(
    database_url: str, tmp_path: Path
) -> None:
    async with servers(database_url, tmp_path) as env:
        victim, vmd = await env.guest("Victim")
        sock, smd = await env.guest("Sock")  # the director's second account
        tid = await _rated_round_robin(env)
        added = await env.stub.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, player_id=victim),
                                          metadata=env.md)
        assert added.entrant.invited and not added.entrant.withdrawn
        await env.stub.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, player_id=sock), metadata=env.md)
        await env.stub.Register(tp.RegisterRequest(tournament_id=tid), metadata=smd)  # the sock agrees
        assert not (await _entrant(env, tid, sock)).invited
        code, details = await refused(
            env.stub.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=env.md)
        )
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "fewer than 2 entrants" in details
        # with a bot to make up the numbers the event starts, and the victim is paired nowhere
        await env.stub.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=1), metadata=env.md)
        await env.stub.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=env.md)
        entrant = await _entrant(env, tid, victim)
        st = (await env.stub.GetTournament(tp.GetTournamentRequest(tournament_id=tid), metadata=env.md)).state
        assert st.games and all(entrant.entrant_id not in (g.first_entrant_id, g.second_entrant_id)
                                for g in st.games)
        assert entrant.entrant_id not in {s.entrant_id for d in st.standings for s in d.standings}
        await env.stub.EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=env.md)
        assert await _record(env, victim, vmd) == []


async def test_an_invited_player_sees_the_invitation_and_accepts_it(
    database_url: str, tmp_path: Path
) -> None:
    async with servers(database_url, tmp_path) as env:
        ann, amd = await env.guest("Ann")
        tid = await _rated_round_robin(env)
        other = await _rated_round_robin(env)
        await env.stub.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, player_id=ann), metadata=env.md)
        await env.stub.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=1), metadata=env.md)
        mine = await env.stub.ListTournaments(tp.ListTournamentsRequest(invited=True), metadata=amd)
        assert [t.tournament_id for t in mine.tournaments] == [tid]
        everyone = await env.stub.ListTournaments(tp.ListTournamentsRequest(), metadata=amd)
        assert {tid, other} <= {t.tournament_id for t in everyone.tournaments}
        # an invitation is not an entry: no check-in, and the event cannot start on it
        code, _ = await refused(env.stub.CheckIn(tp.CheckInRequest(tournament_id=tid), metadata=amd))
        assert code == grpc.StatusCode.NOT_FOUND
        accepted = await env.stub.Register(tp.RegisterRequest(tournament_id=tid), metadata=amd)
        assert not accepted.entrant.invited and accepted.entrant.player.player_id == ann
        mine = await env.stub.ListTournaments(tp.ListTournamentsRequest(invited=True), metadata=amd)
        assert list(mine.tournaments) == []
        await env.stub.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=env.md)
        st = (await env.stub.GetTournament(tp.GetTournamentRequest(tournament_id=tid), metadata=env.md)).state
        assert any(accepted.entrant.entrant_id in (g.first_entrant_id, g.second_entrant_id) for g in st.games)


async def test_an_invitation_accepted_while_the_event_runs_pairs_from_the_next_round(
    database_url: str, tmp_path: Path
) -> None:
    """A director may add a player to a running event (AddEntrant in RUNNING); the player agrees
    with Register, which for an invited player is open while the event runs."""
    async with servers(database_url, tmp_path) as env:
        bea, bmd = await env.guest("Bea")
        settings = tp.TournamentSettings(name="Late", game=CLASSIC, rounds=3,
                                         round_methods=[tp.PAIRING_METHOD_MANUAL])
        tid = (await env.stub.CreateTournament(tp.CreateTournamentRequest(settings=settings),
                                               metadata=env.md)).tournament.tournament_id
        for _ in range(2):
            await env.stub.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=1), metadata=env.md)
        await env.stub.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=env.md)
        await env.stub.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, player_id=bea), metadata=env.md)
        st = (await env.stub.GetTournament(tp.GetTournamentRequest(tournament_id=tid), metadata=env.md)).state
        invited = next(e for e in st.entrants if e.player.player_id == bea)
        code, _ = await refused(env.stub.PairRound(tp.PairRoundRequest(
            tournament_id=tid, pairings=[tp.ManualPairing(first_entrant_id=invited.entrant_id)]),
            metadata=env.md))
        assert code == grpc.StatusCode.INVALID_ARGUMENT  # not an entrant until she agrees
        got = await env.stub.Register(tp.RegisterRequest(tournament_id=tid), metadata=bmd)
        assert not got.entrant.invited and got.entrant.entrant_id == invited.entrant_id
        # a player who was not invited still cannot register once the event runs
        _, cmd = await env.guest("Cal")
        code, _ = await refused(env.stub.Register(tp.RegisterRequest(tournament_id=tid), metadata=cmd))
        assert code == grpc.StatusCode.FAILED_PRECONDITION


async def test_an_invited_player_declines_and_a_new_invitation_asks_again(
    database_url: str, tmp_path: Path
) -> None:
    async with servers(database_url, tmp_path) as env:
        dan, dmd = await env.guest("Dan")
        tid = await _rated_round_robin(env)
        await env.stub.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, player_id=dan), metadata=env.md)
        await env.stub.Unregister(tp.UnregisterRequest(tournament_id=tid), metadata=dmd)
        e = await _entrant(env, tid, dan)
        assert e.withdrawn
        again = await env.stub.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, player_id=dan),
                                          metadata=env.md)
        assert again.entrant.invited and not again.entrant.withdrawn


async def test_a_director_enters_themselves_without_an_invitation(database_url: str, tmp_path: Path) -> None:
    async with servers(database_url, tmp_path) as env:
        tid = await _rated_round_robin(env)
        me = await env.stub.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, player_id=env.director_id),
                                       metadata=env.md)
        assert not me.entrant.invited
