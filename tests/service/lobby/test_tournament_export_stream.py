"""ExportGamesStream over loopback gRPC: an archive larger than the lobby's message limit (1 MiB),
which ExportGames cannot send in one message, comes in pieces of at most 256 KiB whose offsets,
total size and SHA-256 add up, and which put together are the zip of every game's record. The
match server is a fake whose records are large (incompressible) text."""

from __future__ import annotations

import hashlib
import io
import random
import zipfile
from typing import Any

import grpc
from lobby_harness import FakeMatchServer, LobbyEnv, eventually
from tournament_harness import CLASSIC, guest, playing, refused, report, stub

from wordarena.v1 import common_pb2, control_pb2, control_pb2_grpc, match_pb2, match_pb2_grpc
from wordarena.v1 import tournament_pb2 as tp

RECORD_BYTES = 60_000


def big_record(match_id: str) -> str:
    """A match's "record": text that deflate cannot shrink much, the same for the same match."""
    rng = random.Random(match_id)
    return (
        "#character-encoding UTF-8\n#id wordarena "
        + match_id
        + "\n"
        + "".join(
            rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            for _ in range(RECORD_BYTES)
        )
    )


class Records(match_pb2_grpc.MatchServiceServicer):
    """GetMatchRecord of the fake match server."""

    async def GetMatchRecord(self, request: Any, context: Any) -> Any:
        return match_pb2.GetMatchRecordResponse(gcg=big_record(request.match_id))


async def _fake_server(env: LobbyEnv) -> tuple[FakeMatchServer, Any]:
    fake = FakeMatchServer(env.lobby.keys)
    server = grpc.aio.server()
    control_pb2_grpc.add_MatchControlServiceServicer_to_server(fake, server)
    match_pb2_grpc.add_MatchServiceServicer_to_server(Records(), server)
    fake.address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    await server.start()
    await env.registry.RegisterMatchServer(
        control_pb2.RegisterMatchServerRequest(
            server_id="ms-big",
            address=fake.address,
            load=control_pb2.ServerLoad(active_matches=0, capacity=100),
        ),
        metadata=env.service_md,
    )
    return fake, server


async def test_a_large_export_comes_in_pieces_that_add_up_to_the_whole_zip(env: LobbyEnv) -> None:
    fake, server = await _fake_server(env)
    try:
        ts = stub(env)
        _, dmd = await guest(env, "Dora")
        game = lobby_game_with_spectators()
        settings = tp.TournamentSettings(
            name="Big", game=game, rounds=7, round_methods=[tp.PAIRING_METHOD_ROUND_ROBIN]
        )
        tid = (
            await ts.CreateTournament(tp.CreateTournamentRequest(settings=settings), metadata=dmd)
        ).tournament.tournament_id
        for i in range(8):
            _, md = await guest(env, f"Player {i}")
            await ts.Register(tp.RegisterRequest(tournament_id=tid), metadata=md)
        await ts.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=dmd)
        for r in range(1, 8):
            games = await eventually(lambda r=r: playing(env, tid, dmd, r, 4))
            created = {c.match_id: c for c in fake.created}
            for g in games:
                assert not await report(env, created[g.match_id], (400, 350))
        st = await eventually(lambda: _finished(ts, tid, dmd))
        match_ids = {g.match_id for g in st.games}
        assert len(match_ids) == 28

        code, details = await refused(ts.ExportGames(tp.ExportGamesRequest(tournament_id=tid), metadata=dmd))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, details  # too large for one message

        pieces = [
            m
            async for m in ts.ExportGamesStream(tp.ExportGamesStreamRequest(tournament_id=tid), metadata=dmd)
        ]
        head = pieces[0]
        assert head.total_size > 1024 * 1024 and (head.games, head.withheld) == (28, 0)
        assert not head.unavailable
        assert all(len(p.chunk) <= 256 * 1024 for p in pieces) and len(pieces) >= 5
        assert [p.offset for p in pieces] == [
            sum(len(q.chunk) for q in pieces[:i]) for i in range(len(pieces))
        ]
        assert all(not p.sha256 and not p.total_size for p in pieces[1:])
        data = b"".join(p.chunk for p in pieces)
        assert len(data) == head.total_size and hashlib.sha256(data).hexdigest() == head.sha256
        z = zipfile.ZipFile(io.BytesIO(data))
        names = z.namelist()
        assert names[0] == "standings.csv" and len(names) == 29
        got = {z.read(n).decode().split("\n")[1].removeprefix("#id wordarena ") for n in names[1:]}
        assert got == match_ids
        for n in names[1:]:
            text = z.read(n).decode()
            assert text == big_record(text.split("\n")[1].removeprefix("#id wordarena "))

        code, _ = await refused(
            _drain(ts.ExportGamesStream(tp.ExportGamesStreamRequest(tournament_id="tn_nope"), metadata=dmd))
        )
        assert code == grpc.StatusCode.NOT_FOUND
    finally:
        await server.stop(0)


def lobby_game_with_spectators() -> Any:
    game = type(CLASSIC)()
    game.CopyFrom(CLASSIC)
    game.options.CopyFrom(common_pb2.MatchOptions(spectators_allowed=True))
    return game


async def _finished(ts: Any, tid: str, md: Any) -> Any:
    st = (await ts.GetTournament(tp.GetTournamentRequest(tournament_id=tid), metadata=md)).state
    return st if st.tournament.status == tp.TOURNAMENT_STATUS_FINISHED else None


async def _drain(call: Any) -> None:
    async for _ in call:
        pass
