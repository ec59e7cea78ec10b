"""Bot and analysis latency through a real match server, per move generator (issue 18).

    .venv/bin/python bench/match_bot_latency.py [--moves 30] [--level 5] [--impl python|native|both]

For each generator (``WORDARENA_MOVEGEN=python`` / ``native`` in the match server's environment)
a match server starts on a fresh SQLite file, and classic matches (English) are played between
a human seat, which passes every turn, and a bot of ``--level``. Measured on the client, over
loopback gRPC:

* **bot move**: from sending the human's SubmitTurn (a pass) to the stream delivering the bot's
  turn (the server's bot thinks with no delay: its move generation, choice and the turn's
  commit);
* **Hindsight**: the round trip of ``Hindsight(limit=5)`` on the human's latest turn, right
  after each bot move (one full move generation on the board of that turn, from the human's
  rack).

Matches follow one another until ``--moves`` bot moves were timed. Printed: p50 / p95 / mean
of each, in ms, and the server's CPU seconds over the run. A figure script, not a timed test:
on a loaded machine the wall times include waiting for a core.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from match_load import SERVICE_TOKEN, cpu_s, pct, start_server  # a bench sibling


async def measure(port: int, data_dir: Path, moves: int, level: int) -> dict[str, list[float]]:
    """Bot-move and Hindsight latencies (seconds) over matches until ``moves`` bot moves."""
    import grpc

    from wordarena.services.common import auth
    from wordarena.v1 import common_pb2 as c
    from wordarena.v1 import control_pb2 as ctl
    from wordarena.v1 import control_pb2_grpc, match_pb2_grpc
    from wordarena.v1 import match_pb2 as m

    keys = auth.load_token_keys(data_dir)
    out: dict[str, list[float]] = {"bot move": [], "hindsight": []}
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        control = control_pb2_grpc.MatchControlServiceStub(channel)
        stub = match_pb2_grpc.MatchServiceStub(channel)
        human = "bench-human"
        md = [("authorization", f"Bearer {keys.issue(human, human, 7200)}")]
        game = 0
        while len(out["bot move"]) < moves:
            game += 1
            mid = f"latency-{uuid.uuid4().hex[:8]}"
            await control.CreateMatch(
                ctl.CreateMatchRequest(
                    match_id=mid,
                    ruleset=c.RulesetRef(ruleset_id="classic"),
                    seed=game,
                    seats=[
                        ctl.SeatAssignment(index=0, player=c.Player(player_id=human, display_name=human)),
                        ctl.SeatAssignment(index=1, bot_level=level),
                    ],
                ),
                metadata=[("authorization", f"Bearer {SERVICE_TOKEN}")],
            )
            stream = stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=md)
            events = stream.__aiter__()
            seq, over = 0, False
            while not over:  # up to the human's turn
                ev = (await events.__anext__()).event
                seq = max(seq, ev.seq)
                over = ev.HasField("game_over")
                if ev.HasField("to_move_seat") and ev.to_move_seat == 0:
                    break
            while not over and len(out["bot move"]) < moves:
                started = time.perf_counter()
                answer = await stub.SubmitTurn(
                    m.SubmitTurnRequest(
                        match_id=mid,
                        expected_seq=seq,
                        request_id=uuid.uuid4().hex,
                        move=c.Move(pass_turn=c.PassMove()),
                    ),
                    metadata=md,
                )
                seq = answer.last_seq
                bot_moved = False
                while True:  # the bot's turn, then the human's again
                    ev = (await events.__anext__()).event
                    seq = max(seq, ev.seq)
                    if ev.HasField("game_over"):
                        over = True
                        break
                    if (
                        ev.seq > answer.last_seq
                        and not bot_moved
                        and (
                            ev.HasField("turn_played")
                            or ev.HasField("turn_passed")
                            or ev.HasField("tiles_exchanged")
                        )
                    ):
                        out["bot move"].append(time.perf_counter() - started)
                        bot_moved = True
                    if bot_moved and ev.HasField("to_move_seat") and ev.to_move_seat == 0:
                        break
                if over:
                    break
                started = time.perf_counter()
                await stub.Hindsight(m.HindsightRequest(match_id=mid, limit=5), metadata=md)
                out["hindsight"].append(time.perf_counter() - started)
            stream.cancel()
    return out


def run(impl: str, moves: int, level: int) -> dict[str, list[float]]:
    """Start a match server on ``impl`` and measure (see the module docstring)."""
    from wordarena.services.common import auth

    data_dir = Path(tempfile.mkdtemp(prefix=f"wa-latency-{impl}-"))
    auth.load_token_keys(data_dir)  # the key pair, before the server reads it
    os.environ["WORDARENA_MOVEGEN"] = impl  # the server inherits it
    proc, port, _ = start_server(f"sqlite:///{data_dir}/bench.db", data_dir, [])
    try:
        cpu0 = cpu_s(proc.pid)
        out = asyncio.run(measure(port, data_dir, moves, level))
        out["server cpu"] = [cpu_s(proc.pid) - cpu0]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30, help="bot moves to time per generator")
    parser.add_argument("--level", type=int, default=5, help="the bot's level, 1..5")
    parser.add_argument("--impl", choices=("python", "native", "both"), default="both")
    args = parser.parse_args()
    impls = ("python", "native") if args.impl == "both" else (args.impl,)
    print(
        f"classic/en, bot level {args.level}, {args.moves} bot moves per generator; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(f"{'generator':<10}{'call':<11}{'p50 ms':>9}{'p95 ms':>9}{'mean ms':>9}{'n':>5}")
    for impl in impls:
        out = run(impl, args.moves, args.level)
        for name in ("bot move", "hindsight"):
            values = out[name]
            print(
                f"{impl:<10}{name:<11}{pct(values, 0.5) * 1e3:9.1f}{pct(values, 0.95) * 1e3:9.1f}"
                f"{statistics.fmean(values) * 1e3:9.1f}{len(values):5d}"
            )
        print(f"{impl:<10}server CPU {out['server cpu'][0]:.2f} s", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
