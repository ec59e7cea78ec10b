"""TournamentService over loopback gRPC, with a fake match server whose results the test reports
through MatchRegistryService.ReportResult (the match servers' result path)."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from lobby_harness import LobbyEnv, eventually
from tournament_harness import CLASSIC, bad_field, create, guest, playing, refused, report, stub

from wordarena.v1 import tournament_pb2 as tp


async def test_a_five_player_swiss_runs_to_its_end_with_byes_no_repeats_and_correct_standings(
    env: LobbyEnv, match_server: Any
) -> None:
    """A..E register in order; the earlier letter always wins 400-350. Round 1: A-B, C-D, E bye;
    round 2: A-C, E-B, D bye; round 3 (A-B and B-E already met): A-E, B-D, C bye."""
    ts = stub(env)
    director, dmd = await guest(env, "Dora")
    t = await ts.CreateTournament(
        tp.CreateTournamentRequest(settings=tp.TournamentSettings(name="Club night", game=CLASSIC, rounds=3)),
        metadata=dmd,
    )
    tid = t.tournament.tournament_id
    assert list(t.tournament.director_ids) == [director]
    players: dict[str, str] = {}  # player id -> letter
    for letter in "ABCDE":
        pid, md = await guest(env, f"Player {letter}")
        e = await ts.Register(tp.RegisterRequest(tournament_id=tid), metadata=md)
        again = await ts.Register(tp.RegisterRequest(tournament_id=tid), metadata=md)
        assert again.entrant.entrant_id == e.entrant.entrant_id
        players[pid] = letter
    watch = ts.WatchTournament(tp.WatchTournamentRequest(tournament_id=tid), metadata=dmd)
    seen: list[tp.WatchTournamentResponse] = []

    async def read_watch() -> None:
        async for msg in watch:
            seen.append(msg)

    reader = asyncio.create_task(read_watch())
    await ts.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=dmd)
    expected_rounds = [{"AB", "CD"}, {"AC", "BE"}, {"AE", "BD"}]
    for rnd, pairs in enumerate(expected_rounds, start=1):
        games = await eventually(lambda r=rnd: playing(env, tid, dmd, r, 2))
        created = {c.match_id: c for c in match_server.created}
        got = set()
        for cm in (created[g.match_id] for g in games):
            a, b = (players[s.player.player_id] for s in sorted(cm.seats, key=lambda s: s.index))
            got.add("".join(sorted(a + b)))
            scores = (400, 350) if a < b else (350, 400)
            assert not await report(env, cm, scores)
        assert got == pairs, f"round {rnd}"
    assert await report(env, match_server.created[0], (400, 350))  # a repeat counts once
    state = (await ts.GetTournament(tp.GetTournamentRequest(tournament_id=tid), metadata=dmd)).state
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
    csv = (await ts.ExportStandings(tp.ExportStandingsRequest(tournament_id=tid), metadata=dmd)).csv
    lines = csv.splitlines()
    assert lines[0] == "division,rank,entrant_id,name,wins,losses,ties,spread,byes,points,opponents_points"
    assert lines[1].split(",")[3:] == ["Player A", "3", "0", "0", "150", "0", "3", "5"]
    assert len(lines) == 6


async def test_bad_settings_and_non_directors_are_refused_naming_the_field(env: LobbyEnv) -> None:
    ts = stub(env)
    _, md = await guest(env, "Dora")
    _, other = await guest(env, "Olga")
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
            await bad_field(ts.CreateTournament(tp.CreateTournamentRequest(settings=settings), metadata=md))
            == field
        )
    assert not (await ts.ListTournaments(tp.ListTournamentsRequest(), metadata=md)).tournaments
    tid = await create(env, md, name="Cup", rounds=2)
    code, _ = await refused(ts.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=other))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    code, details = await refused(
        ts.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=md)
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "fewer than 2" in details
    code, _ = await refused(ts.GetTournament(tp.GetTournamentRequest(tournament_id="tn_nope"), metadata=md))
    assert code == grpc.StatusCode.NOT_FOUND


async def test_watching_tournaments_leaves_nothing_behind(env: LobbyEnv) -> None:
    """WatchTournament of made-up ids (NOT_FOUND) and a watch that the client ends leave no trace
    in the lobby's memory: a client asking about random ids must not grow it without bound."""
    ts = stub(env)
    _, md = await guest(env, "Wanda")
    for n in range(20):
        call = ts.WatchTournament(tp.WatchTournamentRequest(tournament_id=f"tn_nope{n}"), metadata=md)
        code, _ = await refused(_drain(call))
        assert code == grpc.StatusCode.NOT_FOUND
    tid = await create(env, md, name="Cup", rounds=2)
    watch = ts.WatchTournament(tp.WatchTournamentRequest(tournament_id=tid), metadata=md)
    first = await watch.read()
    assert first.state.tournament.tournament_id == tid
    assert env.lobby.runner.watched() == 1
    watch.cancel()

    async def nobody_watches() -> bool:
        return env.lobby.runner.watched() == 0

    await eventually(nobody_watches)


async def _drain(call: Any) -> None:
    async for _ in call:
        pass


async def test_idle_watches_do_not_read_the_whole_tournament_again_and_again(
        env: LobbyEnv, monkeypatch: Any) -> None:
    """A watch polls (another lobby's changes reach it so), but reads the tournament's whole
    state (entrants, games, director log, standings) only when its version moved: idle watches
    cost one row a poll, not the whole tournament."""
    from wordarena.services.lobby.tournaments import service as tournament_ops

    env.lobby.opt.tournament_poll_s = 0.1
    reads: list[str] = []
    real = tournament_ops.read_state

    def counted(s: Any, tid: str) -> Any:
        reads.append(tid)
        return real(s, tid)

    monkeypatch.setattr(tournament_ops, "read_state", counted)
    ts = stub(env)
    _, md = await guest(env, "Wanda")
    tid = await create(env, md, name="Cup", rounds=2)
    request = tp.WatchTournamentRequest(tournament_id=tid)
    watches = [ts.WatchTournament(request, metadata=md) for _ in range(5)]
    for w in watches:
        await w.read()
    before = len(reads)
    await asyncio.sleep(1.0)  # ten polls of each watch
    assert len(reads) == before
    _, amd = await guest(env, "Anna")
    await ts.Register(tp.RegisterRequest(tournament_id=tid), metadata=amd)
    for w in watches:  # a change still reaches every watch
        assert len((await asyncio.wait_for(w.read(), 5)).state.entrants) == 1
    for w in watches:
        w.cancel()
