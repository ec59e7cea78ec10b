"""What tournament.proto promises about TournamentService's player-facing RPCs (creating,
reading, watching, registering), as checks over real gRPC against the world's lobby, whose
games are created on the world's match server. Entrants are guests who never move (their games
stay PLAYING until a director sets a result) or bots; the director RPCs are in
``tournament_director_promises``."""

from __future__ import annotations

import asyncio
import io
import time
import zipfile
from typing import Any

import grpc
from google.protobuf import duration_pb2, timestamp_pb2
from lobby_promises import field_of
from world import Guest, World, detail, eventually, lobby_code, promise, refused

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import lobby_pb2 as lb
from wordarena.v1 import tournament_pb2 as tp
from wordarena.v1 import tournament_pb2_grpc

S = grpc.StatusCode
#: A well-formed tournament id no tournament has.
UNKNOWN = "t_conformance_nobody"


def stub(w: World) -> tournament_pb2_grpc.TournamentServiceStub:
    """TournamentService, at the lobby's address."""
    return tournament_pb2_grpc.TournamentServiceStub(w.lobby_channel)


def settings(rounds: int = 1, **kw: Any) -> tp.TournamentSettings:
    """Tournament settings of classic games."""
    game = lb.TableSettings(ruleset=c.RulesetRef(ruleset_id="classic"))
    return tp.TournamentSettings(name="Conformance Open", game=game, rounds=rounds, **kw)


async def create(w: World, director: Guest, rounds: int = 1, **kw: Any) -> str:
    """A new tournament's id."""
    r = await stub(w).CreateTournament(
        tp.CreateTournamentRequest(settings=settings(rounds, **kw)), metadata=director.md
    )
    return str(r.tournament.tournament_id)


async def state(w: World, g: Guest, tid: str) -> tp.TournamentState:
    """The tournament's whole state, as ``g`` reads it."""
    return (await stub(w).GetTournament(tp.GetTournamentRequest(tournament_id=tid), metadata=g.md)).state


async def register(w: World, tid: str, n: int) -> list[tuple[Guest, tp.Entrant]]:
    """``n`` new guests registered in the tournament, with their entries."""
    out = []
    for _ in range(n):
        g = await w.guest("tp")
        out.append(
            (g, (await stub(w).Register(tp.RegisterRequest(tournament_id=tid), metadata=g.md)).entrant)
        )
    return out


async def playing(w: World, g: Guest, tid: str, round_: int, n: int) -> list[tp.TournamentGame]:
    """The round's ``n`` games between two entrants, once every one is PLAYING."""

    async def check() -> list[tp.TournamentGame] | None:
        games = [x for x in (await state(w, g, tid)).games if x.round == round_ and x.second_entrant_id]
        done = len(games) == n and all(x.status == tp.TOURNAMENT_GAME_STATUS_PLAYING for x in games)
        return games if done else None

    return list(await eventually(check))


async def turned_down(call: Any, code: grpc.StatusCode) -> grpc.aio.AioRpcError:
    """The error ``call`` fails with: status ``code``, with a LobbyViolation detail and, for
    INVALID_ARGUMENT, a BadRequest naming the field (tournament.proto's file comment)."""
    err = await refused(call, code)
    assert detail(err, e.LobbyViolation) is not None, f"{code.name} without a LobbyViolation"
    if code == S.INVALID_ARGUMENT:
        assert field_of(err), "INVALID_ARGUMENT without a BadRequest naming the field"
    return err


def at(seconds_from_now: float) -> timestamp_pb2.Timestamp:
    """A timestamp that far from now."""
    t = timestamp_pb2.Timestamp()
    t.FromNanoseconds(int((time.time() + seconds_from_now) * 1e9))
    return t


@promise(
    "TournamentService.CreateTournament",
    "creates a tournament in REGISTRATION whose director is the caller; INVALID_ARGUMENT naming "
    "the settings field at fault (SETTINGS_INVALID for the game settings); a refusal changes nothing",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    r = await stub(w).CreateTournament(tp.CreateTournamentRequest(settings=settings(3)), metadata=d.md)
    t = r.tournament
    assert t.status == tp.TOURNAMENT_STATUS_REGISTRATION and list(t.director_ids) == [d.player_id]
    assert t.settings.rounds == 3 and t.settings.name == "Conformance Open"
    before = len((await stub(w).ListTournaments(tp.ListTournamentsRequest(), metadata=d.md)).tournaments)
    err = await turned_down(
        stub(w).CreateTournament(tp.CreateTournamentRequest(settings=settings(0)), metadata=d.md),
        S.INVALID_ARGUMENT,
    )
    assert field_of(err) == "settings.rounds"
    bad = settings(1)
    bad.game.seats = 3
    err = await turned_down(
        stub(w).CreateTournament(tp.CreateTournamentRequest(settings=bad), metadata=d.md), S.INVALID_ARGUMENT
    )
    assert lobby_code(err) == e.LOBBY_CODE_SETTINGS_INVALID and field_of(err) == "settings.game.seats"
    after = len((await stub(w).ListTournaments(tp.ListTournamentsRequest(), metadata=d.md)).tournaments)
    assert after == before


@promise(
    "TournamentService.GetTournament",
    "the state: settings, entrants, games (match_id and address on the match server), standings "
    "and director log; NOT_FOUND unknown tournament",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    tid = await create(w, d, 2)
    (a, ea), (b, eb) = await register(w, tid, 2)
    await stub(w).StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=d.md)
    (game,) = await playing(w, a, tid, 1, 1)
    assert {game.first_entrant_id, game.second_entrant_id} == {ea.entrant_id, eb.entrant_id}
    assert game.match_id and game.address == w.match_address
    # the game is a match on the match server that its two entrants play
    view = await a.view(game.match_id)
    assert {s.player.player_id for s in view.seats} == {a.player_id, b.player_id}
    st = await state(w, b, tid)
    assert st.tournament.settings.rounds == 2 and st.tournament.status == tp.TOURNAMENT_STATUS_RUNNING
    assert {x.player.player_id for x in st.entrants} == {a.player_id, b.player_id}
    assert [s.division for s in st.standings] == ["Open"] and len(st.standings[0].standings) == 2
    assert [(x.action, x.director_id) for x in st.log] == [("start", d.player_id)]
    await turned_down(
        stub(w).GetTournament(tp.GetTournamentRequest(tournament_id=UNKNOWN), metadata=a.md), S.NOT_FOUND
    )


@promise("TournamentService.ListTournaments",
         "REGISTRATION before FINISHED, then most entrants, then newest first; paged; status filters")
async def _(w: World) -> None:
    d = await w.guest("td")
    first = await create(w, d)
    second = await create(w, d)

    async def listed(**kw: Any) -> list[str]:
        out, token = [], ""
        while True:
            req = tp.ListTournamentsRequest(page_token=token, **kw)
            page = await stub(w).ListTournaments(req, metadata=d.md)
            assert len(page.tournaments) <= (kw.get("page_size") or 50)
            out += [t.tournament_id for t in page.tournaments]
            if not (token := page.next_page_token):
                return out

    everything = await listed(page_size=7)
    assert len(everything) == len(set(everything)) and everything.index(second) < everything.index(first)
    await stub(w).Register(tp.RegisterRequest(tournament_id=first), metadata=(await w.guest("tp")).md)
    everything = await listed(page_size=100)
    assert everything.index(first) < everything.index(second)  # an entrant: a real event
    await stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=first), metadata=d.md)
    everything = await listed()
    assert everything.index(second) < everything.index(first)  # finished: after those taking entries
    finished = (
        await stub(w).ListTournaments(
            tp.ListTournamentsRequest(status=tp.TOURNAMENT_STATUS_FINISHED), metadata=d.md
        )
    ).tournaments
    assert first in {t.tournament_id for t in finished} and second not in {t.tournament_id for t in finished}
    assert {t.status for t in finished} == {tp.TOURNAMENT_STATUS_FINISHED}


@promise(
    "TournamentService.GetTournament",
    "every RPC needs a player token: UNAUTHENTICATED missing or forged, PERMISSION_DENIED a service token",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    tid = await create(w, d)
    req = tp.GetTournamentRequest(tournament_id=tid)
    await refused(stub(w).GetTournament(req), S.UNAUTHENTICATED)
    await refused(
        stub(w).GetTournament(req, metadata=[("authorization", "Bearer forged")]), S.UNAUTHENTICATED
    )
    await refused(stub(w).GetTournament(req, metadata=w.service_md), S.PERMISSION_DENIED)
    create_req = tp.CreateTournamentRequest(settings=settings())
    await refused(stub(w).CreateTournament(create_req, metadata=w.service_md), S.PERMISSION_DENIED)


@promise(
    "TournamentService.WatchTournament",
    "first a SNAPSHOT of the state, then the whole state again after every change; the stream "
    "ends after the FINISHED state; NOT_FOUND unknown tournament",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    tid = await create(w, d)
    stream = stub(w).WatchTournament(tp.WatchTournamentRequest(tournament_id=tid), metadata=d.md)
    first = await asyncio.wait_for(stream.read(), 10)
    assert first.kind == tp.TOURNAMENT_UPDATE_KIND_SNAPSHOT and first.state.tournament.tournament_id == tid
    assert not first.state.entrants
    await register(w, tid, 1)
    changed = await asyncio.wait_for(stream.read(), 10)
    assert changed.kind == tp.TOURNAMENT_UPDATE_KIND_CHANGED and len(changed.state.entrants) == 1
    await stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=tid), metadata=d.md)
    rest = []
    while (msg := await asyncio.wait_for(stream.read(), 10)) is not grpc.aio.EOF:
        rest.append(msg)
    assert rest and rest[-1].state.tournament.status == tp.TOURNAMENT_STATUS_FINISHED
    assert {m.kind for m in rest} == {tp.TOURNAMENT_UPDATE_KIND_CHANGED}
    gone = stub(w).WatchTournament(tp.WatchTournamentRequest(tournament_id=UNKNOWN), metadata=d.md)
    await turned_down(gone.read(), S.NOT_FOUND)


@promise(
    "TournamentService.GetStandings",
    "one division's standings, the first when division is empty; NOT_FOUND unknown tournament or division",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    tid = await create(w, d, divisions=[tp.Division(name="Main"), tp.Division(name="Side")])
    ((a, ea),) = await register(w, tid, 1)
    for division in ("", "Main"):
        r = await stub(w).GetStandings(
            tp.GetStandingsRequest(tournament_id=tid, division=division), metadata=a.md
        )
        assert r.standings.division == "Main"
        assert [(s.entrant_id, s.rank, s.wins) for s in r.standings.standings] == [(ea.entrant_id, 1, 0)]
    side = await stub(w).GetStandings(
        tp.GetStandingsRequest(tournament_id=tid, division="Side"), metadata=a.md
    )
    assert side.standings.division == "Side" and not side.standings.standings
    await turned_down(
        stub(w).GetStandings(tp.GetStandingsRequest(tournament_id=tid, division="Nowhere"), metadata=a.md),
        S.NOT_FOUND,
    )
    await turned_down(
        stub(w).GetStandings(tp.GetStandingsRequest(tournament_id=UNKNOWN), metadata=a.md), S.NOT_FOUND
    )


@promise(
    "TournamentService.ExportStandings",
    "every division's standings as CSV: one header line, then one line per entrant; NOT_FOUND",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    tid = await create(w, d, divisions=[tp.Division(name="Main"), tp.Division(name="Side")])
    entries = await register(w, tid, 2)
    await stub(w).AddEntrant(
        tp.AddEntrantRequest(tournament_id=tid, bot_level=1, division="Side"), metadata=d.md
    )
    csv = (await stub(w).ExportStandings(tp.ExportStandingsRequest(tournament_id=tid), metadata=d.md)).csv
    header, *lines = csv.strip().splitlines()
    assert header == "division,rank,entrant_id,name,wins,losses,ties,spread,byes,points,opponents_points"
    assert sorted(line.split(",")[0] for line in lines) == ["Main", "Main", "Side"]
    assert {x.entrant_id for _, x in entries} <= {line.split(",")[2] for line in lines}
    await turned_down(
        stub(w).ExportStandings(tp.ExportStandingsRequest(tournament_id=UNKNOWN), metadata=d.md), S.NOT_FOUND
    )


@promise(
    "TournamentService.Register",
    "into the first division whose band holds the rating (1500 without one); again = the same "
    "entrant; FAILED_PRECONDITION no band holds it, tournament full, or not in REGISTRATION",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    bands = [
        tp.Division(name="Novice", max_rating=1400),
        tp.Division(name="Main", min_rating=1401),
        tp.Division(name="Any"),
    ]
    tid = await create(w, d, divisions=bands, max_entrants=2)
    ((a, ea),) = await register(w, tid, 1)
    assert (ea.division, ea.seed_rating) == ("Main", 1500.0)
    again = await stub(w).Register(tp.RegisterRequest(tournament_id=tid), metadata=a.md)
    assert again.entrant == ea
    await register(w, tid, 1)
    late = await w.guest("tp")
    err = await turned_down(
        stub(w).Register(tp.RegisterRequest(tournament_id=tid), metadata=late.md), S.FAILED_PRECONDITION
    )
    assert "full" in (err.details() or "")
    masters = await create(w, d, divisions=[tp.Division(name="Masters", min_rating=2000)])
    await turned_down(
        stub(w).Register(tp.RegisterRequest(tournament_id=masters), metadata=late.md), S.FAILED_PRECONDITION
    )
    await stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=masters), metadata=d.md)
    ended = await create(w, d)
    await stub(w).EndTournament(tp.EndTournamentRequest(tournament_id=ended), metadata=d.md)
    await turned_down(
        stub(w).Register(tp.RegisterRequest(tournament_id=ended), metadata=late.md), S.FAILED_PRECONDITION
    )
    assert not (await state(w, d, ended)).entrants


@promise(
    "TournamentService.Unregister",
    "withdraws the caller's registration; NOT_FOUND not registered; FAILED_PRECONDITION not in REGISTRATION",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    tid = await create(w, d)
    (a, _), (b, _), (x, _) = await register(w, tid, 3)
    await stub(w).Unregister(tp.UnregisterRequest(tournament_id=tid), metadata=x.md)
    active = {y.player.player_id for y in (await state(w, d, tid)).entrants if not y.withdrawn}
    assert active == {a.player_id, b.player_id}
    await turned_down(stub(w).Unregister(tp.UnregisterRequest(tournament_id=tid), metadata=d.md), S.NOT_FOUND)
    await stub(w).StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=d.md)
    await turned_down(
        stub(w).Unregister(tp.UnregisterRequest(tournament_id=tid), metadata=a.md), S.FAILED_PRECONDITION
    )
    mine = next(y for y in (await state(w, d, tid)).entrants if y.player.player_id == a.player_id)
    assert not mine.withdrawn


@promise(
    "TournamentService.CheckIn",
    "checks the caller in within check_in_window before start_time; NOT_FOUND not registered; "
    "FAILED_PRECONDITION no check-in needed, or the window not open",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    window = duration_pb2.Duration(seconds=600)
    open_now = await create(w, d, start_time=at(300), check_in_window=window)
    ((a, ea),) = await register(w, open_now, 1)
    assert not ea.checked_in
    r = await stub(w).CheckIn(tp.CheckInRequest(tournament_id=open_now), metadata=a.md)
    assert r.entrant.checked_in and r.entrant.entrant_id == ea.entrant_id
    await turned_down(stub(w).CheckIn(tp.CheckInRequest(tournament_id=open_now), metadata=d.md), S.NOT_FOUND)
    later = await create(w, d, start_time=at(3600), check_in_window=window)
    await stub(w).Register(tp.RegisterRequest(tournament_id=later), metadata=a.md)
    await turned_down(
        stub(w).CheckIn(tp.CheckInRequest(tournament_id=later), metadata=a.md), S.FAILED_PRECONDITION
    )
    none_needed = await create(w, d)
    await stub(w).Register(tp.RegisterRequest(tournament_id=none_needed), metadata=a.md)
    await turned_down(
        stub(w).CheckIn(tp.CheckInRequest(tournament_id=none_needed), metadata=a.md), S.FAILED_PRECONDITION
    )


@promise(
    "TournamentService.ExportGames",
    "a zip of standings.csv and one GCG per finished game the caller may read (every game when "
    "the games allow spectators; the others counted in withheld); NOT_FOUND unknown tournament",
)
async def _(w: World) -> None:
    d = await w.guest("td")
    game = lb.TableSettings(ruleset=c.RulesetRef(ruleset_id="classic"),
                            options=c.MatchOptions(spectators_allowed=True))
    r = await stub(w).CreateTournament(
        tp.CreateTournamentRequest(settings=tp.TournamentSettings(name="Export Open", game=game, rounds=1)),
        metadata=d.md,
    )
    tid = r.tournament.tournament_id
    for _ in range(2):
        await stub(w).AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=1), metadata=d.md)
    await stub(w).StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=d.md)

    async def finished() -> bool:
        return (await state(w, d, tid)).tournament.status == tp.TOURNAMENT_STATUS_FINISHED

    await eventually(finished)
    out = await stub(w).ExportGames(tp.ExportGamesRequest(tournament_id=tid), metadata=d.md)
    names = zipfile.ZipFile(io.BytesIO(out.zip)).namelist()
    assert "standings.csv" in names and out.games == 1 and not out.withheld, (names, out)
    assert len([n for n in names if n.endswith(".gcg")]) == 1, names
    await turned_down(
        stub(w).ExportGames(tp.ExportGamesRequest(tournament_id=UNKNOWN), metadata=d.md), S.NOT_FOUND
    )
