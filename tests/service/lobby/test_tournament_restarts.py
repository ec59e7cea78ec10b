"""Restart safety: the lobby (a separate process) is killed with SIGKILL again and again (4 times
under ``--soak``, twice by default: tests/soak.py) while a tournament of bots is played on a real
match server, and started again on the same database.
The tournament still ends with every round paired once, every game played once to a result
that is its match's result, and everyone meeting everyone once."""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
import soak
from google.protobuf.duration_pb2 import Duration
from tournament_servers import start_linked_match

from wordarena.services.common.db import Database
from wordarena.services.lobby import store
from wordarena.services.lobby.tournaments import rows
from wordarena.v1 import common_pb2, lobby_pb2, lobby_pb2_grpc, tournament_pb2_grpc
from wordarena.v1 import tournament_pb2 as tp

# the store is what this proves: on SQLite and PostgreSQL (tests/conftest.py)
pytestmark = pytest.mark.database

LOBBY = [sys.executable, "-m", "wordarena.services.lobby.main"]
KILLS = soak.pick(4, 2)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _lobby(port: int, database_url: str, data_dir: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            *LOBBY,
            "--listen",
            f"127.0.0.1:{port}",
            "--database-url",
            database_url,
            "--data-dir",
            str(data_dir),
            "--log-level",
            "warning",
        ],
        stdout=subprocess.DEVNULL,
        stderr=open(data_dir / "lobby.log", "ab"),
    )


async def _until_up(channel: grpc.aio.Channel) -> None:
    await asyncio.wait_for(channel.channel_ready(), 30)


@pytest.mark.soak
async def test_killing_the_lobby_mid_tournament_loses_nothing_and_pairs_nothing_twice(
    database_url: str, tmp_path: Path
) -> None:
    port = _free_port()
    proc = _lobby(port, database_url, tmp_path)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    ms = None
    try:
        await _until_up(channel)
        # bots think 0.1 s a move: with the native move generator a 3-round event of level-1
        # bots would otherwise end before the lobby has been killed twice
        ms = await start_linked_match(tmp_path, port, "ms-r", bot_delay=0.1)
        assert ms.link is not None
        await asyncio.wait_for(ms.link.registered.wait(), 20)
        guest = await lobby_pb2_grpc.LobbyServiceStub(channel).SignInGuest(
            lobby_pb2.SignInGuestRequest(display_name="Director")
        )
        md = [("authorization", f"Bearer {guest.token.token}")]
        ts = tournament_pb2_grpc.TournamentServiceStub(channel)
        game = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic", language="en"))
        tid = (
            await ts.CreateTournament(
                tp.CreateTournamentRequest(settings=tp.TournamentSettings(name="Kills", game=game, rounds=3)),
                metadata=md,
            )
        ).tournament.tournament_id
        for level in (1, 1, 1, 1):
            await ts.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=level), metadata=md)
        await ts.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=md)
        kills = 0
        deadline = time.monotonic() + 300
        st = None
        while True:
            assert time.monotonic() < deadline, f"the tournament did not finish: {st}"
            try:
                st = (await ts.GetTournament(tp.GetTournamentRequest(tournament_id=tid), metadata=md)).state
            except grpc.aio.AioRpcError:
                await asyncio.sleep(0.2)
                continue
            if st.tournament.status == tp.TOURNAMENT_STATUS_FINISHED:
                break
            if kills < KILLS:  # kill it while games are played, reported and paired; start it again
                await asyncio.sleep(0.7 + 0.4 * kills)
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                kills += 1
                proc = _lobby(port, database_url, tmp_path)
                await _until_up(channel)
            else:
                await asyncio.sleep(0.3)
        assert kills >= 2
        games = list(st.games)
        assert sorted((g.round, g.pairing, g.game) for g in games) == [
            (r, p, 0) for r in (1, 2, 3) for p in (0, 1)
        ]  # each round paired once: two games, no more
        ids = [e.entrant_id for e in st.entrants]
        met = sorted(tuple(sorted((g.first_entrant_id, g.second_entrant_id))) for g in games)
        assert met == sorted(tuple(sorted(p)) for p in itertools.combinations(ids, 2))
        db = Database(database_url)
        try:
            for g in games:
                assert g.status == tp.TOURNAMENT_GAME_STATUS_DONE
                seats = await db.run(store.match_seats, g.match_id)
                assert (seats[0].score, seats[1].score) == (g.first_score, g.second_score)
        finally:
            db.close()
        (div,) = st.standings
        assert sum(s.wins for s in div.standings) + sum(s.ties for s in div.standings) / 2 == 6
    finally:
        await channel.close()
        if ms is not None:
            await ms.stop(0.2)
        proc.kill()
        proc.wait()


async def test_a_lobby_killed_before_a_rounds_set_time_pairs_it_once_after_the_restart(
    database_url: str, tmp_path: Path
) -> None:
    """Round 2 is due 5 s after round 1 was paired; the lobby is killed as soon as round 1 is
    paired and started again only after round 2's time: the new lobby pairs round 2 once."""
    port = _free_port()
    proc = _lobby(port, database_url, tmp_path)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    db = Database(database_url)
    ms = None
    try:
        await _until_up(channel)
        ms = await start_linked_match(tmp_path, port, "ms-t")
        assert ms.link is not None
        await asyncio.wait_for(ms.link.registered.wait(), 20)
        guest = await lobby_pb2_grpc.LobbyServiceStub(channel).SignInGuest(
            lobby_pb2.SignInGuestRequest(display_name="Director")
        )
        md = [("authorization", f"Bearer {guest.token.token}")]
        ts = tournament_pb2_grpc.TournamentServiceStub(channel)
        game = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic", language="en"))
        settings = tp.TournamentSettings(
            name="Timed", game=game, rounds=2, round_interval=Duration(seconds=5)
        )
        tid = (
            await ts.CreateTournament(tp.CreateTournamentRequest(settings=settings), metadata=md)
        ).tournament.tournament_id
        for _ in range(2):
            await ts.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=1), metadata=md)
        await ts.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=md)
        os.kill(proc.pid, signal.SIGKILL)  # round 1 is paired (StartTournament pairs it)
        proc.wait()
        first = await db.run(rows.round_paired_at, tid, "Open", 1)
        assert first is not None and await db.run(rows.round_paired_at, tid, "Open", 2) is None
        await asyncio.sleep(max(first + 5.5 - time.time(), 0.0))  # round 2's time passes, no lobby
        proc = _lobby(port, database_url, tmp_path)
        await _until_up(channel)
        deadline = time.monotonic() + 120
        while True:
            assert time.monotonic() < deadline, "the tournament did not finish"
            st = (await ts.GetTournament(tp.GetTournamentRequest(tournament_id=tid), metadata=md)).state
            if st.tournament.status == tp.TOURNAMENT_STATUS_FINISHED:
                break
            await asyncio.sleep(0.2)
        assert sorted((g.round, g.pairing, g.game) for g in st.games) == [(1, 0, 0), (2, 0, 0)]
        second = await db.run(rows.round_paired_at, tid, "Open", 2)
        assert second is not None and second >= first + 5
    finally:
        db.close()
        await channel.close()
        if ms is not None:
            await ms.stop(0.2)
        proc.kill()
        proc.wait()
