"""A level-6 bot's move through the match server: p50 / p95 / max over real gRPC, and how the
server answers another match meanwhile.

    nice -n 10 .venv/bin/python bench/bot_latency.py --moves 40 [--think-ms 0] [--workers 1] \
        [--games 1] [--ruleset warofwords|wordtiles|scrabble]

An in-process match server (``services.match.main.start``, fresh SQLite file) holds matches of a
human seat against a level-6 bot (``bot_think_ms``: 0 = the server's default), ``--games`` of
them at once (each played turn after turn; ``--workers``: the server's bot workers). The human
plays the best-scoring move (the engine's move generator on the server's state, off the event
loop) and the time is taken from the SubmitTurn answer to the bot's move arriving on the
human's stream: the bot's whole turn as a player sees it (waiting for a worker, simulation,
commit, stream). Meanwhile a probe client calls GetMatch on another match every 50 ms; its
latencies show whether the server stays responsive while bots think. Wall-clock figures: the
machine's load is printed with them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import grpc

from wordarena.services.common import auth
from wordarena.services.common.config import Settings
from wordarena.services.match.main import start
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import control_pb2_grpc, match_pb2_grpc
from wordarena.v1 import match_pb2 as m

TOKEN = "bench-service-token"


def _move(state: Any, seat: int) -> c.Move:
    """The best-scoring play, or a pass (the bench needs turns, not good ones)."""
    from wordarena.clients.cli.moves import placement_pb
    from wordarena.engine.movegen import generate_moves

    moves = generate_moves(state, seat)
    if not moves:
        return c.Move(pass_turn=c.PassMove())
    return c.Move(play=c.PlayMove(placements=[placement_pb(p) for p in moves[0].to_play(seat).placements]))


def _children_memory_mb() -> list[tuple[float, float]]:
    """(resident, proportional) memory in MB of each process below this one (the bot workers,
    their forkserver, multiprocessing's resource tracker), from /proc: the proportional set size
    shares the pages a worker has in common with its forkserver among them."""
    parent, rss = {}, {}
    for stat in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in stat.read_text().splitlines() if ":" in line)
            rollup = (stat.parent / "smaps_rollup").read_text()
        except OSError:
            continue
        pid = int(stat.parent.name)
        parent[pid] = int(fields["PPid"])
        pss = next((int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:")), 0)
        rss[pid] = (int(fields.get("VmRSS", "0 kB").split()[0]) / 1024, pss / 1024)
    below, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {p for p, pp in parent.items() if pp in frontier} - below
        below |= frontier
    return sorted((rss[p] for p in below), reverse=True)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(moves: int, think_ms: int, workers: int, ruleset: str, games: int = 1) -> None:
    data = Path(tempfile.mkdtemp(prefix="bot-latency-"))
    settings = Settings(
        service="match",
        listen="127.0.0.1:0",
        data_dir=data,
        database_url=f"sqlite:///{data / 'match.db'}",
        service_token=TOKEN,
        metrics_listen="",
        shutdown_grace=1.0,
        server_id="bench",
        advertise_address="127.0.0.1:0",
        extra={"heartbeat_seconds": 5.0, "bot_workers": workers},
    )
    srv = await start(settings)
    keys = auth.load_token_keys(data)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}")
    control = control_pb2_grpc.MatchControlServiceStub(channel)
    stub = match_pb2_grpc.MatchServiceStub(channel)
    admin = [("authorization", f"Bearer {TOKEN}")]
    md = [("authorization", f"Bearer {keys.issue('human', 'Human', 3600)}")]

    async def create(bot: bool, seed: int) -> str:
        mid = uuid.uuid4().hex[:12]
        seats = [ctl.SeatAssignment(index=0, player=c.Player(player_id="human", display_name="H"))]
        seats.append(
            ctl.SeatAssignment(index=1, bot_level=6, bot_think_ms=think_ms)
            if bot
            else ctl.SeatAssignment(index=1, player=c.Player(player_id="other", display_name="O"))
        )
        await control.CreateMatch(
            ctl.CreateMatchRequest(
                match_id=mid, ruleset=c.RulesetRef(ruleset_id=ruleset), seats=seats, seed=seed
            ),
            metadata=admin,
        )
        return mid

    probe_match = await create(False, 1)
    probe_times: list[float] = []
    stop = asyncio.Event()

    async def probe() -> None:
        while not stop.is_set():
            t0 = time.perf_counter()
            await stub.GetMatch(m.GetMatchRequest(match_id=probe_match), metadata=md)
            probe_times.append(time.perf_counter() - t0)
            await asyncio.sleep(0.05)

    probing = asyncio.create_task(probe())
    bot_times: list[float] = []

    async def play_match(mid: str) -> None:
        """Turns of ``mid`` until it ends or the bench has its moves."""
        while len(bot_times) < moves:
            view = (await stub.GetMatch(m.GetMatchRequest(match_id=mid), metadata=md)).match
            state = srv.manager.matches[mid].state
            if state.pending is not None and not state.over:  # Word Tiles: the bot's play waits
                await stub.DecidePending(m.DecidePendingRequest(
                    match_id=mid, expected_seq=view.last_seq, request_id=uuid.uuid4().hex,
                    decision=m.DECISION_ACCEPT), metadata=md)
                view = (await stub.GetMatch(m.GetMatchRequest(match_id=mid), metadata=md)).match
                state = srv.manager.matches[mid].state
            if state.over:
                return
            move = await asyncio.to_thread(_move, state, 0)
            call = stub.StreamMatch(m.StreamMatchRequest(match_id=mid, after_seq=view.last_seq), metadata=md)
            await stub.SubmitTurn(
                m.SubmitTurnRequest(
                    match_id=mid, move=move, expected_seq=view.last_seq, request_id=uuid.uuid4().hex
                ),
                metadata=md,
            )
            t0 = time.perf_counter()
            async for msg in call:
                if msg.event.HasField("heartbeat"):
                    continue
                now = srv.manager.matches[mid].state
                if now.over:
                    break
                # the human's own move comes first (in War of Words with its effects' events);
                # the first event read once the human is to move again is the bot's move
                if now.to_move == 0:
                    bot_times.append(time.perf_counter() - t0)
                    break
            call.cancel()
            if srv.manager.matches[mid].state.over:
                return

    async def player(first_seed: int) -> None:
        seed = first_seed
        while len(bot_times) < moves:
            await play_match(await create(True, seed))
            seed += games

    await asyncio.gather(*(player(100 + k) for k in range(games)))
    stop.set()
    await probing
    workers_memory = _children_memory_mb()
    await channel.close()
    await srv.stop(0.5)
    load = os.getloadavg()
    print(
        f"{ruleset}: level-6 move through gRPC, think {think_ms or 'default'} ms, {workers} bot worker(s), "
        f"{games} game(s) at once, {len(bot_times)} moves, load average {load[0]:.1f}"
    )
    print(
        f"  bot move: p50 {statistics.median(bot_times):.2f} s, p95 {_pct(bot_times, 0.95):.2f} s,"
        f" max {max(bot_times):.2f} s"
    )
    print(
        f"  GetMatch on another match meanwhile: {len(probe_times)} calls, p50 "
        f"{statistics.median(probe_times) * 1e3:.1f} ms, p95 {_pct(probe_times, 0.95) * 1e3:.1f} ms,"
        f" max {max(probe_times) * 1e3:.1f} ms"
    )
    print("  processes below the server (bot workers, forkserver, resource tracker), resident / "
          f"proportional MB: {', '.join(f'{r:.0f} / {p:.0f}' for r, p in workers_memory) or 'none'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--think-ms", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--ruleset", default="classic", help="a ruleset id (classic, warofwords, …)")
    parser.add_argument("--games", type=int, default=1, help="matches against a bot played at once")
    args = parser.parse_args(argv)
    asyncio.run(run(args.moves, args.think_ms, args.workers, args.ruleset, args.games))
    return 0


if __name__ == "__main__":
    sys.exit(main())
