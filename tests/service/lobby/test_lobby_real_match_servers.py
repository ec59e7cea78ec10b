"""The lobby's allocation, quick match and results against a real match server, on SQLite and on
PostgreSQL (the ``env`` fixture runs each test on both; the match server shares the lobby's store).

Each check is made where a player would make it: at the address the lobby handed out, through
``GetMatch`` with the player's own token — the match exists there, with the table's ruleset,
seats, bots and clock — and the game goes on (a bot answers a pass). Results come from the match
server's own report, never from a hand-written ``ReportResultRequest``. The fake match server
(lobby_harness.FakeMatchServer, which accepts any ruleset and answers seed 1) would pass none of
these: it creates nothing a player can reach.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import grpc
import pytest
from lobby_harness import (
    LobbyEnv,
    eventually,
    start_lobby,
    stop_lobby,
    submit_at,
    view_at,
)
from tournament_harness import bad_field

from wordarena.services.match.main import MatchServer
from wordarena.v1 import common_pb2, control_pb2, lobby_pb2
from wordarena.v1 import match_pb2 as m

PASS = common_pb2.Move(pass_turn=common_pb2.PassMove())
RESIGN = common_pb2.Move(resign=common_pb2.ResignMove())


def rid() -> str:
    return uuid.uuid4().hex


async def until_my_turn(address: str, match_id: str, md: object, seat: int) -> m.MatchView:
    """The player's view once it is the player's turn (a bot moving first is waited for)."""

    async def mine() -> m.MatchView | None:
        view = await view_at(address, match_id, md)
        return view if view.HasField("to_move_seat") and view.to_move_seat == seat else None

    return await eventually(mine)


async def test_a_table_is_played_on_the_real_server_and_its_report_makes_the_records(
    env: LobbyEnv, real_match_server: MatchServer, tmp_path: Path
) -> None:
    a, ma = await env.guest("Anna")
    b, mb = await env.guest("Boris")
    t = (await env.stub.CreateTable(lobby_pb2.CreateTableRequest(
        settings=lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic"), seats=2),
        request_id=rid()), metadata=ma)).table
    joined = await env.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id=t.table_id, request_id=rid()),
                                      metadata=mb)
    assert joined.table.status == lobby_pb2.TABLE_STATUS_STARTED and joined.seat == 1
    where = joined.table.match
    assert where.address == f"127.0.0.1:{real_match_server.port}"
    # Both players reach the match at that address, in the seats the table gave them.
    for md, me in ((ma, 0), (mb, 1)):
        view = await view_at(where.address, where.match_id, md)
        assert view.ruleset.ruleset_id == "classic" and view.viewer_seat == me
        assert [s.player.player_id for s in view.seats] == [a, b]
        assert len(view.rack.tiles) == 7
    mine = await env.stub.ListMyMatches(lobby_pb2.ListMyMatchesRequest(), metadata=ma)
    assert [(x.active, x.assignment.match_id) for x in mine.matches] == [(True, where.match_id)]

    # The first to move passes, the other resigns: the passer wins.
    first = (await view_at(where.address, where.match_id, ma)).to_move_seat
    md_of = {0: ma, 1: mb}
    passed = await submit_at(where.address, where.match_id, md_of[first], PASS,
                             (await view_at(where.address, where.match_id, md_of[first])).last_seq)
    await submit_at(where.address, where.match_id, md_of[1 - first], RESIGN, passed.last_seq)
    over = await view_at(where.address, where.match_id, ma)
    assert over.status == m.MATCH_STATUS_FINISHED and list(over.result.winner_seats) == [first]
    winner, loser = ((a, ma), (b, mb)) if first == 0 else ((b, mb), (a, ma))
    win_score = next(s.final_score for s in over.result.final_scores if s.seat == first)

    # The match server's own report reaches the lobby: records, leaderboard, the match list.
    async def record(md: object, player: str) -> lobby_pb2.PlayerRecord | None:
        r = await env.stub.GetPlayerRecord(lobby_pb2.GetPlayerRecordRequest(player_id=player), metadata=md)
        return next((x for x in r.records if x.ruleset_id == "classic" and x.games), None)

    won = await eventually(lambda: record(winner[1], winner[0]))
    assert (won.games, won.wins, won.losses) == (1, 1, 0)
    assert won.best_score == won.average_score == win_score
    assert won.rating.rating > 1500
    lost = await record(loser[1], loser[0])
    assert lost is not None and (lost.games, lost.wins, lost.losses) == (1, 0, 1)
    board = await env.stub.GetLeaderboard(lobby_pb2.GetLeaderboardRequest(ruleset_id="classic"), metadata=ma)
    assert [e.player.player_id for e in board.entries] == [winner[0], loser[0]]
    done = await env.stub.ListMyMatches(lobby_pb2.ListMyMatchesRequest(
        state=lobby_pb2.MATCH_LIST_STATE_FINISHED), metadata=winner[1])
    assert [(x.assignment.match_id, x.outcome) for x in done.matches] == [
        (where.match_id, common_pb2.OUTCOME_WIN)]

    # The report as the server stored it: sent again it is already recorded; a player may not
    # send it; a different result for the same match is refused; all of it survives a restart.
    row = await real_match_server.outbox.get(where.match_id)
    assert row is not None and row.state == "acked"
    report = control_pb2.ReportResultRequest.FromString(row.report)
    assert (await env.registry.ReportResult(report, metadata=env.service_md)).already_recorded
    with pytest.raises(grpc.aio.AioRpcError) as denied:
        await env.registry.ReportResult(report, metadata=ma)
    assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED
    other = control_pb2.ReportResultRequest()
    other.CopyFrom(report)
    other.seats[0].final_score += 10
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await env.registry.ReportResult(other, metadata=env.service_md)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    env2 = await start_lobby(env.settings.database_url, tmp_path)
    try:
        assert (await env2.registry.ReportResult(report, metadata=env2.service_md)).already_recorded
        again = await env2.stub.GetPlayerRecord(lobby_pb2.GetPlayerRecordRequest(player_id=winner[0]),
                                                metadata=winner[1])
        assert [(r.ruleset_id, r.games) for r in again.records if r.games] == [("classic", 1)]
    finally:
        await stop_lobby(env2)


@pytest.mark.parametrize("ruleset", ["wordtiles", "warofwords", "scrabble"])
async def test_a_non_classic_table_with_a_bot_is_played_on_the_real_server(
    env: LobbyEnv, real_match_server: MatchServer, ruleset: str
) -> None:
    me, md = await env.guest("Hana")
    t = (await env.stub.CreateTable(lobby_pb2.CreateTableRequest(
        settings=lobby_pb2.TableSettings(
            ruleset=common_pb2.RulesetRef(ruleset_id=ruleset), seats=2,
            bots=[lobby_pb2.BotSeat(seat=1, bot_level=2)], start_policy=lobby_pb2.START_POLICY_HOST),
        request_id=rid(), seat=0), metadata=md)).table
    started = await env.stub.StartTable(lobby_pb2.StartTableRequest(table_id=t.table_id, request_id=rid()),
                                        metadata=md)
    where = started.assignment
    described = (await env.stub.DescribeRuleset(lobby_pb2.DescribeRulesetRequest(
        ruleset=common_pb2.RulesetRef(ruleset_id=ruleset)), metadata=md)).ruleset
    view = await view_at(where.address, where.match_id, md)
    assert view.ruleset.ruleset_id == ruleset and view.viewer_seat == where.seat == 0
    assert (view.board.rows, view.board.cols) == (described.board.rows, described.board.cols)
    assert [(s.player.player_id, s.player.bot, s.player.bot_level) for s in view.seats] == [
        (me, False, 0), (view.seats[1].player.player_id, True, 2)]
    assert len(view.rack.tiles) == described.rack_size
    # The game goes on: the player passes, the bot answers, and it is the player's turn again.
    view = await until_my_turn(where.address, where.match_id, md, 0)
    passed = await submit_at(where.address, where.match_id, md, PASS, view.last_seq)
    after = await until_my_turn(where.address, where.match_id, md, 0)
    assert after.last_seq > passed.last_seq and after.turn_number > view.turn_number


async def test_quick_match_players_meet_on_the_real_server(
    env: LobbyEnv, real_match_server: MatchServer
) -> None:
    (a, ma), (b, mb) = await env.guest("Quin"), await env.guest("Quod")
    crit = lobby_pb2.QuickMatchCriteria(ruleset=common_pb2.RulesetRef(ruleset_id="wordtiles"), seats=2)
    ta = (await env.stub.QuickMatch(lobby_pb2.QuickMatchRequest(criteria=crit, request_id=rid()),
                                    metadata=ma)).ticket
    stream = env.stub.WatchQuickMatchTicket(lobby_pb2.WatchQuickMatchTicketRequest(ticket_id=ta.ticket_id),
                                            metadata=ma)
    tb = (await env.stub.QuickMatch(lobby_pb2.QuickMatchRequest(criteria=crit, request_id=rid()),
                                    metadata=mb)).ticket
    got_a = [x.ticket async for x in stream][-1]
    got_b = (await env.stub.GetQuickMatchTicket(lobby_pb2.GetQuickMatchTicketRequest(ticket_id=tb.ticket_id),
                                                metadata=mb)).ticket
    assert got_a.status == got_b.status == lobby_pb2.TICKET_STATUS_MATCHED
    seats = {}
    for who, md, got in ((a, ma, got_a), (b, mb, got_b)):
        view = await view_at(got.assignment.address, got.assignment.match_id, md)
        assert view.ruleset.ruleset_id == "wordtiles" and view.viewer_seat == got.assignment.seat
        assert view.seats[got.assignment.seat].player.player_id == who
        seats[who] = got.assignment.seat
    assert sorted(seats.values()) == [0, 1]
    # One plays (a pass), the other then has the turn on the same match.
    mover = a if view.to_move_seat == seats[a] else b
    md_mover, md_other = (ma, mb) if mover == a else (mb, ma)
    passed = await submit_at(got_a.assignment.address, got_a.assignment.match_id, md_mover, PASS,
                             view.last_seq)
    other = await view_at(got_a.assignment.address, got_a.assignment.match_id, md_other)
    assert other.last_seq == passed.last_seq and other.to_move_seat == other.viewer_seat


async def test_quick_match_filled_with_a_bot_is_played_on_the_real_server(
    env: LobbyEnv, real_match_server: MatchServer
) -> None:
    from google.protobuf import duration_pb2
    from lobby_harness import backdate_ticket

    me, md = await env.guest("Solo")
    crit = lobby_pb2.QuickMatchCriteria(ruleset=common_pb2.RulesetRef(ruleset_id="scrabble"),
                                        bot_after=duration_pb2.Duration(seconds=5), bot_level=4)
    ticket = (await env.stub.QuickMatch(lobby_pb2.QuickMatchRequest(criteria=crit, request_id=rid()),
                                        metadata=md)).ticket
    await backdate_ticket(env, ticket.ticket_id, 10)
    stream = env.stub.WatchQuickMatchTicket(
        lobby_pb2.WatchQuickMatchTicketRequest(ticket_id=ticket.ticket_id), metadata=md)
    got = [x.ticket async for x in stream][-1]
    assert got.status == lobby_pb2.TICKET_STATUS_MATCHED
    where = got.assignment
    view = await view_at(where.address, where.match_id, md)
    assert view.ruleset.ruleset_id == "scrabble"
    assert [(s.player.player_id == me, s.player.bot, s.player.bot_level) for s in view.seats] == [
        (True, False, 0), (False, True, 4)]
    view = await until_my_turn(where.address, where.match_id, md, where.seat)
    passed = await submit_at(where.address, where.match_id, md, PASS, view.last_seq)
    after = await until_my_turn(where.address, where.match_id, md, where.seat)
    assert after.last_seq > passed.last_seq  # the level-4 bot moved


async def test_a_tables_no_show_timeout_reaches_its_match_and_bad_ones_are_refused(
    env: LobbyEnv, real_match_server: MatchServer
) -> None:
    """Issue 41, finding 11: ``MatchOptions.no_show_timeout`` was silently dropped for tables. A
    table keeps it (5 s .. 7 days) and its match applies it: the seat to move shows its first-move
    deadline. Out of range is INVALID_ARGUMENT naming the field, and no table is opened."""
    _, ma = await env.guest("Nora")
    _, mb = await env.guest("Otto")
    settings = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic"), seats=2)
    for seconds in (4, 8 * 86400, -5):
        bad = lobby_pb2.TableSettings()
        bad.CopyFrom(settings)
        bad.options.no_show_timeout.FromSeconds(seconds)
        call = env.stub.CreateTable(lobby_pb2.CreateTableRequest(settings=bad, request_id=rid()), metadata=ma)
        assert await bad_field(call) == "settings.options.no_show_timeout"
    assert not (await env.stub.ListTables(lobby_pb2.ListTablesRequest(), metadata=ma)).tables
    settings.options.no_show_timeout.FromSeconds(600)
    t = (await env.stub.CreateTable(lobby_pb2.CreateTableRequest(settings=settings, request_id=rid()),
                                    metadata=ma)).table
    assert t.settings.options.no_show_timeout.seconds == 600
    joined = await env.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id=t.table_id, request_id=rid()),
                                      metadata=mb)
    view = await view_at(joined.table.match.address, joined.table.match.match_id, ma)
    assert view.options.no_show_timeout.seconds == 600
    to_move = view.seats[view.to_move_seat]
    assert to_move.HasField("no_show_deadline")
