"""Hindsight and Word Strength over real gRPC on loopback: answers agree with the engine's move
generator; refusals carry the documented codes."""

from __future__ import annotations

import itertools

import grpc
import pytest
from google.rpc import status_pb2
from match_harness import Harness, play_move
from wordarena.engine.analysis import word_strength
from wordarena.engine.movegen import generate_moves
from wordarena.engine.placement import Placement
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m


def _violation(err: grpc.aio.AioRpcError) -> e.RuleViolation | None:
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for d in status_pb2.Status.FromString(value).details:
                v = e.RuleViolation()
                if d.Unpack(v):
                    return v
    return None


def _pbs(placements: tuple[Placement, ...]) -> list[c.Placement]:
    return [c.Placement(square=c.Square(row=p.row, col=p.col), letter=p.letter, is_blank=p.blank)
            for p in placements]


async def test_word_strength_and_hindsight(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=7)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    rt = srv.manager.matches[mid]

    # Nothing played yet.
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await alice.stub.Hindsight(m.HindsightRequest(match_id=mid), metadata=alice.md)
    assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    v = _violation(ei.value)
    assert v is not None and v.code == e.RULE_CODE_NO_TURN_TO_ANALYSE

    moves = generate_moves(rt.state, 0)
    assert moves
    best = moves[0]
    req = m.WordStrengthRequest(match_id=mid, placements=_pbs(best.placements()))
    ws = await alice.stub.WordStrength(req, metadata=alice.md)
    assert ws.valid and not ws.invalid_words and not ws.HasField("violation")
    assert ws.rank == 1 and ws.legal_play_count == len(moves) and ws.best_score == best.score
    assert ws.breakdown.total == best.score
    assert ws.percentile == pytest.approx(sum(1 for mv in moves if mv.score < best.score) / len(moves))
    assert ws.HasField("best") and ws.best.notation and ws.best.breakdown.total <= best.score

    # A lesser play ranks below the best one.
    worst = moves[-1]
    req = m.WordStrengthRequest(match_id=mid, placements=_pbs(worst.placements()))
    ws = await alice.stub.WordStrength(req, metadata=alice.md)
    assert ws.valid and ws.rank == 1 + sum(1 for mv in moves if mv.score > worst.score)
    assert ws.best.breakdown.total == best.score

    # A play whose word is not in the lexicon: invalid, with the words named and a breakdown.
    bogus = None
    for perm in itertools.permutations([p.letter for p in best.placements()]):
        pls = tuple(Placement(p.row, p.col, letter, p.blank) for p, letter in zip(best.placements(), perm,
                                                                                    strict=True))
        if word_strength(rt.state, pls, 0, moves).invalid_words:
            bogus = pls
            break
    if bogus is not None:
        ws = await alice.stub.WordStrength(m.WordStrengthRequest(match_id=mid, placements=_pbs(bogus)),
                                           metadata=alice.md)
        assert not ws.valid and ws.invalid_words and ws.rank == 0 and ws.breakdown.total > 0
        assert not ws.HasField("violation")

    # Illegal geometry: a violation, no breakdown.
    tile = rt.state.racks[0][0]
    letter = "E" if tile == "?" else tile
    ws = await alice.stub.WordStrength(m.WordStrengthRequest(match_id=mid, placements=[
        c.Placement(square=c.Square(row=0, col=0), letter=letter, is_blank=tile == "?")]), metadata=alice.md)
    assert not ws.valid and ws.HasField("violation") and not ws.HasField("breakdown")

    # Spectators and other players' seats are refused.
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await alice.stub.WordStrength(m.WordStrengthRequest(match_id=mid, placements=_pbs(best.placements()),
                                                            seat=1), metadata=alice.md)
    assert ei.value.code() == grpc.StatusCode.PERMISSION_DENIED

    # Alice plays her third-best move; Hindsight ranks it.
    chosen = moves[min(2, len(moves) - 1)]
    resp = await alice.submit(mid, play_move(chosen.to_play(0)), rt.seq)
    turn_seq = resp.events[0].seq
    hs = await alice.stub.Hindsight(m.HindsightRequest(match_id=mid, limit=5), metadata=alice.md)
    assert hs.turn_seq == turn_seq and hs.legal_play_count == len(moves)
    assert hs.played_rank == 1 + sum(1 for mv in moves if mv.score > chosen.score)
    assert hs.played.breakdown.total == chosen.score and hs.played.notation
    assert len(hs.best) == min(5, len(moves))
    assert [b.breakdown.total for b in hs.best] == [mv.score for mv in moves[:len(hs.best)]]
    assert all(len(b.leave) == 7 - len(b.play.placements) for b in hs.best)
    assert len(hs.played.leave) == 7 - chosen.tile_count

    # Bob may not analyse Alice's turn while the match runs; bad limits are refused.
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await bob.stub.Hindsight(m.HindsightRequest(match_id=mid, turn_seq=turn_seq), metadata=bob.md)
    assert ei.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await alice.stub.Hindsight(m.HindsightRequest(match_id=mid, limit=21), metadata=alice.md)
    assert ei.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await alice.stub.Hindsight(m.HindsightRequest(match_id=mid, turn_seq=1), metadata=alice.md)
    assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # seq 1 is the start, not a turn

    # Bob passes: his Hindsight has no played move and rank 0.
    await bob.submit(mid, c.Move(pass_turn=c.PassMove()), rt.seq)
    hs = await bob.stub.Hindsight(m.HindsightRequest(match_id=mid), metadata=bob.md)
    assert hs.played_rank == 0 and not hs.HasField("played") and len(hs.best) == 1

    # Once the match is over, anyone in it may analyse any turn.
    await alice.submit(mid, c.Move(resign=c.ResignMove()), rt.seq)
    hs = await bob.stub.Hindsight(m.HindsightRequest(match_id=mid, turn_seq=turn_seq), metadata=bob.md)
    assert hs.turn_seq == turn_seq and hs.played_rank >= 1


async def test_word_strength_unavailable_in_accept_or_check(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="wordtiles", seed=3)
    alice = harness.player(srv, "alice")
    rt = srv.manager.matches[mid]
    moves = generate_moves(rt.state, 0)
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        req = m.WordStrengthRequest(match_id=mid, placements=_pbs(moves[0].placements()))
        await alice.stub.WordStrength(req, metadata=alice.md)
    assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    v = _violation(ei.value)
    assert v is not None and v.code == e.RULE_CODE_FEATURE_UNAVAILABLE
