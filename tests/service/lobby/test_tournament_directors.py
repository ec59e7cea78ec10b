"""Directors over loopback gRPC (fake match server; results reported through ReportResult):
co-directors, a round paired by hand, pause and resume, a forfeit, a changed result, a
withdrawn entrant, the end; every action logged with its reason."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest
from lobby_harness import LobbyEnv, eventually, start_fake_match_server, start_lobby, stop_lobby
from sqlmodel import Session
from tournament_harness import bad_field, create, guest, playing, refused, report, state, stub

from wordarena.services.lobby.tournaments import rows
from wordarena.services.lobby.tournaments.entities import GameStatus
from wordarena.services.lobby.tournaments.ranking import Side
from wordarena.v1 import tournament_pb2 as tp

M = tp.PairingMethod


async def test_a_director_runs_a_tournament_by_hand_and_every_action_is_logged(
    env: LobbyEnv, match_server: Any
) -> None:
    ts = stub(env)
    dora, dmd = await guest(env, "Dora")
    olga, omd = await guest(env, "Olga")
    tid = await create(
        env,
        dmd,
        rounds=3,
        bye_spread=30,
        round_methods=[M.PAIRING_METHOD_MANUAL, M.PAIRING_METHOD_KING_OF_THE_HILL, M.PAIRING_METHOD_SWISS],
    )
    ids: dict[str, str] = {}  # name -> entrant id
    for name in ("Anna", "Bert", "Cleo", "Emil"):
        _, md = await guest(env, name)
        ids[name] = (await ts.Register(tp.RegisterRequest(tournament_id=tid), metadata=md)).entrant.entrant_id
        if name == "Emil":
            await ts.Unregister(tp.UnregisterRequest(tournament_id=tid), metadata=md)
    bot = await ts.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=2), metadata=dmd)
    ids["Bot"] = bot.entrant.entrant_id
    assert bot.entrant.player.bot and bot.entrant.player.player_id == "bot:2"
    code, _ = await refused(
        ts.AddDirector(tp.AddDirectorRequest(tournament_id=tid, player_id=olga), metadata=omd)
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED
    t = await ts.AddDirector(tp.AddDirectorRequest(tournament_id=tid, player_id=olga), metadata=dmd)
    assert list(t.tournament.director_ids) == [dora, olga]
    await ts.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=omd)

    # Round 1 is MANUAL: nothing is paired until a director pairs it.
    st = await state(env, tid, dmd)
    assert st.tournament.status == tp.TOURNAMENT_STATUS_RUNNING and not st.games
    pair = ts.PairRound
    a, b, c, x = ids["Anna"], ids["Bert"], ids["Cleo"], ids["Bot"]
    mp = tp.ManualPairing
    field = await bad_field(
        pair(
            tp.PairRoundRequest(
                tournament_id=tid,
                pairings=[
                    mp(first_entrant_id=a, second_entrant_id=x),
                    mp(first_entrant_id=b, second_entrant_id=a),
                ],
            ),
            metadata=dmd,
        )
    )
    assert field == "pairings[1]"  # Anna twice
    field = await bad_field(
        pair(
            tp.PairRoundRequest(
                tournament_id=tid,
                pairings=[
                    mp(first_entrant_id=a, second_entrant_id=ids["Emil"]),
                    mp(first_entrant_id=b, second_entrant_id=c),
                ],
            ),
            metadata=dmd,
        )
    )
    assert field == "pairings[0]"  # Emil withdrew
    field = await bad_field(
        pair(
            tp.PairRoundRequest(tournament_id=tid, pairings=[mp(first_entrant_id=a, second_entrant_id=x)]),
            metadata=dmd,
        )
    )
    assert field == "pairings"  # Bert and Cleo missing
    assert not (await state(env, tid, dmd)).games  # refusals changed nothing
    r1 = [mp(first_entrant_id=a, second_entrant_id=x), mp(first_entrant_id=b, second_entrant_id=c)]
    got = await pair(tp.PairRoundRequest(tournament_id=tid, pairings=r1), metadata=dmd)
    assert [(g.first_entrant_id, g.second_entrant_id) for g in got.games] == [(a, x), (b, c)]
    code, _ = await refused(pair(tp.PairRoundRequest(tournament_id=tid, pairings=r1), metadata=dmd))
    assert code == grpc.StatusCode.FAILED_PRECONDITION  # round 1 is not over
    games = await eventually(lambda: playing(env, tid, dmd, 1, 2))
    created = {m.match_id: m for m in match_server.created}

    # Paused: the round's games go on and count, but round 2 waits.
    await ts.PauseTournament(tp.PauseTournamentRequest(tournament_id=tid), metadata=omd)
    code, _ = await refused(ts.PauseTournament(tp.PauseTournamentRequest(tournament_id=tid), metadata=omd))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    ref = tp.GameRef(round=1, pairing=1, game=0)
    field = await bad_field(
        ts.AwardForfeit(
            tp.AwardForfeitRequest(tournament_id=tid, game=ref, winner_entrant_id=a, reason="no show"),
            metadata=dmd,
        )
    )
    assert field == "winner_entrant_id"  # Anna does not play that game
    f = await ts.AwardForfeit(
        tp.AwardForfeitRequest(tournament_id=tid, game=ref, winner_entrant_id=c, reason="Bert did not show"),
        metadata=dmd,
    )
    assert f.game.forfeit and (f.game.first_score, f.game.second_score) == (0, 30)
    assert not await report(env, created[games[0].match_id], (400, 300))  # Anna beats the bot
    assert not await report(env, created[games[1].match_id], (420, 380))  # Bert-Cleo, after the forfeit
    st = await state(env, tid, dmd)
    assert dict(st.tournament.rounds_paired) == {"Open": 1}
    table = {s.entrant_id: (s.wins, s.losses, s.spread) for s in st.standings[0].standings}
    assert table == {a: (1, 0, 100), c: (1, 0, 30), b: (0, 1, -30), x: (0, 1, -100), ids["Emil"]: (0, 0, 0)}

    # Resumed: round 2 (King of the Hill by standing) is paired at once: Anna-Cleo, Bert-Bot.
    await ts.ResumeTournament(tp.ResumeTournamentRequest(tournament_id=tid), metadata=dmd)
    games2 = await eventually(lambda: playing(env, tid, dmd, 2, 2))
    assert [(g.first_entrant_id, g.second_entrant_id) for g in games2] == [(a, c), (b, x)]

    # A changed result, with a reason; without one it is refused.
    fix = tp.GameRef(round=1, pairing=0, game=0)
    field = await bad_field(
        ts.SetResult(
            tp.SetResultRequest(tournament_id=tid, game=fix, first_score=350, second_score=360), metadata=dmd
        )
    )
    assert field == "reason"
    s = await ts.SetResult(
        tp.SetResultRequest(
            tournament_id=tid, game=fix, first_score=350, second_score=360, reason="scoresheet error"
        ),
        metadata=dmd,
    )
    assert s.game.first_result == tp.GAME_SIDE_LOSS
    code, _ = await refused(
        ts.SetResult(
            tp.SetResultRequest(tournament_id=tid, game=tp.GameRef(round=9), first_score=1, reason="x"),
            metadata=dmd,
        )
    )
    assert code == grpc.StatusCode.NOT_FOUND

    # Bert withdraws: round 3 is paired without him (three left: one bye).
    await ts.RemoveEntrant(
        tp.RemoveEntrantRequest(tournament_id=tid, entrant_id=b, reason="left early"), metadata=dmd
    )
    created = {m.match_id: m for m in match_server.created}
    for g in games2:
        await report(env, created[g.match_id], (400, 350))
    st = await state(env, tid, dmd)
    r3 = [g for g in st.games if g.round == 3]
    assert len(r3) == 2 and b not in {g.first_entrant_id for g in r3} | {g.second_entrant_id for g in r3}
    assert sum(1 for g in r3 if not g.second_entrant_id) == 1

    # The end: results still coming in no longer count. (The round-3 match must have started
    # first: a game not yet started when the tournament ends is never started — under load
    # the lobby's background allocation may come after the end.)
    g3 = await eventually(lambda: _match_of_round(env, tid, dmd, 3))
    await ts.EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=dmd)
    code, _ = await refused(ts.EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=dmd))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    before = _lines((await state(env, tid, dmd)).standings)
    created = {m.match_id: m for m in match_server.created}
    await report(env, created[g3], (500, 100))
    st = await state(env, tid, dmd)
    # (the match itself still counts in the players' records, as every rated match does)
    assert st.tournament.status == tp.TOURNAMENT_STATUS_FINISHED and _lines(st.standings) == before
    log = [(e.director_id, e.action) for e in st.log]
    assert log == [
        (dora, "add_entrant"),
        (dora, "add_director"),
        (olga, "start"),
        (dora, "pair_round"),
        (olga, "pause"),
        (dora, "forfeit"),
        (dora, "resume"),
        (dora, "set_result"),
        (dora, "remove_entrant"),
        (dora, "end"),
    ]
    details = {e.action: e.detail for e in st.log}
    assert "Bert did not show" in details["forfeit"] and "scoresheet error" in details["set_result"]
    assert "left early" in details["remove_entrant"]


def _lines(standings: Any) -> list[tuple[str, int, int, int, int]]:
    return [(s.entrant_id, s.rank, s.wins, s.losses, s.spread) for d in standings for s in d.standings]


async def _match_of_round(env: LobbyEnv, tid: str, md: Any, round_no: int) -> str:
    st = await state(env, tid, md)
    return next((g.match_id for g in st.games if g.round == round_no and g.match_id), "")


async def test_two_lobbies_creating_the_same_game_at_once_start_one_match_and_abort_the_other(
    postgres_database: str, tmp_path: Path
) -> None:
    """Two lobby processes on one PostgreSQL database (several lobbies need PostgreSQL: SQLite
    is served by one process, whose one writer thread serialises every transaction)."""
    env = await start_lobby(postgres_database, tmp_path)
    hold = asyncio.Event()
    fake, server = await start_fake_match_server(env, hold=hold)
    other = await start_lobby(env.settings.database_url, env.settings.data_dir)  # same keys
    try:
        ts = stub(env)
        _, dmd = await guest(env, "Dora")
        tid = await create(env, dmd, rounds=1)
        for _ in range(2):
            await ts.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=1), metadata=dmd)
        # a watcher of the second lobby sees what the first one changes
        watch = stub(other).WatchTournament(tp.WatchTournamentRequest(tournament_id=tid), metadata=dmd)
        await ts.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=dmd)
        await asyncio.wait_for(fake.entered.wait(), 10)  # the first lobby's CreateMatch is held
        await other.lobby.runner.advance(tid)  # the second lobby sees the same pending game
        await asyncio.sleep(0.5)
        hold.set()
        (g,) = await eventually(lambda: playing(env, tid, dmd, 1, 1))
        await eventually(lambda: _count(fake.created, 2))
        created = {c.match_id for c in fake.created}
        assert g.match_id in created
        await eventually(lambda: _count(fake.aborted, 1))
        assert set(fake.aborted) == created - {g.match_id}
        (only,) = (await state(env, tid, dmd)).games
        assert only.match_id == g.match_id
        await _until(watch, lambda st: [x.match_id for x in st.games] == [g.match_id])
        # a change made by the first lobby alone reaches the second lobby's watcher (it re-reads)
        await ts.PauseTournament(tp.PauseTournamentRequest(tournament_id=tid), metadata=dmd)
        await _until(watch, lambda st: st.tournament.status == tp.TOURNAMENT_STATUS_PAUSED)
        watch.cancel()
    finally:
        await stop_lobby(other)
        await stop_lobby(env)
        await server.stop(0)


async def _until(watch: Any, check: Any) -> None:
    """Reads the watch stream until a state passes ``check`` (10 s at most)."""

    async def read() -> None:
        async for msg in watch:
            if check(msg.state):
                return

    await asyncio.wait_for(read(), 10)


async def _count(items: list[Any], n: int) -> bool:
    return len(items) >= n


async def test_unknown_players_entrants_and_games_are_not_found_and_pairing_needs_a_running_event(
    env: LobbyEnv, match_server: Any
) -> None:
    ts = stub(env)
    _, dmd = await guest(env, "Dora")
    _, pmd = await guest(env, "Pia")
    tid = await create(env, dmd, rounds=2)
    code, _ = await refused(
        ts.AddDirector(tp.AddDirectorRequest(tournament_id=tid, player_id="p_nobody"), metadata=dmd)
    )
    assert code == grpc.StatusCode.NOT_FOUND
    code, _ = await refused(
        ts.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, player_id="p_nobody"), metadata=dmd)
    )
    assert code == grpc.StatusCode.NOT_FOUND
    code, _ = await refused(
        ts.RemoveEntrant(tp.RemoveEntrantRequest(tournament_id=tid, entrant_id="e_nobody"), metadata=dmd)
    )
    assert code == grpc.StatusCode.NOT_FOUND
    code, _ = await refused(ts.Unregister(tp.UnregisterRequest(tournament_id=tid), metadata=pmd))
    assert code == grpc.StatusCode.NOT_FOUND  # Pia never registered
    first = await ts.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=1), metadata=dmd)
    await ts.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=2), metadata=dmd)
    pairs = [tp.ManualPairing(first_entrant_id=first.entrant.entrant_id)]
    code, _ = await refused(
        ts.PairRound(tp.PairRoundRequest(tournament_id=tid, pairings=pairs), metadata=dmd)
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION  # not started
    code, _ = await refused(ts.ResumeTournament(tp.ResumeTournamentRequest(tournament_id=tid), metadata=dmd))
    assert code == grpc.StatusCode.FAILED_PRECONDITION  # not paused
    await ts.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=dmd)
    (g,) = await eventually(lambda: playing(env, tid, dmd, 1, 1))
    # an entrant added while running is paired from the next round
    late = await ts.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=3), metadata=dmd)
    created = {m.match_id: m for m in match_server.created}
    await report(env, created[g.match_id], (400, 300))
    st = await state(env, tid, dmd)
    r2 = [x for x in st.games if x.round == 2]
    assert len(r2) == 2 and late.entrant.entrant_id in {
        e for x in r2 for e in (x.first_entrant_id, x.second_entrant_id)
    }
    listed = await ts.ListTournaments(
        tp.ListTournamentsRequest(status=tp.TOURNAMENT_STATUS_RUNNING), metadata=pmd
    )
    assert [t.tournament_id for t in listed.tournaments] == [tid]
    assert not (
        await ts.ListTournaments(
            tp.ListTournamentsRequest(status=tp.TOURNAMENT_STATUS_FINISHED), metadata=pmd
        )
    ).tournaments
    first_division = await ts.GetStandings(tp.GetStandingsRequest(tournament_id=tid), metadata=pmd)
    assert first_division.standings.division == "Open" and len(first_division.standings.standings) == 3


async def test_each_division_is_paired_and_moves_on_by_itself(env: LobbyEnv, match_server: Any) -> None:
    ts = stub(env)
    _, dmd = await guest(env, "Dora")
    tid = await create(env, dmd, rounds=2, divisions=[tp.Division(name="A"), tp.Division(name="B")])
    for division, n in (("A", 2), ("B", 3)):
        for _ in range(n):
            e = await ts.AddEntrant(
                tp.AddEntrantRequest(tournament_id=tid, bot_level=1, division=division), metadata=dmd
            )
            assert e.entrant.division == division
    await ts.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=dmd)
    games = await eventually(lambda: playing(env, tid, dmd, 1, 2))
    assert sorted(g.division for g in games) == ["A", "B"]
    st = await state(env, tid, dmd)
    assert [(g.division, bool(g.second_entrant_id)) for g in st.games] == [
        ("A", True),
        ("B", True),
        ("B", False),
    ]
    created = {m.match_id: m for m in match_server.created}
    await report(env, created[next(g.match_id for g in games if g.division == "A")], (400, 300))
    st = await state(env, tid, dmd)
    assert dict(st.tournament.rounds_paired) == {"A": 2, "B": 1}  # A goes on while B still plays
    b = await ts.GetStandings(tp.GetStandingsRequest(tournament_id=tid, division="B"), metadata=dmd)
    assert [s.byes for s in b.standings.standings].count(1) == 1 and len(b.standings.standings) == 3


async def test_a_best_of_three_final_stops_after_two_wins_and_the_tournament_ends(
    env: LobbyEnv, match_server: Any
) -> None:
    ts = stub(env)
    _, dmd = await guest(env, "Dora")
    tid = await create(env, dmd, rounds=3, games_per_pairing=3, round_methods=[M.PAIRING_METHOD_ELIMINATION])
    ids = []
    for _ in range(2):
        ids.append(
            (
                await ts.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=1), metadata=dmd)
            ).entrant.entrant_id
        )
    await ts.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=dmd)
    (g0,) = await eventually(lambda: playing(env, tid, dmd, 1, 1))
    created = {m.match_id: m for m in match_server.created}
    await report(env, created[g0.match_id], (400, 300))  # the first mover wins game 1
    winner = g0.first_entrant_id
    g1 = await eventually(lambda: _game_playing(env, tid, dmd, 1))
    assert (g1.first_entrant_id, g1.second_entrant_id) == (g0.second_entrant_id, g0.first_entrant_id)
    created = {m.match_id: m for m in match_server.created}
    await report(env, created[g1.match_id], (300, 420))  # and game 2, moving second
    st = await state(env, tid, dmd)
    assert st.tournament.status == tp.TOURNAMENT_STATUS_FINISHED and len(st.games) == 2  # no game 3
    (div,) = st.standings
    assert div.standings[0].entrant_id == winner and div.standings[0].wins == 2


async def _game_playing(env: LobbyEnv, tid: str, md: Any, game: int) -> Any:
    st = await state(env, tid, md)
    return next(
        (g for g in st.games if g.game == game and g.status == tp.TOURNAMENT_GAME_STATUS_PLAYING), None
    )


async def test_a_director_cannot_add_entrants_past_max_entrants(env: LobbyEnv) -> None:
    """"Most entrants": a director's AddEntrant counts against max_entrants as Register does
    (else one director could seat thousands of bots, each game a bot worker's time); a
    withdrawn entrant frees its place."""
    ts = stub(env)
    _, dmd = await guest(env, "Dora")
    tid = await create(env, dmd, rounds=2, max_entrants=3)
    _, amd = await guest(env, "Anna")
    await ts.Register(tp.RegisterRequest(tournament_id=tid), metadata=amd)
    bots = [await ts.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=1), metadata=dmd)
            for _ in range(2)]
    code, details = await refused(
        ts.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=1), metadata=dmd))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "full" in details
    bert, _ = await guest(env, "Bert")
    code, details = await refused(
        ts.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, player_id=bert), metadata=dmd))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "full" in details
    await ts.RemoveEntrant(tp.RemoveEntrantRequest(tournament_id=tid, entrant_id=bots[0].entrant.entrant_id),
                           metadata=dmd)
    added = await ts.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, player_id=bert), metadata=dmd)
    assert added.entrant.player.player_id == bert


async def test_set_result_refuses_scores_no_game_can_make_and_standings_stay_readable(env: LobbyEnv) -> None:
    """Issue 38, finding 6: SetResult took any 32-bit scores, and after (2**31-1, -2**31) every
    GetTournament and GetStandings answered INTERNAL. Scores outside what a game can score
    (-1000..10000) are INVALID_ARGUMENT naming the field and change nothing; the standings of the
    widest scores allowed, summed over the games, are read by everyone."""
    ts = stub(env)
    _, dmd = await guest(env, "Dora")
    tid = await create(env, dmd, rounds=1, games_per_pairing=9)
    for level in (1, 2):
        await ts.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=level), metadata=dmd)
    await ts.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=dmd)
    game = tp.GameRef(round=1, pairing=0, game=0)
    bad = [((2**31 - 1, -(2**31)), "first_score"), ((300, -(2**31)), "second_score"),
           ((10_001, 0), "first_score"), ((0, -1001), "second_score")]  # fmt: skip
    for (first, second), field in bad:
        call = ts.SetResult(tp.SetResultRequest(tournament_id=tid, game=game, first_score=first,
                                                second_score=second, reason="typo"), metadata=dmd)
        assert await bad_field(call) == field
    st = await state(env, tid, dmd)
    assert all(g.status != tp.TOURNAMENT_GAME_STATUS_DONE for g in st.games)
    got = await ts.SetResult(tp.SetResultRequest(tournament_id=tid, game=game, first_score=10_000,
                                                 second_score=-1000, reason="a record"), metadata=dmd)
    assert got.game.first_result == tp.GAME_SIDE_WIN
    lines = (await ts.GetStandings(tp.GetStandingsRequest(tournament_id=tid), metadata=dmd)).standings
    assert sorted(s.spread for s in lines.standings) == [-11_000, 11_000]


@pytest.mark.database  # rows stored by an earlier version
async def test_standings_stay_readable_with_results_stored_before_scores_were_checked(env: LobbyEnv) -> None:
    """Results stored by an older lobby (which took any 32-bit scores) sum past int32: the
    standings still answer, the spread held at the int32 bounds, instead of INTERNAL."""
    ts = stub(env)
    _, dmd = await guest(env, "Dora")
    tid = await create(env, dmd, rounds=1, games_per_pairing=3)
    for level in (1, 2):
        await ts.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=level), metadata=dmd)
    await ts.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=dmd)

    def store_old_results(s: Session) -> None:
        for n in range(3):
            g = rows.get_game(s, tid, ("Open", 1, 0, n)) or replace(
                rows.get_game(s, tid, ("Open", 1, 0, 0)), game=n  # type: ignore[type-var]
            )
            rows.save_game(s, tid, replace(g, status=GameStatus.DONE, first_score=2**31 - 1,
                                            second_score=-(2**31), first_result=Side.WIN), 0.0)

    await env.lobby.db.run(store_old_results)  # type: ignore[attr-defined]
    lines = (await ts.GetStandings(tp.GetStandingsRequest(tournament_id=tid), metadata=dmd)).standings
    assert sorted(s.spread for s in lines.standings) == [-(2**31), 2**31 - 1]
    st = await state(env, tid, dmd)
    assert len(st.standings[0].standings) == 2
