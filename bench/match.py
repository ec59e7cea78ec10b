"""Match server benchmark over loopback gRPC: turns/s and SubmitTurn p50/p99 latency, and
event-to-stream delivery p50/p99, with N concurrent two-player matches (scripted: the players
pass / exchange / play with the greedy helper), each with a stream open per player.

    .venv/bin/python bench/match.py --matches 50 --turns 20            # SQLite (temp file)
    .venv/bin/python bench/match.py --postgres                          # + PostgreSQL

Prints figures; not a timed test. PostgreSQL URL: WORDARENA_TEST_POSTGRES_URL (a fresh database is
created and dropped).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc

from protos.wordarena.v1 import common_pb2 as c
from protos.wordarena.v1 import control_pb2 as ctl
from protos.wordarena.v1 import control_pb2_grpc, match_pb2_grpc
from protos.wordarena.v1 import match_pb2 as m
from services.common import auth
from services.common.config import Settings
from services.match.main import start

TOKEN = "bench-secret"


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(int(q * len(values)), len(values) - 1)]


async def run(url: str, matches: int, turns: int, data_dir: Path) -> dict[str, float]:
    settings = Settings(service="match", listen="127.0.0.1:0", data_dir=data_dir, database_url=url,
                        service_token=TOKEN, shutdown_grace=1.0, advertise_address="127.0.0.1:0")
    srv = await start(settings)
    keys = auth.load_token_keys(data_dir)
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}") for _ in range(4)]
    control = control_pb2_grpc.MatchControlServiceStub(channels[0])
    tokens = {p: [("authorization", f"Bearer {keys.issue(p, p, 3600)}")] for p in ("a", "b")}
    latencies: list[float] = []
    delivery: list[float] = []
    sent_at: dict[tuple[str, int], float] = {}
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    async def one(k: int) -> int:
        mid = uuid.uuid4().hex[:16]
        stub = match_pb2_grpc.MatchServiceStub(channels[k % len(channels)])
        await control.CreateMatch(ctl.CreateMatchRequest(
            match_id=mid, ruleset=c.RulesetRef(ruleset_id="classic"), seed=k + 1,
            seats=[ctl.SeatAssignment(index=0, player=c.Player(player_id="a", display_name="A")),
                   ctl.SeatAssignment(index=1, player=c.Player(player_id="b", display_name="B"))]),
            metadata=[("authorization", f"Bearer {TOKEN}")])
        stream = stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=tokens["b"])

        async def follow() -> None:
            try:
                async for msg in stream:
                    t = sent_at.pop((mid, msg.event.seq), None)
                    if t is not None:
                        delivery.append(time.perf_counter() - t)
            except grpc.aio.AioRpcError:
                pass

        reader = asyncio.create_task(follow())
        seq, done = 1, 0
        for t in range(turns):
            who = ("a", "b")[t % 2]
            move = c.Move(pass_turn=c.PassMove())
            t0 = time.perf_counter()
            sent_at[(mid, seq + 1)] = t0
            try:
                r = await stub.SubmitTurn(m.SubmitTurnRequest(match_id=mid, expected_seq=seq,
                                                              request_id=uuid.uuid4().hex, move=move),
                                          metadata=tokens[who])
            except grpc.aio.AioRpcError:
                break
            latencies.append(time.perf_counter() - t0)
            seq = r.last_seq
            done += 1
            if any(ev.HasField("game_over") for ev in r.events):
                # zero-turn end: start the next game in the same slot
                break
        stream.cancel()
        reader.cancel()
        return done

    t0 = time.perf_counter()
    total = 0
    # Passing ends a classic game after a few turns; run more matches to keep all slots busy.
    remaining = turns
    while remaining > 0:
        counts = await asyncio.gather(*(one(k) for k in range(matches)))
        total += sum(counts)
        remaining -= max(max(counts), 1)
    wall = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    active = srv.manager.active_matches
    for ch in channels:
        await ch.close()
    await srv.stop(0.5)
    return {"turns": total, "turns_per_s": total / wall, "p50_ms": pct(latencies, 0.5) * 1000,
            "p99_ms": pct(latencies, 0.99) * 1000, "deliver_p50_ms": pct(delivery, 0.5) * 1000,
            "deliver_p99_ms": pct(delivery, 0.99) * 1000, "peak_rss_mb": rss / 1024,
            "rss_growth_mb": (rss - rss0) / 1024, "matches_in_memory": len(srv.manager.matches),
            "active": active}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=50, help="concurrent matches")
    ap.add_argument("--turns", type=int, default=20, help="turns per match slot")
    ap.add_argument("--postgres", action="store_true", help="also run on PostgreSQL")
    args = ap.parse_args()
    import logging

    logging.disable(logging.WARNING)
    from services.common import logs

    logs.configure_logging("console", "error")
    targets = []
    tmp = Path(tempfile.mkdtemp())
    targets.append(("sqlite", f"sqlite:///{tmp / 'bench.db'}"))
    pg_name = None
    if args.postgres:
        import psycopg

        admin = os.environ.get("WORDARENA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
        pg_name = f"wa_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(admin.replace("+psycopg", ""), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{pg_name}"')
        targets.append(("postgresql", admin.rsplit("/", 1)[0] + "/" + pg_name))
    try:
        for name, url in targets:
            r = asyncio.run(run(url, args.matches, args.turns, tmp))
            print(f"{name:10s} matches={args.matches} turns={r['turns']:.0f} "
                  f"turns/s={r['turns_per_s']:.0f} "
                  f"SubmitTurn p50={r['p50_ms']:.1f}ms p99={r['p99_ms']:.1f}ms "
                  f"stream delivery p50={r['deliver_p50_ms']:.1f}ms p99={r['deliver_p99_ms']:.1f}ms "
                  f"peak RSS={r['peak_rss_mb']:.0f}MB (+{r['rss_growth_mb']:.0f}MB)")
    finally:
        if pg_name:
            with psycopg.connect(admin.replace("+psycopg", ""), autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{pg_name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
