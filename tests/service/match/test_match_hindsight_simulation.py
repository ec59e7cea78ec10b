"""Hindsight's "best by simulation" over gRPC: asked with by_simulation, the answer ranks the
turn's best plays by the level-6 simulation (the same answer every time); without it, none. The
simulation runs in the bot worker processes, in their queue, not on the server's threads."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

import bot_hold
from match_harness import Harness, client_moves, pass_move, play_move

from wordarena.services.match.botworkers import BotWorkers
from wordarena.v1 import match_pb2 as m


async def test_hindsight_by_simulation(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=7)
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    await alice.submit(mid, play_move(client_moves(view)[0].to_play(0)), view.last_seq)

    plain = await alice.stub.Hindsight(m.HindsightRequest(match_id=mid, limit=2), metadata=alice.md)
    assert len(plain.best) == 2 and not plain.simulated
    req = m.HindsightRequest(match_id=mid, limit=2, by_simulation=True)
    simulated = await alice.stub.Hindsight(req, metadata=alice.md)
    assert simulated.best == plain.best and simulated.played == plain.played
    sims = simulated.simulated
    assert len(sims) >= 2
    plays = [s for s in sims if s.HasField("play")]
    assert plays and all(s.play.notation and s.iterations >= 2 for s in plays)
    assert all(0.0 <= s.win_chance <= 1.0 and s.spread_error >= 0 for s in sims)
    assert all(s.HasField("play") != bool(s.exchange) for s in sims)
    # mean_spread is the play's equity less the opponent's best answer's (match.proto): early in
    # a game every answer is worth points, so every play keeps less than its equity
    assert all(s.mean_spread < s.equity - 5 for s in plays)
    # candidates are legal plays of that rack: none scores more than the best play
    assert all(s.play.breakdown.total <= plain.best[0].breakdown.total for s in plays)
    again = await alice.stub.Hindsight(req, metadata=alice.md)
    assert again == simulated


async def test_a_rack_with_no_play_has_only_its_exchange_unsimulated(harness: Harness) -> None:
    """Seed 1968 deals the first player BMPLNPV: no word can be made from it on the empty
    board, so the exchange is the only candidate and there is nothing to simulate."""
    srv = await harness.start()
    mid = await harness.create(srv, seed=1968)
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    assert sorted(t.letter for t in view.rack.tiles) == sorted("BMPLNPV")
    await alice.submit(mid, pass_move(), view.last_seq)
    req = m.HindsightRequest(match_id=mid, limit=2, by_simulation=True)
    found = await alice.stub.Hindsight(req, metadata=alice.md)
    assert found.legal_play_count == 0 and not found.best
    [only] = found.simulated
    assert not only.HasField("play") and only.exchange
    assert only.iterations == 0 and only.mean_spread == only.equity
    assert only.spread_error == 0 and only.win_chance == 0.5


async def test_the_simulation_waits_for_a_bot_worker(harness: Harness, tmp_path: Path) -> None:
    # One bot worker, held by a bot's move in another match: the simulated Hindsight waits in
    # the workers' queue (the static one does not), and comes once the bot's move is done.
    srv = await harness.start()
    srv.manager.bot_workers.shutdown()
    srv.manager.bot_workers = BotWorkers(1, think=functools.partial(bot_hold.held, str(tmp_path)))
    mid = await harness.create(srv, seed=7)
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    await alice.submit(mid, play_move(client_moves(view)[0].to_play(0)), view.last_seq)
    vs_bot = await harness.create(srv, players=("alice",), bots=(5,), seed=7)
    bot_view = await alice.view(vs_bot)
    await alice.submit(vs_bot, play_move(client_moves(bot_view)[0].to_play(0)), bot_view.last_seq)
    async with asyncio.timeout(60):
        while not bot_hold.started(tmp_path):
            await asyncio.sleep(0.02)
    req = m.HindsightRequest(match_id=mid, limit=2, by_simulation=True)
    asked = asyncio.ensure_future(alice.stub.Hindsight(req, metadata=alice.md))
    plain = await alice.stub.Hindsight(m.HindsightRequest(match_id=mid, limit=2), metadata=alice.md)
    await asyncio.sleep(1.0)
    assert plain.best and not asked.done()  # queued behind the bot's move
    (tmp_path / "release").touch()
    async with asyncio.timeout(60):
        simulated = await asked
    assert simulated.best == plain.best and len(simulated.simulated) >= 2
