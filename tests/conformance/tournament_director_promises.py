"""What tournament.proto promises about TournamentService's director RPCs, as checks over real
gRPC against the world's lobby and match server (see ``tournament_promises`` for the helpers):
who may direct, the life of a tournament (start, pause, resume, end) and the director's hand on
pairings, results and entrants. Every director action is in the director log."""

from __future__ import annotations

import grpc
from google.protobuf import duration_pb2
from lobby_promises import field_of
from tournament_promises import at, create, playing, register, state, stub, turned_down
from world import Guest, World, eventually, promise

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import lobby_pb2 as lb
from wordarena.v1 import tournament_pb2 as tp

S = grpc.StatusCode
RESIGN = c.Move(resign=c.ResignMove())

def ref(g: tp.TournamentGame) -> tp.GameRef:
    """The game's reference."""
    return tp.GameRef(division=g.division, round=g.round, pairing=g.pairing, game=g.game)


async def started(w: World, players: int, rounds: int = 2, **kw: object) -> tuple[str, Guest, list[Guest]]:
    """A RUNNING tournament of ``players`` registered guests: its id, director and players."""
    d = await w.guest("td")
    tid = await create(w, d, rounds, **kw)
    guests = [g for g, _ in await register(w, tid, players)]
    await stub(w).StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=d.md)
    return tid, d, guests


@promise(
    "TournamentService.AddDirector",
    "a co-director may do what the director may; PERMISSION_DENIED director actions by anyone "
    "else; NOT_FOUND unknown player",
)
async def _(w: World) -> None:
    d, x = await w.guest("td"), await w.guest("tx")
    tid = await create(w, d)
    err = await turned_down(
        stub(w).AddDirector(tp.AddDirectorRequest(tournament_id=tid, player_id=x.player_id), metadata=x.md),
        S.PERMISSION_DENIED,
    )
    assert "director" in (err.details() or "")
    await turned_down(
        stub(w).AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=1), metadata=x.md),
        S.PERMISSION_DENIED,
    )
    r = await stub(w).AddDirector(
        tp.AddDirectorRequest(tournament_id=tid, player_id=x.player_id), metadata=d.md
    )
    assert list(r.tournament.director_ids) == [d.player_id, x.player_id]
    for _ in range(2):
        await stub(w).AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=1), metadata=x.md)
    await stub(w).StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=x.md)
    st = await state(w, d, tid)
    assert st.tournament.status == tp.TOURNAMENT_STATUS_RUNNING
    assert [(e.action, e.director_id) for e in st.log] == [
        ("add_director", d.player_id),
        ("add_entrant", x.player_id),
        ("add_entrant", x.player_id),
        ("start", x.player_id),
    ]
    await turned_down(
        stub(w).AddDirector(tp.AddDirectorRequest(tournament_id=tid, player_id="p_nobody"), metadata=d.md),
        S.NOT_FOUND,
    )
    await stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=d.md)


@promise(
    "TournamentService.StartTournament",
    "RUNNING, round 1 paired and its matches created at once; entrants who did not check in are "
    "withdrawn; FAILED_PRECONDITION a division with fewer than 2 entrants, or not in REGISTRATION",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    lonely = await create(w, d)
    await register(w, lonely, 1)
    err = await turned_down(
        stub(w).StartTournament(tp.StartTournamentRequest(tournament_id=lonely), metadata=d.md),
        S.FAILED_PRECONDITION,
    )
    assert "fewer than 2" in (err.details() or "")
    assert (await state(w, d, lonely)).tournament.status == tp.TOURNAMENT_STATUS_REGISTRATION
    tid = await create(w, d, 2, start_time=at(300), check_in_window=duration_pb2.Duration(seconds=600))
    entries = await register(w, tid, 3)
    for g, _ in entries[:2]:
        await stub(w).CheckIn(tp.CheckInRequest(tournament_id=tid), metadata=g.md)
    r = await stub(w).StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=d.md)
    assert r.tournament.status == tp.TOURNAMENT_STATUS_RUNNING
    (game,) = await playing(w, d, tid, 1, 1)
    assert {game.first_entrant_id, game.second_entrant_id} == {e.entrant_id for _, e in entries[:2]}
    withdrawn = {e.entrant_id for e in (await state(w, d, tid)).entrants if e.withdrawn}
    assert withdrawn == {entries[2][1].entrant_id}
    await turned_down(
        stub(w).StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=d.md),
        S.FAILED_PRECONDITION,
    )
    await stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=d.md)


@promise(
    "TournamentService.PauseTournament",
    "games being played go on and their results count, but no round is paired until "
    "ResumeTournament; FAILED_PRECONDITION not RUNNING",
)
async def _(w: World) -> None:
    tid, d, (a, b) = await started(w, 2)
    (game,) = await playing(w, d, tid, 1, 1)
    r = await stub(w).PauseTournament(tp.PauseTournamentRequest(tournament_id=tid), metadata=d.md)
    assert r.tournament.status == tp.TOURNAMENT_STATUS_PAUSED
    await turned_down(
        stub(w).PauseTournament(tp.PauseTournamentRequest(tournament_id=tid), metadata=d.md),
        S.FAILED_PRECONDITION,
    )
    await b.submit(game.match_id, RESIGN)  # the match is played on: b resigns

    async def counted() -> tp.TournamentState | None:
        st = await state(w, d, tid)
        return st if st.games[0].status == tp.TOURNAMENT_GAME_STATUS_DONE else None

    st = await eventually(counted)
    wins = {s.display_name: s.wins for s in st.standings[0].standings}
    assert wins == {a.name: 1, b.name: 0}
    await w.tournament_sweeps()
    st = await state(w, d, tid)
    assert dict(st.tournament.rounds_paired) == {"Open": 1} and len(st.games) == 1
    await stub(w).ResumeTournament(tp.ResumeTournamentRequest(tournament_id=tid), metadata=d.md)
    await playing(w, d, tid, 2, 1)
    await stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=d.md)


@promise(
    "TournamentService.ResumeTournament",
    "a PAUSED tournament runs again and what is due is paired; FAILED_PRECONDITION not PAUSED",
)
async def _(w: World) -> None:
    tid, d, _ = await started(w, 2)
    await turned_down(
        stub(w).ResumeTournament(tp.ResumeTournamentRequest(tournament_id=tid), metadata=d.md),
        S.FAILED_PRECONDITION,
    )
    (game,) = await playing(w, d, tid, 1, 1)
    await stub(w).PauseTournament(tp.PauseTournamentRequest(tournament_id=tid), metadata=d.md)
    await stub(w).SetResult(
        tp.SetResultRequest(
            tournament_id=tid, game=ref(game), first_score=300, second_score=200, reason="scoresheet"
        ),
        metadata=d.md,
    )
    r = await stub(w).ResumeTournament(tp.ResumeTournamentRequest(tournament_id=tid), metadata=d.md)
    assert r.tournament.status == tp.TOURNAMENT_STATUS_RUNNING
    await playing(w, d, tid, 2, 1)
    assert [e.action for e in (await state(w, d, tid)).log] == ["start", "pause", "set_result", "resume"]
    await stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=d.md)


@promise(
    "TournamentService.EndTournament",
    "FINISHED now; a game still being played no longer counts in the standings (it does in the "
    "players' records); FAILED_PRECONDITION already FINISHED",
)
async def _(w: World) -> None:
    tid, d, (a, b) = await started(w, 2)
    (game,) = await playing(w, d, tid, 1, 1)
    r = await stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=d.md)
    assert r.tournament.status == tp.TOURNAMENT_STATUS_FINISHED
    await b.submit(game.match_id, RESIGN)

    async def recorded() -> bool:
        rec = await a.lobby.GetPlayerRecord(lb.GetPlayerRecordRequest(player_id=a.player_id), metadata=a.md)
        return bool(rec.records) and rec.records[0].wins == 1

    await eventually(recorded)
    st = await state(w, d, tid)
    assert st.tournament.status == tp.TOURNAMENT_STATUS_FINISHED
    assert {(s.wins, s.losses) for s in st.standings[0].standings} == {(0, 0)}
    await turned_down(
        stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=d.md),
        S.FAILED_PRECONDITION,
    )


@promise(
    "TournamentService.PairRound",
    "a MANUAL round waits for it; every active entrant once, a bye without second_entrant_id; "
    "INVALID_ARGUMENT (pairings[i]) unknown, paired twice or missing; FAILED_PRECONDITION not "
    "RUNNING, or the current round is not over",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    tid = await create(w, d, 2, round_methods=[tp.PAIRING_METHOD_MANUAL])
    (_, x), (_, y), (_, z) = await register(w, tid, 3)
    pair = tp.ManualPairing
    good = [
        pair(first_entrant_id=x.entrant_id, second_entrant_id=y.entrant_id),
        pair(first_entrant_id=z.entrant_id),
    ]

    def pair_round(pairings: list[tp.ManualPairing]) -> object:
        return stub(w).PairRound(tp.PairRoundRequest(tournament_id=tid, pairings=pairings), metadata=d.md)

    await turned_down(pair_round(good), S.FAILED_PRECONDITION)  # not started
    await stub(w).StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=d.md)
    await w.tournament_sweeps()
    st = await state(w, d, tid)
    assert not st.games and dict(st.tournament.rounds_paired).get("Open", 0) == 0
    for bad, at_fault in (
        ([good[0], pair(first_entrant_id="e_nobody")], "pairings[1]"),
        ([good[0], pair(first_entrant_id=x.entrant_id)], "pairings[1]"),
        ([good[0]], "pairings"),
    ):
        err = await turned_down(pair_round(bad), S.INVALID_ARGUMENT)
        assert field_of(err).startswith(at_fault), (field_of(err), at_fault)
    assert not (await state(w, d, tid)).games
    games = (await pair_round(good)).games  # type: ignore[attr-defined]
    assert [(g.first_entrant_id, g.second_entrant_id) for g in games] == [
        (x.entrant_id, y.entrant_id),
        (z.entrant_id, ""),
    ]
    bye = next(g for g in games if not g.second_entrant_id)
    assert bye.status == tp.TOURNAMENT_GAME_STATUS_DONE
    await playing(w, d, tid, 1, 1)
    await turned_down(pair_round(good), S.FAILED_PRECONDITION)  # round 1 is being played
    await stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=d.md)


@promise(
    "TournamentService.SetResult",
    "sets or changes a game's result, the reason in the director log; NOT_FOUND unknown game; "
    "INVALID_ARGUMENT reason empty, or a bye",
)
async def _(w: World) -> None:
    tid, d, _ = await started(w, 5)  # two games and a bye: one result does not end the round
    game, other = await playing(w, d, tid, 1, 2)
    bye = next(g for g in (await state(w, d, tid)).games if not g.second_entrant_id)

    def set_result(g: tp.GameRef, first: int, second: int, reason: str) -> object:
        return stub(w).SetResult(
            tp.SetResultRequest(
                tournament_id=tid, game=g, first_score=first, second_score=second, reason=reason
            ),
            metadata=d.md,
        )

    err = await turned_down(set_result(ref(game), 400, 300, " "), S.INVALID_ARGUMENT)
    assert field_of(err) == "reason"
    await turned_down(set_result(ref(bye), 400, 300, "typo"), S.INVALID_ARGUMENT)
    await turned_down(set_result(tp.GameRef(round=9), 400, 300, "typo"), S.NOT_FOUND)
    st = await state(w, d, tid)
    assert {g.status for g in st.games if g.second_entrant_id} == {tp.TOURNAMENT_GAME_STATUS_PLAYING}
    assert [e.action for e in st.log] == ["start"]
    r = await set_result(ref(game), 400, 300, "scoresheet")
    g = r.game  # type: ignore[attr-defined]
    assert (g.status, g.first_score, g.second_score, g.first_result) == (
        tp.TOURNAMENT_GAME_STATUS_DONE,
        400,
        300,
        tp.GAME_SIDE_WIN,
    )
    r = await set_result(ref(game), 300, 410, "scores swapped on the sheet")
    assert r.game.first_result == tp.GAME_SIDE_LOSS  # type: ignore[attr-defined]
    st = await state(w, d, tid)
    assert [e.action for e in st.log] == ["start", "set_result", "set_result"]
    assert "scores swapped on the sheet" in st.log[-1].detail
    assert next(g for g in st.games if ref(g) == ref(other)).status == tp.TOURNAMENT_GAME_STATUS_PLAYING
    spread = {s.entrant_id: s.spread for s in st.standings[0].standings}
    assert (spread[game.first_entrant_id], spread[game.second_entrant_id]) == (-110, 110)
    await stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=d.md)


@promise(
    "TournamentService.AwardForfeit",
    "the game ends as a win for winner_entrant_id by bye_spread points, logged; NOT_FOUND unknown "
    "game; INVALID_ARGUMENT the winner does not play that game",
)
async def _(w: World) -> None:
    tid, d, _ = await started(w, 2, bye_spread=75)
    (game,) = await playing(w, d, tid, 1, 1)

    def forfeit(g: tp.GameRef, winner: str) -> object:
        return stub(w).AwardForfeit(
            tp.AwardForfeitRequest(tournament_id=tid, game=g, winner_entrant_id=winner, reason="no show"),
            metadata=d.md,
        )

    await turned_down(forfeit(ref(game), "e_nobody"), S.INVALID_ARGUMENT)
    await turned_down(forfeit(tp.GameRef(round=9), game.second_entrant_id), S.NOT_FOUND)
    r = await forfeit(ref(game), game.second_entrant_id)
    g = r.game  # type: ignore[attr-defined]
    assert (g.status, g.forfeit, g.first_score, g.second_score, g.first_result) == (
        tp.TOURNAMENT_GAME_STATUS_DONE,
        True,
        0,
        75,
        tp.GAME_SIDE_LOSS,
    )
    st = await state(w, d, tid)
    top = st.standings[0].standings[0]
    assert (top.entrant_id, top.wins, top.spread) == (game.second_entrant_id, 1, 75)
    assert st.log[-1].action == "forfeit" and "no show" in st.log[-1].detail
    await stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=d.md)


@promise(
    "TournamentService.AddEntrant",
    "a player by id or a bot of bot_level 1..6, in REGISTRATION or RUNNING (then paired from the "
    "next round); another player is only invited (Entrant.invited, paired in no game, in no "
    "standings) until they accept with Register; NOT_FOUND unknown player; INVALID_ARGUMENT a "
    "bot_level outside 1..6",
)
async def _(w: World) -> None:
    d, p = await w.guest("td"), await w.guest("tp")
    tid = await create(w, d, 2)
    added = (
        await stub(w).AddEntrant(
            tp.AddEntrantRequest(tournament_id=tid, player_id=p.player_id), metadata=d.md
        )
    ).entrant
    assert added.player.player_id == p.player_id and added.division == "Open" and added.invited
    await turned_down(
        stub(w).StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=d.md),
        S.FAILED_PRECONDITION,
    )  # the invitation and nobody else: fewer than 2 entrants
    assert [e.entrant_id for e in (await state(w, d, tid)).standings[0].standings] == []
    accepted = (await stub(w).Register(tp.RegisterRequest(tournament_id=tid), metadata=p.md)).entrant
    assert accepted.entrant_id == added.entrant_id and not accepted.invited
    await turned_down(
        stub(w).AddEntrant(tp.AddEntrantRequest(tournament_id=tid, player_id="p_nobody"), metadata=d.md),
        S.NOT_FOUND,
    )
    await turned_down(
        stub(w).AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=7), metadata=d.md),
        S.INVALID_ARGUMENT,
    )
    await register(w, tid, 1)
    await stub(w).StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=d.md)
    (game,) = await playing(w, d, tid, 1, 1)
    bot = (
        await stub(w).AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=2), metadata=d.md)
    ).entrant
    assert bot.player.player_id == "bot:2"
    assert len((await state(w, d, tid)).games) == 1  # not in the round being played
    await stub(w).SetResult(
        tp.SetResultRequest(
            tournament_id=tid, game=ref(game), first_score=300, second_score=200, reason="scoresheet"
        ),
        metadata=d.md,
    )

    async def round_two() -> list[tp.TournamentGame]:
        return [g for g in (await state(w, d, tid)).games if g.round == 2]

    r2 = await eventually(round_two)
    assert bot.entrant_id in {e for g in r2 for e in (g.first_entrant_id, g.second_entrant_id)}
    await stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=d.md)


@promise(
    "TournamentService.RemoveEntrant",
    "the entrant is withdrawn: not paired from the next round on, its games played still count; "
    "NOT_FOUND unknown entrant",
)
async def _(w: World) -> None:
    tid, d, _ = await started(w, 4)
    games = await playing(w, d, tid, 1, 2)
    gone = games[0].second_entrant_id
    await turned_down(
        stub(w).RemoveEntrant(
            tp.RemoveEntrantRequest(tournament_id=tid, entrant_id="e_nobody"), metadata=d.md
        ),
        S.NOT_FOUND,
    )
    r = await stub(w).RemoveEntrant(
        tp.RemoveEntrantRequest(tournament_id=tid, entrant_id=gone, reason="left"), metadata=d.md
    )
    assert r.entrant.withdrawn and r.entrant.entrant_id == gone
    for g in games:
        await stub(w).SetResult(
            tp.SetResultRequest(
                tournament_id=tid, game=ref(g), first_score=200, second_score=300, reason="scoresheet"
            ),
            metadata=d.md,
        )

    async def round_two() -> list[tp.TournamentGame]:
        return [g for g in (await state(w, d, tid)).games if g.round == 2]

    r2 = await eventually(round_two)
    assert len(r2) == 2 and gone not in {e for g in r2 for e in (g.first_entrant_id, g.second_entrant_id)}
    st = await state(w, d, tid)
    line = next(s for s in st.standings[0].standings if s.entrant_id == gone)
    assert (line.wins, line.spread) == (1, 100)
    (removal,) = [e for e in st.log if e.action == "remove_entrant"]  # the one removal, logged once
    assert "left" in removal.detail  # with its reason
    await stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=d.md)
