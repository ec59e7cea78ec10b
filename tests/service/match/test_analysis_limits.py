"""Analysis (Hindsight, Word Strength, Hindsight by simulation) costs the server far more than
the call costs a client, so each player has a budget (``--analysis-rate`` a second after
``--analysis-burst``; a simulated Hindsight counts ``SIMULATION_COST``), and the simulations
waiting for the bot workers are bounded, so bots' moves never queue behind a crowd of them.
Refusals are RESOURCE_EXHAUSTED with ``google.rpc.RetryInfo`` and cost nothing."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

import bot_hold
import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_helpers import refused
from match_harness import Harness, Player, client_moves, play_move

from wordarena.services.common.errors import detail
from wordarena.services.match import wallclock
from wordarena.services.match.botworkers import BotWorkers
from wordarena.services.match.quotas import SIMULATION_COST
from wordarena.v1 import match_pb2 as m


async def _played(harness: Harness, srv: object, player: Player, players: tuple[str, ...],
                  bots: tuple[int, ...] = ()) -> str:
    """A match where ``player`` has played a turn (one to analyse)."""
    mid = await harness.create(srv, players=players, bots=bots, seed=7)
    view = await player.view(mid)
    await player.submit(mid, play_move(client_moves(view)[0].to_play(0)), view.last_seq)
    return mid


async def test_a_player_asking_for_analysis_too_fast_is_told_to_wait(
        harness: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    srv = await harness.start(analysis_rate=0.01, analysis_burst=3)
    alice, carol = harness.player(srv, "alice"), harness.player(srv, "carol")
    mid = await _played(harness, srv, alice, ("alice", "bob"))
    placements = play_move(client_moves(await alice.view(mid))[0].to_play(0)).play.placements
    strength = m.WordStrengthRequest(match_id=mid, placements=placements)
    for _ in range(2):
        assert (await alice.stub.Hindsight(m.HindsightRequest(match_id=mid), metadata=alice.md)).best
    assert (await alice.stub.WordStrength(strength, metadata=alice.md)).legal_play_count
    err = await refused(alice.stub.WordStrength(strength, metadata=alice.md))
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "analysis" in (err.details() or "")
    wait = detail(err, error_details_pb2.RetryInfo).retry_delay.seconds
    assert wait >= 90  # 1 at 0.01 a second
    # the budget refills on the server's clock (given, not slept through): asked again once the
    # time it named has passed, the call is served
    later = wallclock.monotonic() + wait + 1
    monkeypatch.setattr(wallclock, "monotonic", lambda: later)
    assert (await alice.stub.WordStrength(strength, metadata=alice.md)).legal_play_count
    # another player's budget is their own
    other = await _played(harness, srv, carol, ("carol", "dave"))
    assert (await carol.stub.Hindsight(m.HindsightRequest(match_id=other), metadata=carol.md)).best


async def test_a_simulated_hindsight_costs_more_of_the_budget(harness: Harness) -> None:
    srv = await harness.start(analysis_rate=0.01, analysis_burst=SIMULATION_COST + 2)
    alice = harness.player(srv, "alice")
    mid = await _played(harness, srv, alice, ("alice", "bob"))
    sim = m.HindsightRequest(match_id=mid, limit=2, by_simulation=True)
    assert (await alice.stub.Hindsight(sim, metadata=alice.md)).simulated
    err = await refused(alice.stub.Hindsight(sim, metadata=alice.md))
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    # what is left pays for a static one
    assert (await alice.stub.Hindsight(m.HindsightRequest(match_id=mid), metadata=alice.md)).best


async def test_simulations_waiting_for_the_bot_workers_are_bounded(harness: Harness, tmp_path: Path) -> None:
    # One bot worker, held by a bot's move: two simulations may wait for it, a third is refused
    # at once (the bot's next move would queue behind all of them).
    srv = await harness.start()
    srv.manager.bot_workers.shutdown()
    srv.manager.bot_workers = BotWorkers(1, think=functools.partial(bot_hold.held, str(tmp_path)))
    players = [harness.player(srv, name) for name in ("alice", "carol", "erin")]
    mids = [await _played(harness, srv, p, (p_name, f"{p_name}-foe"))
            for p, p_name in zip(players, ("alice", "carol", "erin"), strict=True)]
    await _played(harness, srv, players[0], ("alice",), bots=(5,))
    async with asyncio.timeout(60):
        while not bot_hold.started(tmp_path):
            await asyncio.sleep(0.02)
    waiting = [asyncio.ensure_future(p.stub.Hindsight(
        m.HindsightRequest(match_id=mid, limit=2, by_simulation=True), metadata=p.md))
        for p, mid in zip(players[:2], mids[:2], strict=True)]
    await asyncio.sleep(1.5)  # both admitted and waiting for the worker, on a busy machine too
    err = await refused(players[2].stub.Hindsight(
        m.HindsightRequest(match_id=mids[2], limit=2, by_simulation=True), metadata=players[2].md))
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "simulations" in (err.details() or "")
    assert detail(err, error_details_pb2.RetryInfo) is not None
    assert not any(w.done() for w in waiting)
    (tmp_path / "release").touch()
    async with asyncio.timeout(60):
        for w in waiting:
            assert (await w).simulated


def test_the_default_budget_is_the_documented_one() -> None:
    """match.proto and docs/operations.md: 2 calls a second after 20; a simulation counts 6;
    2 simulations in flight per bot worker."""
    from wordarena.services.match import quotas
    from wordarena.services.match.main import parser

    args = parser().parse_args([])
    assert (args.analysis_rate, args.analysis_burst) == (2.0, 20)
    assert (1 + quotas.SIMULATION_COST, quotas.SIMULATIONS_PER_WORKER) == (6, 2)
    assert (quotas.AnalysisLimits().rate, quotas.AnalysisLimits().burst) == (2.0, 20)


@pytest.mark.parametrize("flags", [["--analysis-rate", "0"], ["--analysis-burst", "0"],
                                   ["--bot-workers", "-1"]])
def test_a_budget_that_admits_nothing_is_refused_at_start_naming_the_flag(
        flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from wordarena.services.match.main import load

    with pytest.raises(SystemExit) as stop:
        load(flags)
    assert stop.value.code == 2
    assert flags[0] in capsys.readouterr().err
