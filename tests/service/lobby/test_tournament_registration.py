"""Registration over loopback gRPC: divisions by rating band, a full tournament, the check-in
window (entrants who did not check in are withdrawn at the start), listing."""

from __future__ import annotations

import time

import grpc
import pytest
from google.protobuf import duration_pb2, timestamp_pb2
from lobby_harness import LobbyEnv
from tournament_harness import create, guest, refused, state, stub

from wordarena.services.common.errors import detail
from wordarena.v1 import errors_pb2
from wordarena.v1 import tournament_pb2 as tp


def _at(seconds_from_now: float) -> timestamp_pb2.Timestamp:
    t = timestamp_pb2.Timestamp()
    t.FromNanoseconds(int((time.time() + seconds_from_now) * 1e9))
    return t


async def test_players_go_to_the_division_whose_band_holds_their_rating_and_a_full_event_refuses(
    env: LobbyEnv,
) -> None:
    ts = stub(env)
    _, dmd = await guest(env, "Dora")
    bands = [tp.Division(name="Novice", max_rating=1400), tp.Division(name="Main", min_rating=1401)]
    tid = await create(env, dmd, rounds=2, divisions=bands, max_entrants=2)
    _, amd = await guest(env, "Anna")
    e = await ts.Register(tp.RegisterRequest(tournament_id=tid), metadata=amd)
    assert (e.entrant.division, e.entrant.seed_rating) == ("Main", 1500.0)  # a new player rates 1500
    _, bmd = await guest(env, "Bert")
    await ts.Register(tp.RegisterRequest(tournament_id=tid), metadata=bmd)
    _, cmd = await guest(env, "Cleo")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ts.Register(tp.RegisterRequest(tournament_id=tid), metadata=cmd)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "full" in (err.value.details() or "")
    assert "full" in detail(err.value, errors_pb2.LobbyViolation).message
    # Novice has nobody: the tournament cannot start
    code, details = await refused(
        ts.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=dmd)
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "Novice" in details
    code, _ = await refused(
        ts.GetStandings(tp.GetStandingsRequest(tournament_id=tid, division="Expert"), metadata=dmd)
    )
    assert code == grpc.StatusCode.NOT_FOUND
    main = await ts.GetStandings(tp.GetStandingsRequest(tournament_id=tid, division="Main"), metadata=dmd)
    assert len(main.standings.standings) == 2

    tid2 = await create(env, dmd, rounds=1, divisions=[tp.Division(name="Masters", min_rating=2000)])
    code, details = await refused(ts.Register(tp.RegisterRequest(tournament_id=tid2), metadata=amd))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "band" in details
    listed = await ts.ListTournaments(tp.ListTournamentsRequest(), metadata=amd)
    # both take entries; the one with entrants first, though the other is newer (a real event)
    assert [t.tournament_id for t in listed.tournaments] == [tid, tid2]


async def test_check_in_opens_its_window_before_the_start_and_who_did_not_check_in_is_withdrawn(
    env: LobbyEnv, match_server: object
) -> None:
    ts = stub(env)
    _, dmd = await guest(env, "Dora")
    window = duration_pb2.Duration(seconds=3600)
    later = await create(env, dmd, rounds=1, start_time=_at(7200), check_in_window=window)
    soon = await create(env, dmd, rounds=1, start_time=_at(600), check_in_window=window)
    free = await create(env, dmd, rounds=1)
    players = []
    for name in ("Anna", "Bert", "Cleo"):
        _, md = await guest(env, name)
        for tid in (later, soon, free):
            await ts.Register(tp.RegisterRequest(tournament_id=tid), metadata=md)
        players.append(md)
    code, details = await refused(ts.CheckIn(tp.CheckInRequest(tournament_id=later), metadata=players[0]))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "not open" in details
    code, details = await refused(ts.CheckIn(tp.CheckInRequest(tournament_id=free), metadata=players[0]))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "no check-in" in details
    for md in players[:2]:
        e = await ts.CheckIn(tp.CheckInRequest(tournament_id=soon), metadata=md)
        assert e.entrant.checked_in
    await ts.AddEntrant(tp.AddEntrantRequest(tournament_id=soon, bot_level=1), metadata=dmd)
    await ts.StartTournament(tp.StartTournamentRequest(tournament_id=soon), metadata=dmd)
    st = await state(env, soon, dmd)
    assert [(e.player.display_name, e.withdrawn) for e in st.entrants] == [
        ("Anna", False),
        ("Bert", False),
        ("Cleo", True),
        ("Bot 1 #4", False),  # bots are always checked in
    ]
    assert len(st.games) == 2  # Anna, Bert and the bot: one game and one bye; Cleo is out
    assert {e for g in st.games for e in (g.first_entrant_id, g.second_entrant_id) if e} == {
        e.entrant_id for e in st.entrants if not e.withdrawn
    }
    code, _ = await refused(ts.Register(tp.RegisterRequest(tournament_id=soon), metadata=players[2]))
    assert code == grpc.StatusCode.FAILED_PRECONDITION  # registration is over
    code, _ = await refused(ts.Unregister(tp.UnregisterRequest(tournament_id=soon), metadata=players[0]))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
