"""Word Tiles' accept-or-check: while a play waits for the next player's decision, neither Define
nor Hindsight may answer for it (each would tell whether its words are good); once the play is
decided they answer again. Everything here is what a client has: its view, its stream, errors."""

from __future__ import annotations

import uuid

import grpc
from grpc_helpers import refused
from match_harness import Harness, Player, violation_of

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m


async def test_define_and_hindsight_wait_for_the_decision(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="wordtiles", seed=7)
    players = {0: harness.player(srv, "alice"), 1: harness.player(srv, "bob")}
    view = await players[0].view(mid)
    mover: Player = players[view.to_move_seat]
    judge: Player = players[1 - view.to_move_seat]
    mine = await mover.view(mid)
    # Two letters of the mover's rack across the centre: good word or not, it waits for a decision.
    letters = [t.letter for t in mine.rack.tiles if not t.is_blank][:2]
    centre = mine.board.rows // 2
    play = c.Move(play=c.PlayMove(placements=[
        c.Placement(square=c.Square(row=centre, col=centre + i), letter=ch) for i, ch in enumerate(letters)]))
    played = await mover.submit(mid, play, mine.last_seq)
    word = "".join(letters)

    err = await refused(judge.stub.Define(m.DefineRequest(word=word.lower()), metadata=judge.md))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert violation_of(err).code == e.RULE_CODE_DECISION_PENDING and word in err.details()
    for who in (judge, mover):
        err = await refused(who.stub.Hindsight(m.HindsightRequest(match_id=mid), metadata=who.md))
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert violation_of(err).code == e.RULE_CODE_DECISION_PENDING

    last = max(ev.seq for ev in played.events)
    await judge.stub.DecidePending(m.DecidePendingRequest(
        match_id=mid, expected_seq=last, request_id=uuid.uuid4().hex, decision=m.DECISION_CHECK),
        metadata=judge.md)
    try:
        await judge.stub.Define(m.DefineRequest(word=word), metadata=judge.md)
    except grpc.aio.AioRpcError as err:  # not in the dictionary, or none installed: fine
        assert getattr(violation_of(err), "code", None) != e.RULE_CODE_DECISION_PENDING
    answer = await mover.stub.Hindsight(m.HindsightRequest(match_id=mid), metadata=mover.md)
    assert answer.legal_play_count > 0
