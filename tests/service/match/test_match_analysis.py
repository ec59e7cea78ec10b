"""Hindsight and Word Strength over real gRPC on loopback: answers agree with the engine's move
generator; refusals carry the documented codes."""

from __future__ import annotations

import itertools

import grpc
import pytest
from match_harness import Harness, client_moves, client_rack, expected_notation, play_move, violation_of

from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.placement import Placement
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m


def _pbs(placements: tuple[Placement, ...]) -> list[c.Placement]:
    return [c.Placement(square=c.Square(row=p.row, col=p.col), letter=p.letter, is_blank=p.blank)
            for p in placements]


def _notations_scoring(view: m.MatchView, moves: list, score: int) -> set[str]:
    """The notations, written by hand from the client's board, of the plays scoring ``score``."""
    return {expected_notation(view, mv.placements(), mv.across) for mv in moves if mv.score == score}


async def test_word_strength_and_hindsight(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=7)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await alice.view(mid)
    lexicon = load_lexicon("en")

    # Nothing played yet.
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await alice.stub.Hindsight(m.HindsightRequest(match_id=mid), metadata=alice.md)
    assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    v = violation_of(ei.value)
    assert v is not None and v.code == e.RULE_CODE_NO_TURN_TO_ANALYSE

    moves = client_moves(view)  # every legal play on the board alice sees, best first
    assert moves
    best = moves[0]
    req = m.WordStrengthRequest(match_id=mid, placements=_pbs(best.placements()))
    ws = await alice.stub.WordStrength(req, metadata=alice.md)
    assert ws.valid and not ws.invalid_words and not ws.HasField("violation")
    assert ws.rank == 1 and ws.legal_play_count == len(moves) and ws.best_score == best.score
    assert ws.breakdown.total == best.score
    assert ws.percentile == pytest.approx(sum(1 for mv in moves if mv.score < best.score) / len(moves))
    assert ws.HasField("best") and ws.best.breakdown.total == best.score
    assert ws.best.notation in _notations_scoring(view, moves, best.score)

    # A lesser play ranks below the best one.
    worst = moves[-1]
    req = m.WordStrengthRequest(match_id=mid, placements=_pbs(worst.placements()))
    ws = await alice.stub.WordStrength(req, metadata=alice.md)
    assert ws.valid and ws.rank == 1 + sum(1 for mv in moves if mv.score > worst.score)
    assert ws.best.breakdown.total == best.score

    # A play whose word is not in the lexicon: invalid, with the words named and a breakdown.
    # On the empty board the only word is the main word: a rearrangement of the best play's
    # letters that the lexicon does not know is invalid.
    bogus, bogus_word = None, ""
    for perm in itertools.permutations([p.letter for p in best.placements()]):
        if "".join(perm) not in lexicon:
            bogus = tuple(Placement(p.row, p.col, letter, p.blank)
                          for p, letter in zip(best.placements(), perm, strict=True))
            bogus_word = "".join(perm)
            break
    assert bogus is not None, "every arrangement of the best play is a word"
    ws = await alice.stub.WordStrength(m.WordStrengthRequest(match_id=mid, placements=_pbs(bogus)),
                                       metadata=alice.md)
    assert not ws.valid and list(ws.invalid_words) == [bogus_word] and ws.rank == 0
    assert ws.breakdown.words[0].word == bogus_word and ws.breakdown.total > 0
    assert not ws.HasField("violation")

    # Illegal geometry: a violation, no breakdown.
    tile = client_rack(view)[0]
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
    resp = await alice.submit(mid, play_move(chosen.to_play(0)), view.last_seq)
    turn_seq = resp.events[0].seq
    hs = await alice.stub.Hindsight(m.HindsightRequest(match_id=mid, limit=5), metadata=alice.md)
    assert hs.turn_seq == turn_seq and hs.legal_play_count == len(moves)
    assert hs.played_rank == 1 + sum(1 for mv in moves if mv.score > chosen.score)
    assert hs.played.breakdown.total == chosen.score
    assert hs.played.notation == expected_notation(view, chosen.placements(), chosen.across)
    assert len({b.notation for b in hs.best}) == len(hs.best)
    for b in hs.best:  # plays of equal score may come in any order
        assert b.notation in _notations_scoring(view, moves, b.breakdown.total)
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
    await bob.submit(mid, c.Move(pass_turn=c.PassMove()), resp.last_seq)
    hs = await bob.stub.Hindsight(m.HindsightRequest(match_id=mid), metadata=bob.md)
    assert hs.played_rank == 0 and not hs.HasField("played") and len(hs.best) == 1

    # Once the match is over, anyone in it may analyse any turn.
    await alice.submit(mid, c.Move(resign=c.ResignMove()), (await alice.view(mid)).last_seq)
    hs = await bob.stub.Hindsight(m.HindsightRequest(match_id=mid, turn_seq=turn_seq), metadata=bob.md)
    assert hs.turn_seq == turn_seq and hs.played_rank == 1 + sum(1 for mv in moves if mv.score > chosen.score)
    assert hs.played.notation == expected_notation(view, chosen.placements(), chosen.across)


async def test_word_strength_unavailable_in_accept_or_check(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="wordtiles", seed=3)
    alice = harness.player(srv, "alice")
    moves = client_moves(await alice.view(mid))
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        req = m.WordStrengthRequest(match_id=mid, placements=_pbs(moves[0].placements()))
        await alice.stub.WordStrength(req, metadata=alice.md)
    assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    v = violation_of(ei.value)
    assert v is not None and v.code == e.RULE_CODE_FEATURE_UNAVAILABLE
