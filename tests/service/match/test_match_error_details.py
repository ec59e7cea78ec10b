"""A match server attaches only the error details protos/README.md documents for each RPC, read
from real refusals over loopback gRPC: a missing match id, a stale expected_seq, a play off the
start square, not your turn, a language without a dictionary."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import grpc
import pytest
from match_harness import Harness, pass_move

from wordarena.services.common.errors import details_of
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "protos"))
from test_error_details_doc import documented_details

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


async def test_match_refusals_carry_only_the_documented_details(harness: Harness) -> None:
    documented = documented_details()
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="classic", seed=3)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await alice.view(mid)
    mover, other = (alice, bob) if view.to_move_seat == 0 else (bob, alice)
    seen: set[str] = set()

    async def refused(method: str, coro: object) -> set[str]:
        with pytest.raises(grpc.aio.AioRpcError) as ei:
            await coro  # type: ignore[misc]
        names = {d.DESCRIPTOR.full_name for d in details_of(ei.value)}
        assert names <= documented[f"MatchService.{method}"], (method, ei.value.code(), names)
        seen.update(names)
        return names

    assert "google.rpc.BadRequest" in await refused(
        "GetMatch", alice.stub.GetMatch(m.GetMatchRequest(match_id=""), metadata=alice.md))
    # A seq the match never had names the field (BadRequest).
    assert "google.rpc.BadRequest" in await refused("SubmitTurn", mover.stub.SubmitTurn(m.SubmitTurnRequest(
        match_id=mid, move=pass_move(), expected_seq=view.last_seq + 5, request_id=uuid.uuid4().hex),
        metadata=mover.md))
    off_start = c.Move(play=c.PlayMove(placements=[
        c.Placement(square=c.Square(row=0, col=0), letter=t.letter, is_blank=t.is_blank)
        for t in (await mover.view(mid)).rack.tiles[:1]]))
    await refused("SubmitTurn", mover.stub.SubmitTurn(m.SubmitTurnRequest(
        match_id=mid, move=off_start, expected_seq=view.last_seq, request_id=uuid.uuid4().hex),
        metadata=mover.md))
    await refused("SubmitTurn", other.stub.SubmitTurn(m.SubmitTurnRequest(
        match_id=mid, move=pass_move(), expected_seq=view.last_seq, request_id=uuid.uuid4().hex),
        metadata=other.md))
    # The mover passes; the other player's turn sent with the seq from before it is stale.
    await mover.submit(mid, pass_move(), view.last_seq)
    assert "wordarena.v1.StaleSeq" in await refused("SubmitTurn", other.stub.SubmitTurn(m.SubmitTurnRequest(
        match_id=mid, move=pass_move(), expected_seq=view.last_seq, request_id=uuid.uuid4().hex),
        metadata=other.md))
    assert "wordarena.v1.RuleViolation" in await refused(
        "Define", alice.stub.Define(m.DefineRequest(word="chat", language="fr"), metadata=alice.md))
    assert {"google.rpc.BadRequest", "wordarena.v1.StaleSeq", "wordarena.v1.RuleViolation"} <= seen
