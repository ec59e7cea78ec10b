"""What the contract promises about no-shows (``TournamentSettings.no_show_timeout``,
``MatchOptions.no_show_timeout``, ``Seat.no_show_deadline``, ``SeatResult.no_show``), rounds at
set times (``TournamentSettings.round_interval``) and the games' archive in pieces
(``TournamentService.ExportGamesStream``), as checks over real gRPC against the world's lobby and
match server (real time: the shortest no-show times the contract allows)."""

from __future__ import annotations

import hashlib
import io
import time
import uuid
import zipfile

import grpc
from google.protobuf.duration_pb2 import Duration
from lobby_promises import field_of
from tournament_promises import UNKNOWN, create, playing, register, settings, state, stub, turned_down
from world import World, eventually, promise, refused

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import lobby_pb2 as lb
from wordarena.v1 import match_pb2 as m
from wordarena.v1 import tournament_pb2 as tp

S = grpc.StatusCode


@promise(
    "TournamentService.CreateTournament",
    "no_show_timeout (0 or 5 s .. 7 days) and round_interval (0 or 1 s .. 7 days) are kept as given; "
    "out of range, or a no_show_timeout in the game's options, INVALID_ARGUMENT naming the field",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    kept = settings(2, no_show_timeout=Duration(seconds=90), round_interval=Duration(seconds=3600))
    t = (await stub(w).CreateTournament(tp.CreateTournamentRequest(settings=kept), metadata=d.md)).tournament
    assert (t.settings.no_show_timeout.seconds, t.settings.round_interval.seconds) == (90, 3600)
    in_game = settings(2)
    in_game.game.options.no_show_timeout.CopyFrom(Duration(seconds=60))
    for bad, field in (
        (settings(2, no_show_timeout=Duration(seconds=4)), "settings.no_show_timeout"),
        (settings(2, round_interval=Duration(seconds=8 * 86400)), "settings.round_interval"),
        (in_game, "settings.game.options.no_show_timeout"),
    ):
        call = stub(w).CreateTournament(tp.CreateTournamentRequest(settings=bad), metadata=d.md)
        assert field_of(await turned_down(call, S.INVALID_ARGUMENT)) == field


@promise(
    "TournamentService.GetTournament",
    "a side that has not made its first move within no_show_timeout forfeits: the game DONE and "
    "forfeit, bye_spread to the other, logged as no_show with no director; the match has "
    "MatchOptions.no_show_timeout",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    tid = await create(w, d, 1, no_show_timeout=Duration(seconds=5), bye_spread=30)
    (a, _), _b = await register(w, tid, 2)
    await stub(w).StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=d.md)
    (game,) = await playing(w, a, tid, 1, 1)
    assert (await a.view(game.match_id)).options.no_show_timeout.seconds == 5

    async def forfeited() -> tp.TournamentGame | None:
        (g,) = (await state(w, d, tid)).games
        return g if g.status == tp.TOURNAMENT_GAME_STATUS_DONE else None

    g = await eventually(forfeited, 30)
    assert g.forfeit and (g.first_result, g.first_score, g.second_score) == (tp.GAME_SIDE_LOSS, 0, 30)
    log = [(x.action, x.director_id) for x in (await state(w, d, tid)).log]
    assert ("no_show", "") in log, log


@promise(
    "TournamentService.CreateTournament",
    "with round_interval, round 2 is not paired before its time even when round 1 is over",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    tid = await create(w, d, 2, round_interval=Duration(seconds=3600))
    await register(w, tid, 2)
    await stub(w).StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=d.md)
    (game,) = await playing(w, d, tid, 1, 1)
    ref = tp.GameRef(division=game.division, round=1, pairing=game.pairing, game=game.game)
    await stub(w).SetResult(
        tp.SetResultRequest(tournament_id=tid, game=ref, first_score=300, second_score=200, reason="sheet"),
        metadata=d.md,
    )
    await w.tournament_sweeps()
    st = await state(w, d, tid)
    assert max(g.round for g in st.games) == 1 and st.tournament.status == tp.TOURNAMENT_STATUS_RUNNING
    await stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=d.md)


@promise(
    "MatchControlService.CreateMatch",
    "options.no_show_timeout: a seat that has not moved by then is timed out though its game clock "
    "has time left, and the options show it; a seat that has moved is not held to it",
)
async def _(w: World) -> None:
    a, b = await w.guest("ns-a"), await w.guest("ns-b")
    seats = [ctl.SeatAssignment(index=i, player=c.Player(player_id=g.player_id, display_name=g.name))
             for i, g in enumerate((a, b))]  # fmt: skip
    options = c.MatchOptions(no_show_timeout=Duration(seconds=1))
    req = ctl.CreateMatchRequest(match_id=uuid.uuid4().hex[:12], ruleset=c.RulesetRef(ruleset_id="classic"),
                                 seats=seats, seed=3, options=options)  # fmt: skip
    await w.control.CreateMatch(req, metadata=w.service_md)
    assert (await a.view(req.match_id)).options.no_show_timeout.seconds == 1
    await a.submit(req.match_id, c.Move(pass_turn=c.PassMove()))  # seat 0 shows at once

    async def over() -> bool:
        return (await a.view(req.match_id)).HasField("result")

    await eventually(over, 10)
    view = await a.view(req.match_id)
    assert [s.status for s in view.seats] == [c.SEAT_STATUS_ACTIVE, c.SEAT_STATUS_TIMED_OUT]


@promise(
    "MatchService.GetMatch",
    "Seat.no_show_deadline: on the seat to move while the first-move deadline applies (its turn's "
    "start + no_show_timeout); unset on the other seats until their first turn, once a seat has "
    "moved, and without no_show_timeout",
)
async def _(w: World) -> None:
    a, b = await w.guest("nd-a"), await w.guest("nd-b")
    seats = [ctl.SeatAssignment(index=i, player=c.Player(player_id=g.player_id, display_name=g.name))
             for i, g in enumerate((a, b))]  # fmt: skip

    def due(view: m.MatchView) -> list[float | None]:
        return [s.no_show_deadline.ToNanoseconds() / 1e9 if s.HasField("no_show_deadline") else None
                for s in view.seats]  # fmt: skip

    plain = ctl.CreateMatchRequest(match_id=uuid.uuid4().hex[:12], ruleset=c.RulesetRef(ruleset_id="classic"),
                                   seats=seats, seed=3)  # fmt: skip
    await w.control.CreateMatch(plain, metadata=w.service_md)
    assert due(await a.view(plain.match_id)) == [None, None]
    req = ctl.CreateMatchRequest(match_id=uuid.uuid4().hex[:12], ruleset=c.RulesetRef(ruleset_id="classic"),
                                 seats=seats, seed=3)  # fmt: skip
    req.options.no_show_timeout.CopyFrom(Duration(seconds=600))
    await w.control.CreateMatch(req, metadata=w.service_md)
    view = await b.view(req.match_id)
    first, second = due(view)
    assert first is not None and second is None
    assert view.create_time.ToNanoseconds() / 1e9 + 600 <= first <= time.time() + 600
    before = time.time()
    await a.submit(req.match_id, c.Move(pass_turn=c.PassMove()))
    first, second = due(await b.view(req.match_id))
    assert first is None and second is not None and before + 600 <= second <= time.time() + 600
    await b.submit(req.match_id, c.Move(pass_turn=c.PassMove()))
    view = await a.view(req.match_id)
    assert view.to_move_seat == 0 and due(view) == [None, None]


@promise(
    "TournamentService.ExportGamesStream",
    "the archive in pieces of at most 256 KiB in order (offset), the counts, total_size and sha256 "
    "on the first; put together, the zip of standings.csv and the GCGs; NOT_FOUND unknown tournament",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    game = lb.TableSettings(
        ruleset=c.RulesetRef(ruleset_id="classic"), options=c.MatchOptions(spectators_allowed=True)
    )
    created = await stub(w).CreateTournament(
        tp.CreateTournamentRequest(settings=tp.TournamentSettings(name="Stream Open", game=game, rounds=1)),
        metadata=d.md,
    )
    tid = created.tournament.tournament_id
    for _ in range(2):
        await stub(w).AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=1), metadata=d.md)
    await stub(w).StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=d.md)

    async def finished() -> bool:
        return (await state(w, d, tid)).tournament.status == tp.TOURNAMENT_STATUS_FINISHED

    await eventually(finished)
    req = tp.ExportGamesStreamRequest(tournament_id=tid)
    pieces = [p async for p in stub(w).ExportGamesStream(req, metadata=d.md)]
    head = pieces[0]
    data = b"".join(p.chunk for p in pieces)
    assert (head.games, head.withheld, head.total_size) == (1, 0, len(data))
    assert head.sha256 == hashlib.sha256(data).hexdigest()
    assert all(len(p.chunk) <= 256 * 1024 for p in pieces)
    assert [p.offset for p in pieces] == [sum(len(q.chunk) for q in pieces[:i]) for i in range(len(pieces))]
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert "standings.csv" in names and len([n for n in names if n.endswith(".gcg")]) == 1, names

    async def drain() -> None:
        async for _ in stub(w).ExportGamesStream(
            tp.ExportGamesStreamRequest(tournament_id=UNKNOWN), metadata=d.md
        ):
            pass

    await refused(drain(), S.NOT_FOUND)
