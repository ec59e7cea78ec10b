"""Each event is projected once per kind of viewer and its stream message serialized once
(``wire.project``, ``wire.stream_message``): viewers who see an event alike share
it; nobody gets what only another seat may see (its rack, its exchanged tiles)."""

from __future__ import annotations

import asyncio
from typing import Any

from match_harness import Harness, Player, pass_move

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m


async def _follow(p: Player, mid: str, out: list[c.Event], until_seq: int) -> None:
    async for msg in p.stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=p.md):
        out.append(msg.event)
        if msg.event.seq >= until_seq:
            return


async def test_an_exchange_shows_its_tiles_and_the_new_rack_to_the_exchanger_only(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=5, spectators_allowed=True)
    alice, bob, carol = harness.player(srv, "alice"), harness.player(srv, "bob"), harness.player(srv, "carol")
    view = await alice.view(mid)
    first = (alice, bob)[view.to_move_seat]
    other = bob if first is alice else alice
    mine = await first.view(mid)
    swap = c.Move(exchange=c.ExchangeMove(tiles=list(mine.rack.tiles[:3])))
    # The exchange (seq 2), then the other seat's pass (seq 3): on every stream.
    seen: dict[str, list[c.Event]] = {p.player_id: [] for p in (alice, bob, carol)}
    tasks = [asyncio.create_task(_follow(p, mid, seen[p.player_id], 3)) for p in (alice, bob, carol)]
    await asyncio.sleep(0.2)
    answer = await first.submit(mid, swap, view.last_seq)
    await other.submit(mid, pass_move(), answer.last_seq)
    await asyncio.wait_for(asyncio.gather(*tasks), 10)

    def at(who: Player, seq: int) -> c.Event:
        return next(ev for ev in seen[who.player_id] if ev.seq == seq)

    exchanged = at(first, 2)
    assert [t.letter for t in exchanged.tiles_exchanged.returned] == [t.letter for t in swap.exchange.tiles]
    assert exchanged.HasField("viewer_rack")
    assert exchanged == answer.events[0]  # the answer and the exchanger's own stream agree
    for who in (other, carol):
        ev = at(who, 2)
        assert not ev.tiles_exchanged.returned and not ev.HasField("viewer_rack")
        assert ev.tiles_exchanged.count == 3
    # The opponent sees the exchange as a spectator does, byte for byte (one shared message).
    assert at(other, 2).SerializeToString() == at(carol, 2).SerializeToString()
    # The pass changed no rack: all three see the same event, with no rack in it.
    passes: list[Any] = [at(p, 3) for p in (alice, bob, carol)]
    assert all(not ev.HasField("viewer_rack") and ev.HasField("turn_passed") for ev in passes)
    assert passes[0] == passes[1] == passes[2]
    # The match started with a rack for each seat, its own, and none for the spectator.
    racks = [at(p, 1).viewer_rack for p in (alice, bob)]
    assert racks[0] != racks[1] and all(len(r.tiles) == 7 for r in racks)
    assert not at(carol, 1).HasField("viewer_rack")
