"""War of Words: a play of action tiles only has a notation (``TurnPlayed.notation``), written
as a player types it (``C3 @blackhole + M13 @whirlwind``), in the SubmitTurn answer, on every
stream and in the log; the CLI's move log shows it once. It was empty, and the record of the
turn named no tile."""

from __future__ import annotations

from match_harness import Harness

from wordarena.clients.cli import movelog
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m

FIELD = "warofwords/en/warofwords-field"
SEED = 1499  # Alice is dealt a Black Hole, a Whirlwind and a Medic (checked below)


def _action(row: int, col: int, token: str) -> c.Placement:
    from wordarena.services.match.messages import action_kind

    kind, factor = action_kind(token)
    return c.Placement(square=c.Square(row=row, col=col), action=kind, action_factor=factor)  # type: ignore[arg-type]


async def test_a_play_of_action_tiles_only_is_named_as_typed(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset=FIELD, seed=SEED)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await alice.view(mid)
    assert {c.ACTION_KIND_BLACK_HOLE, c.ACTION_KIND_WHIRLWIND, c.ACTION_KIND_MEDIC} <= \
        {t.action for t in view.rack.tiles}
    play = c.Move(play=c.PlayMove(placements=[
        _action(2, 2, "@blackhole"), _action(12, 12, "@whirlwind"), _action(2, 12, "@medic")]))
    answer = await alice.submit(mid, play, view.last_seq)
    written = "C3 @blackhole + M13 @whirlwind + M3 @medic"
    turn = next(ev for ev in answer.events if ev.HasField("turn_played"))
    assert turn.turn_played.notation == written

    # Bob's stream carries it as Alice's answer did, and the CLI's move log shows it once.
    streamed = []
    call = bob.stub.StreamMatch(m.StreamMatchRequest(match_id=mid, after_seq=turn.seq - 1), metadata=bob.md)
    async for msg in call:
        if msg.event.HasField("turn_played"):
            streamed.append(msg.event)
            call.cancel()
            break
    assert len(streamed) == 1
    for ev in [turn, *streamed]:
        assert ev.turn_played.notation == written
        assert movelog.describe_event(ev, ["Alice", "Bob"]) == f"Alice: {written} for 0"
