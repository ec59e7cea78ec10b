"""The lobby with a real match server, both in-process on loopback gRPC.

A guest opens a table with a bot seat, starts it, and plays the whole game on the match server
(the guest's moves are the engine generator's best move; the bot is ``engine.bots`` level 4). The
match server registered itself with the lobby (``--lobby``) and reports the result. The lobby
is stopped while the game is played, so the first reports fail and are retried until the lobby
is back (same database, same address); then the report is delivered again (a lost
acknowledgement) and once more by hand: the record and the leaderboard count the game exactly once.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from lobby_harness import eventually
from sqlalchemy import update
from sqlmodel import col

from wordarena.engine.movegen import generate_moves
from wordarena.services.common.config import Settings
from wordarena.services.common.db import Database
from wordarena.services.lobby.allocation import AllocationWithdrawn
from wordarena.services.lobby.main import build_lobby
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.lobby.settings import validate_settings
from wordarena.services.lobby.tables import Occupant
from wordarena.services.match import bots
from wordarena.services.match.main import MatchServer
from wordarena.services.match.main import start as start_match
from wordarena.services.match.models import ResultRow
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2, control_pb2_grpc, lobby_pb2, lobby_pb2_grpc, match_pb2_grpc
from wordarena.v1 import match_pb2 as m


@dataclass
class Lobby:
    """A lobby server and a client channel."""

    server: Any
    lobby: Any
    db: Any
    port: int
    channel: grpc.aio.Channel

    @property
    def stub(self) -> lobby_pb2_grpc.LobbyServiceStub:
        return lobby_pb2_grpc.LobbyServiceStub(self.channel)

    async def stop(self) -> None:
        await self.channel.close()
        await self.server.stop(0.2)
        self.db.close()


async def start_lobby(database_url: str, data_dir: Path, port: int = 0) -> Lobby:
    """A lobby on ``port`` (0 = any free port)."""
    settings = Settings(service="lobby", listen=f"127.0.0.1:{port}", database_url=database_url,
                        data_dir=data_dir)
    options = LobbyOptions(password_time_cost=1, password_memory_kib=1024, matchmaking_tick_s=0.05,
                           heartbeat_interval_s=0.2)
    server, lobby, db = await build_lobby(settings, options)
    await lobby.start()
    bound = await server.start()
    return Lobby(server, lobby, db, bound, grpc.aio.insecure_channel(f"127.0.0.1:{bound}"))


async def start_match_server(data_dir: Path, lobby_port: int) -> MatchServer:
    """A real match server reporting to the lobby (own SQLite file, the lobby's dev keys)."""
    settings = Settings(service="match", listen="127.0.0.1:0", advertise_address="127.0.0.1:0",
                        data_dir=data_dir, database_url=f"sqlite:///{data_dir / 'match.db'}",
                        server_id="ms-e2e", shutdown_grace=0.5,
                        extra={"lobby": f"127.0.0.1:{lobby_port}", "report_retry_base": 0.05,
                               "report_retry_max": 0.3})
    return await start_match(settings)



def _move(action: Any) -> c.Move:
    from wordarena.engine.game import Exchange, Play

    if isinstance(action, Play):
        return c.Move(play=c.PlayMove(placements=[
            c.Placement(square=c.Square(row=p.row, col=p.col), letter=p.letter, is_blank=p.blank)
            for p in action.placements]))
    if isinstance(action, Exchange):
        return c.Move(exchange=c.ExchangeMove(tiles=[
            c.Tile(letter="" if t == "?" else t, is_blank=t == "?") for t in action.tiles]))
    return c.Move(pass_turn=c.PassMove())


@pytest.mark.database  # restarts on its store
async def test_guest_plays_a_bot_to_the_end_and_the_result_is_recorded_once(
    database_url: str, tmp_path: Path
) -> None:
    lobby = await start_lobby(database_url, tmp_path)
    srv = await start_match_server(tmp_path, lobby.port)
    match_channel = grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}")
    try:
        assert srv.link is not None
        await asyncio.wait_for(srv.link.registered.wait(), 10)

        guest = await lobby.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name="Tess"))
        md = [("authorization", f"Bearer {guest.token.token}")]
        me = guest.player.player_id
        settings = lobby_pb2.TableSettings(
            ruleset=c.RulesetRef(ruleset_id="classic", language="en"), seats=2,
            bots=[lobby_pb2.BotSeat(seat=1, bot_level=4)], start_policy=lobby_pb2.START_POLICY_HOST)
        table = await lobby.stub.CreateTable(lobby_pb2.CreateTableRequest(
            settings=settings, request_id=uuid.uuid4().hex, seat=0), metadata=md)
        started = await lobby.stub.StartTable(lobby_pb2.StartTableRequest(
            table_id=table.table.table_id, request_id=uuid.uuid4().hex), metadata=md)
        mid = started.assignment.match_id
        assert started.assignment.address == f"127.0.0.1:{srv.port}"
        seat = started.assignment.seat

        # The lobby goes away while the game is played.
        port = lobby.port
        await lobby.stop()

        stub = match_pb2_grpc.MatchServiceStub(match_channel)
        rt = srv.manager.matches[mid]  # the guest's moves are chosen on the true state (a driver)

        async def my_turn_or_over() -> m.MatchView | None:
            view = (await stub.GetMatch(m.GetMatchRequest(match_id=mid), metadata=md)).match
            return view if view.status != m.MATCH_STATUS_IN_PROGRESS or view.to_move_seat == seat else None

        for _ in range(200):
            view = await eventually(my_turn_or_over)
            if view.status != m.MATCH_STATUS_IN_PROGRESS:
                break
            moves = generate_moves(rt.state, seat)
            action = moves[0].to_play(seat) if moves else bots.safe_action(rt.state, seat)
            await stub.SubmitTurn(m.SubmitTurnRequest(match_id=mid, expected_seq=view.last_seq,
                                                      request_id=uuid.uuid4().hex, move=_move(action)),
                                  metadata=md)
        view = (await stub.GetMatch(m.GetMatchRequest(match_id=mid), metadata=md)).match
        assert view.status == m.MATCH_STATUS_FINISHED
        assert view.result.reason in (c.GAME_OVER_REASON_OUT_OF_TILES, c.GAME_OVER_REASON_SCORELESS_TURNS)
        mine = view.result.final_scores[seat]

        # Reports fail while the lobby is down, and are retried.
        row = await eventually(lambda: srv.outbox.get(mid))
        await eventually(lambda: _attempts(srv, mid, 2))
        assert (await srv.outbox.get(mid)).state == "pending"

        lobby = await start_lobby(database_url, tmp_path, port)
        acked = await eventually(lambda: _state(srv, mid, "acked"))
        assert acked.last_error  # the failed attempts were noted

        async def record() -> Any:
            r = await lobby.stub.GetPlayerRecord(lobby_pb2.GetPlayerRecordRequest(player_id=me), metadata=md)
            return next((x for x in r.records if x.ruleset_id == "classic"), None)

        rec = await eventually(record)
        expected_win = mine.outcome == c.OUTCOME_WIN
        assert (rec.games, rec.wins, rec.losses + rec.ties) == (1, int(expected_win), int(not expected_win))
        assert rec.best_score == mine.final_score

        # A lost acknowledgement, then a restart of the match server: the persisted outbox
        # delivers the same report again.
        await srv.stop(0.2)

        def reset(s: Any) -> None:
            s.exec(update(ResultRow).where(col(ResultRow.match_id) == mid)
                   .values(state="pending", next_attempt_at=0.0, acked_at=None))

        db = Database(f"sqlite:///{tmp_path / 'match.db'}")
        await db.run(reset)
        db.close()
        srv = await start_match_server(tmp_path, lobby.port)
        await eventually(lambda: _state(srv, mid, "acked"))
        # And once more by hand, byte for byte: acknowledged, already recorded.
        row = await srv.outbox.get(mid)
        assert row is not None
        registry = control_pb2_grpc.MatchRegistryServiceStub(lobby.channel)
        token = lobby.lobby.keys.issue("ms-e2e", "ms", 600, kind="service")
        again = await registry.ReportResult(control_pb2.ReportResultRequest.FromString(row.report),
                                            metadata=[("authorization", f"Bearer {token}")])
        assert again.already_recorded

        rec = await record()
        assert rec.games == 1
        board = await lobby.stub.GetLeaderboard(lobby_pb2.GetLeaderboardRequest(
            ruleset_id="classic", period=lobby_pb2.LEADERBOARD_PERIOD_ALL_TIME), metadata=md)
        assert [e.player.player_id for e in board.entries].count(me) == 1
        assert board.caller_entry.record.games == 1
        mine_listed = await lobby.stub.ListMyMatches(lobby_pb2.ListMyMatchesRequest(), metadata=md)
        listed = [s for s in mine_listed.matches if s.assignment.match_id == mid]
        assert len(listed) == 1 and not listed[0].active and listed[0].outcome == mine.outcome
    finally:
        await match_channel.close()
        await srv.stop(0.2)
        srv.db.close()
        with contextlib.suppress(Exception):
            await lobby.stop()


async def _attempts(srv: MatchServer, match_id: str, n: int) -> bool:
    row = await srv.outbox.get(match_id)
    return row is not None and row.attempts >= n


async def _state(srv: MatchServer, match_id: str, state: str) -> Any:
    row = await srv.outbox.get(match_id)
    return row if row is not None and row.state == state else None


async def test_pass_and_play_one_client_plays_every_seat_and_is_not_recorded(
    database_url: str, tmp_path: Path
) -> None:
    lobby = await start_lobby(database_url, tmp_path)
    srv = await start_match_server(tmp_path, lobby.port)
    match_channel = grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}")
    try:
        guest = await lobby.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name="Duo"))
        md = [("authorization", f"Bearer {guest.token.token}")]
        me = guest.player.player_id
        settings = lobby_pb2.TableSettings(
            ruleset=c.RulesetRef(ruleset_id="classic", language="en"), seats=2,
            options=c.MatchOptions(pass_and_play=True), start_policy=lobby_pb2.START_POLICY_HOST)
        table = (await lobby.stub.CreateTable(lobby_pb2.CreateTableRequest(
            settings=settings, request_id=uuid.uuid4().hex), metadata=md)).table
        assert [s.player.player_id for s in table.seats] == [me, me]
        started = await lobby.stub.StartTable(lobby_pb2.StartTableRequest(
            table_id=table.table_id, request_id=uuid.uuid4().hex), metadata=md)
        mid = started.assignment.match_id

        stub = match_pb2_grpc.MatchServiceStub(match_channel)
        view = (await stub.GetMatch(m.GetMatchRequest(match_id=mid), metadata=md)).match
        assert list(view.controlled_seats) == [0, 1] and view.options.pass_and_play
        # Each seat's rack is shown only when asked for that seat.
        racks = [(await stub.GetMatch(m.GetMatchRequest(match_id=mid, seat=s), metadata=md)).match.rack
                 for s in (0, 1)]
        assert all(len(r.tiles) == 7 for r in racks)
        # No chat, no idle kicks.
        for call in (stub.SendChat(m.SendChatRequest(match_id=mid, request_id="c1", text="hi"), metadata=md),
                     stub.KickIdlePlayer(m.KickIdlePlayerRequest(match_id=mid, request_id="k1", seat=1),
                                         metadata=md)):
            try:
                await call
                raise AssertionError("accepted")
            except grpc.aio.AioRpcError as err:
                assert err.code() == grpc.StatusCode.FAILED_PRECONDITION

        rt = srv.manager.matches[mid]  # moves are chosen on the true state (a driver)

        async def view() -> m.MatchView:
            return (await stub.GetMatch(m.GetMatchRequest(match_id=mid), metadata=md)).match

        for _ in range(6):  # a few turns for both seats, then seat 1 resigns
            v = await view()
            seat = v.to_move_seat
            moves = generate_moves(rt.state, seat)
            action = moves[0].to_play(seat) if moves else bots.safe_action(rt.state, seat)
            await stub.SubmitTurn(m.SubmitTurnRequest(match_id=mid, expected_seq=v.last_seq, seat=seat,
                                                      request_id=uuid.uuid4().hex, move=_move(action)),
                                  metadata=md)
        v = await view()
        await stub.SubmitTurn(m.SubmitTurnRequest(match_id=mid, expected_seq=v.last_seq, seat=v.to_move_seat,
                                                  request_id=uuid.uuid4().hex,
                                                  move=c.Move(resign=c.ResignMove())), metadata=md)
        assert (await view()).status == m.MATCH_STATUS_FINISHED
        row = await eventually(lambda: _state(srv, mid, "acked"))
        report = control_pb2.ReportResultRequest.FromString(row.report)
        assert report.unrated and [s.player_id for s in report.seats] == [me, me]
        rec = await lobby.stub.GetPlayerRecord(lobby_pb2.GetPlayerRecordRequest(player_id=me), metadata=md)
        assert all(r.games == 0 for r in rec.records)
    finally:
        await match_channel.close()
        await srv.stop(0.2)
        with contextlib.suppress(Exception):
            await lobby.stop()


async def test_withdrawn_allocation_is_aborted_on_the_real_match_server(
    database_url: str, tmp_path: Path
) -> None:
    """A match created for a quick-match group and then withdrawn (a ticket cancelled before the
    lobby committed it) is aborted on the match server: the lobby's service credentials are
    accepted by AbortMatch, and the match is stored as aborted and forgotten there."""
    lobby = await start_lobby(database_url, tmp_path)
    srv = await start_match_server(tmp_path, lobby.port)
    try:
        assert srv.link is not None
        await asyncio.wait_for(srv.link.registered.wait(), 10)
        cfg = validate_settings(ruleset_id="classic", seats=2)
        occ = [Occupant("p-a", "A", guest=True), Occupant("p-b", "B", guest=True)]
        with pytest.raises(AllocationWithdrawn) as exc:
            await lobby.lobby.allocator.allocate(cfg, occ, commit=lambda s, match_id, address: False)
        mid = str(exc.value)

        async def aborted() -> bool:
            row = await srv.manager.store.get(mid)
            return row is not None and row.status == "aborted"

        await eventually(aborted)
        assert mid not in srv.manager.matches
        assert await srv.outbox.get(mid) is None
    finally:
        await srv.stop(0.5)
        await lobby.stop()
