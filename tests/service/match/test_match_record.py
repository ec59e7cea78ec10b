"""MatchService.GetMatchRecord over real gRPC on loopback: a finished match's GCG re-checks with
the engine's GCG reader and replays to the final position the players saw; a running match's
record shows no rack to anyone; who may ask, and the refusals match.proto promises."""

from __future__ import annotations

import grpc
from grpc_helpers import refused
from match_harness import SERVICE_TOKEN, Harness, Player, client_cells, client_move, violation_of

from wordarena.engine.families import parse_ruleset_id
from wordarena.engine.interchange import check_record, parse_gcg, record_ruleset_id, replay_record
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m


async def _record(p: Player, mid: str) -> m.GetMatchRecordResponse:
    return await p.stub.GetMatchRecord(m.GetMatchRecordRequest(match_id=mid), metadata=p.md)


async def _play_to_the_end(players: tuple[Player, Player], mid: str) -> m.MatchView:
    """Both players play their best move (from their own view) until the game is over."""
    view = await players[0].view(mid)
    for _ in range(200):
        if view.status == m.MATCH_STATUS_FINISHED:
            return view
        me = players[view.to_move_seat]
        view = await me.view(mid)
        await me.submit(mid, client_move(view), view.last_seq)
        view = await me.view(mid)
    raise AssertionError("the game did not end in 200 turns")


def _shown(cells: tuple[object, ...]) -> list[tuple[str, bool] | None]:
    return [None if t is None else (t.letter.upper(), t.blank) for t in cells]  # type: ignore[attr-defined]


async def test_a_finished_match_record_rechecks_and_replays_to_the_final_position(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=5, spectators_allowed=True)
    alice, bob, carol = (harness.player(srv, p) for p in ("alice", "bob", "carol"))
    final = await _play_to_the_end((alice, bob), mid)

    answer = await _record(alice, mid)
    assert answer.status == m.MATCH_STATUS_FINISHED and answer.racks_shown
    assert answer.last_seq == final.last_seq
    record = parse_gcg(answer.gcg)
    assert [p.nick for p in record.players] == ["Alice", "Bob"]
    ruleset = parse_ruleset_id(record_ruleset_id(record))
    assert ruleset.id == parse_ruleset_id(final.ruleset.ruleset_id).id
    assert check_record(record, ruleset) == []
    steps = list(replay_record(record, ruleset))
    assert _shown(steps[-1].state.cells) == _shown(client_cells(final))
    totals = {mv.seat: mv.total for mv in record.moves}
    assert [totals[s.index] for s in final.seats] == [s.score for s in final.seats]
    assert all(mv.rack for mv in record.moves if mv.kind.name in ("PLAY", "PASS", "EXCHANGE"))
    # The other player and, the match allowing spectators, anyone get the same record.
    assert (await _record(bob, mid)).gcg == answer.gcg
    assert (await _record(carol, mid)).gcg == answer.gcg


async def test_a_running_match_record_shows_no_rack_to_a_player_or_a_spectator(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=11, spectators_allowed=True)
    alice, bob, carol = (harness.player(srv, p) for p in ("alice", "bob", "carol"))
    put_down = []  # the tiles each play put on the board: everyone saw them
    view = await alice.view(mid)
    first = client_move(view)
    put_down.append(first)
    await alice.submit(mid, first, view.last_seq)
    view = await bob.view(mid)
    swap = c.Move(exchange=c.ExchangeMove(tiles=list(view.rack.tiles[:3])))
    await bob.submit(mid, swap, view.last_seq)
    view = await alice.view(mid)
    third = client_move(view)
    put_down.append(third)
    await alice.submit(mid, third, view.last_seq)
    shown_tiles = ["".join(sorted("?" if p.is_blank else p.letter.upper() for p in mv.play.placements))
                   for mv in put_down]
    racks = {p.player_id: "".join(t.letter or "?" for t in (await p.view(mid)).rack.tiles)
             for p in (alice, bob)}

    for who in (bob, carol, alice):
        answer = await _record(who, mid)
        assert answer.status == m.MATCH_STATUS_IN_PROGRESS and not answer.racks_shown
        record = parse_gcg(answer.gcg)
        # no rack is shown: a play's rack token is only the tiles it put down (the standard form
        # GCG readers parse; issue 41, finding 16), the exchange's none
        tokens = [mv.rack for mv in record.moves]
        assert ["".join(sorted(tokens[0])), tokens[1], "".join(sorted(tokens[2]))] == \
            [shown_tiles[0], "", shown_tiles[1]]
        assert not record.final_racks
        assert "#seed" not in answer.gcg
        assert record.moves[1].word == "3"  # the exchange as a count, not the letters
        assert not any(line.startswith(">Bob:") and racks["bob"] in line for line in answer.gcg.splitlines())
        ruleset = parse_ruleset_id(record_ruleset_id(record))
        assert check_record(record, ruleset) == []
        steps = list(replay_record(record, ruleset))
        assert _shown(steps[-1].state.cells) == _shown(client_cells(await alice.view(mid)))


async def test_who_may_not_have_a_record_is_told_why(harness: Harness) -> None:
    srv = await harness.start()
    private = await harness.create(srv)
    carol = harness.player(srv, "carol")
    err = await refused(_record(carol, private))
    assert err.code() == grpc.StatusCode.PERMISSION_DENIED
    assert violation_of(err).code == e.RULE_CODE_NOT_YOUR_SEAT

    err = await refused(_record(carol, "no-such-match"))
    assert err.code() == grpc.StatusCode.NOT_FOUND
    err = await refused(_record(carol, ""))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT

    # A running match on the board with clouds: its plays may lie under them.
    park = await harness.create(srv, ruleset="warofwords/en/warofwords-park", spectators_allowed=True)
    err = await refused(_record(carol, park))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert violation_of(err).code == e.RULE_CODE_FEATURE_UNAVAILABLE
    # Other War of Words boards have no clouds: their running matches have a record (no racks).
    wow = await harness.create(srv, ruleset="warofwords", spectators_allowed=True)
    assert not (await _record(carol, wow)).racks_shown

    alice = harness.player(srv, "alice")
    await harness.control(srv).AbortMatch(ctl.AbortMatchRequest(match_id=private, reason="test"),
                                          metadata=[("authorization", f"Bearer {SERVICE_TOKEN}")])
    err = await refused(_record(alice, private))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert violation_of(err).code == e.RULE_CODE_MATCH_ABORTED


async def test_a_service_reads_a_finished_match_record_only(harness: Harness) -> None:
    """The lobby (a service) exports tournament games: it may read a finished match's record,
    spectators or not, but nothing of a running match."""
    srv = await harness.start()
    mid = await harness.create(srv, seed=7)  # no spectators
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    service = Player(harness.channel(srv), SERVICE_TOKEN, "lobby")
    err = await refused(_record(service, mid))
    assert err.code() == grpc.StatusCode.PERMISSION_DENIED and "finished" in (err.details() or "")
    await _play_to_the_end((alice, bob), mid)
    answer = await _record(service, mid)
    assert answer.status == m.MATCH_STATUS_FINISHED and answer.racks_shown
    assert answer.gcg == (await _record(alice, mid)).gcg
