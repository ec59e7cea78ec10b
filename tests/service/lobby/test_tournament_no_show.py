"""No-shows (``TournamentSettings.no_show_timeout``) on a real lobby and match server, the match
server's game time moved on by the test: a side that does not make its first move in time
forfeits (a win for the other by the bye spread, logged as ``no_show``); bad times are refused
naming the field."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration
from tournament_harness import CLASSIC, bad_field
from tournament_servers import servers

from wordarena.services.match import wallclock
from wordarena.v1 import common_pb2, lobby_pb2, lobby_pb2_grpc, match_pb2, match_pb2_grpc
from wordarena.v1 import tournament_pb2 as tp


class SkewedClock:
    """The match server's game time: the real time plus a skew the test moves on."""

    def __init__(self) -> None:
        self.skew = 0.0

    def now(self) -> float:
        return time.time() + self.skew

    async def sleep(self, delay: float) -> None:
        target = self.now() + delay
        while self.now() < target:
            await asyncio.sleep(min(0.05, max(target - self.now(), 0.0)))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> SkewedClock:
    c = SkewedClock()
    monkeypatch.setattr(wallclock, "now", c.now)
    monkeypatch.setattr(wallclock, "call_later", wallclock.on_sleep(c.sleep))
    return c


async def test_a_player_who_does_not_show_forfeits_by_the_bye_spread(
    database_url: str, tmp_path: Path, clock: SkewedClock
) -> None:
    async with servers(database_url, tmp_path) as env:
        stub, md = env.stub, env.md
        settings = tp.TournamentSettings(
            name="Club night", game=CLASSIC, rounds=1, bye_spread=40, no_show_timeout=Duration(seconds=300)
        )
        got = await stub.CreateTournament(tp.CreateTournamentRequest(settings=settings), metadata=md)
        tid = got.tournament.tournament_id
        assert got.tournament.settings.no_show_timeout.seconds == 300
        players = [await env.guest(n) for n in ("Ann", "Ben")]
        ids = {}
        for pid, pmd in players:
            got_entrant = await stub.Register(tp.RegisterRequest(tournament_id=tid), metadata=pmd)
            ids[pid] = got_entrant.entrant.entrant_id
        await stub.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=md)
        game = None
        for _ in range(200):
            st = (await stub.GetTournament(tp.GetTournamentRequest(tournament_id=tid), metadata=md)).state
            if st.games and st.games[0].status == tp.TOURNAMENT_GAME_STATUS_PLAYING:
                game = st.games[0]
                break
            await asyncio.sleep(0.05)
        assert game is not None
        second_md = next(pmd for pid, pmd in players if ids[pid] == game.second_entrant_id)
        async with grpc.aio.insecure_channel(game.address) as ch:
            view = await match_pb2_grpc.MatchServiceStub(ch).GetMatch(
                match_pb2.GetMatchRequest(match_id=game.match_id), metadata=second_md
            )
        assert view.match.options.no_show_timeout.seconds == 300  # the lobby created it so
        clock.skew += 301  # the first mover never moved
        state = await env.watch_to_end(tid, timeout=60)
        (g,) = state.games
        assert g.status == tp.TOURNAMENT_GAME_STATUS_DONE and g.forfeit
        assert (g.first_result, g.first_score, g.second_score) == (tp.GAME_SIDE_LOSS, 0, 40)
        lines = {s.entrant_id: s for s in state.standings[0].standings}
        assert (lines[g.second_entrant_id].wins, lines[g.second_entrant_id].spread) == (1, 40)
        assert (lines[g.first_entrant_id].losses, lines[g.first_entrant_id].spread) == (1, -40)
        (entry,) = [e for e in state.log if e.action == "no_show"]
        assert entry.director_id == "" and g.first_entrant_id in entry.detail
        # a forfeit for not showing moves nobody's rating or record (issue 38, finding 1)
        lobby = lobby_pb2_grpc.LobbyServiceStub(env.channel)
        for pid, pmd in players:
            got = await lobby.GetPlayerRecord(lobby_pb2.GetPlayerRecordRequest(player_id=pid), metadata=pmd)
            assert list(got.records) == [], got.records


async def test_no_show_and_round_interval_out_of_range_are_refused_naming_the_field(
    database_url: str, tmp_path: Path
) -> None:
    async with servers(database_url, tmp_path) as env:
        game_with_deadline = tp.TournamentSettings().game
        game_with_deadline.CopyFrom(CLASSIC)
        game_with_deadline.options.no_show_timeout.CopyFrom(Duration(seconds=60))
        bad = [
            (tp.TournamentSettings(name="x", game=CLASSIC, rounds=2, no_show_timeout=Duration(seconds=4)),
             "settings.no_show_timeout"),
            (tp.TournamentSettings(name="x", game=CLASSIC, rounds=2,
                                   no_show_timeout=Duration(seconds=8 * 86400)), "settings.no_show_timeout"),
            (tp.TournamentSettings(name="x", game=CLASSIC, rounds=2, round_interval=Duration(seconds=-1)),
             "settings.round_interval"),
            (tp.TournamentSettings(name="x", game=game_with_deadline, rounds=2),
             "settings.game.options.no_show_timeout"),
        ]  # fmt: skip
        for settings, field in bad:
            call = env.stub.CreateTournament(tp.CreateTournamentRequest(settings=settings), metadata=env.md)
            assert await bad_field(call) == field
        assert common_pb2.MatchOptions().no_show_timeout.seconds == 0
