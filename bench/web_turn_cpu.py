"""Server CPU per turn over gRPC-Web against native gRPC (issue 39: within 1.3x).

    .venv/bin/python bench/web_turn_cpu.py                 # 5 rounds of 40 matches x 4 turns each way
    .venv/bin/python bench/web_turn_cpu.py --rounds 3 --matches 20

One match server (``python -m wordarena.services.match.main --web-listen 127.0.0.1:0``) on a fresh
SQLite file. Each round creates ``--matches`` classic matches (natively; not measured), then plays
``--turns`` turns in each, one client call after another: a turn is what a client does for it,
GetMatch by the player to move, then SubmitTurn (a pass). Rounds alternate native gRPC
(grpc.aio) and gRPC-Web (httpx, HTTP/1.1 keep-alive, frames written by hand). Measured: the
server process's CPU time (user + system, /proc/PID/stat) over the turns of a round, divided by
the turns; printed per transport (median of the rounds) and the ratio web / native. A pass is the
cheapest turn there is, so the ratio is the transport's share at its largest: a real play adds the
same engine work to both.
A figure script, not a timed test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import grpc
import httpx

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "bench-service-secret"
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def start_server(data: Path) -> tuple[subprocess.Popen[str], int, int]:
    from wordarena.services.match.main import parse_ready_line, parse_web_port

    cmd = [sys.executable, "-m", "wordarena.services.match.main", "--listen", "127.0.0.1:0",
           "--web-listen", "127.0.0.1:0", "--database-url", f"sqlite:///{data / 'match.db'}",
           "--data-dir", str(data), "--service-token", TOKEN, "--log-level", "warning"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if (ready := parse_ready_line(line)) is not None:
            return proc, ready[0], parse_web_port(line)
    raise RuntimeError("the match server did not start")


def frame(body: bytes) -> bytes:
    return struct.pack(">BI", 0, len(body)) + body


async def run(args: argparse.Namespace) -> None:
    from wordarena.services.common import auth
    from wordarena.v1 import common_pb2 as c
    from wordarena.v1 import control_pb2 as ctl
    from wordarena.v1 import control_pb2_grpc, match_pb2_grpc
    from wordarena.v1 import match_pb2 as m

    data = Path(tempfile.mkdtemp(prefix="web-bench-"))
    proc, port, web_port = start_server(data)
    keys = auth.load_token_keys(data)
    md = {p: (("authorization", f"Bearer {keys.issue(p, p, 3600)}"),) for p in ("alice", "bob")}
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    control = control_pb2_grpc.MatchControlServiceStub(channel)
    stub = match_pb2_grpc.MatchServiceStub(channel)
    web = httpx.AsyncClient(base_url=f"http://127.0.0.1:{web_port}", timeout=30)
    svc = "/wordarena.v1.MatchService/"

    async def web_call(method: str, request: object, answer: type, who: str) -> object:
        body = request.SerializeToString()  # type: ignore[attr-defined]
        headers = {"content-type": "application/grpc-web+proto", "authorization": md[who][0][1]}
        r = await web.post(svc + method, content=frame(body), headers=headers)
        size = struct.unpack(">I", r.content[1:5])[0]
        assert r.content[0] == 0, r.content
        return answer.FromString(r.content[5:5 + size])  # type: ignore[attr-defined]

    async def native_call(method: str, request: object, answer: type, who: str) -> object:
        return await getattr(stub, method)(request, metadata=md[who])

    async def round_(call: object) -> tuple[float, float, int]:
        ids = []
        for _ in range(args.matches):
            mid = uuid.uuid4().hex[:12]
            seats = [ctl.SeatAssignment(index=i, player=c.Player(player_id=p, display_name=p))
                     for i, p in enumerate(("alice", "bob"))]
            await control.CreateMatch(ctl.CreateMatchRequest(
                match_id=mid, ruleset=c.RulesetRef(ruleset_id="classic"), seats=seats, seed=7),
                metadata=[("authorization", f"Bearer {TOKEN}")])
            ids.append(mid)
        turns = 0
        cpu0, wall0 = cpu_seconds(proc.pid), time.perf_counter()
        for mid in ids:
            who = "alice"
            for _ in range(args.turns):
                view = (await call("GetMatch", m.GetMatchRequest(match_id=mid),  # type: ignore[operator]
                                   m.GetMatchResponse, who)).match
                who = ("alice", "bob")[view.to_move_seat]
                view = (await call("GetMatch", m.GetMatchRequest(match_id=mid),  # type: ignore[operator]
                                   m.GetMatchResponse, who)).match
                await call("SubmitTurn", m.SubmitTurnRequest(  # type: ignore[operator]
                    match_id=mid, move=c.Move(pass_turn=c.PassMove()), expected_seq=view.last_seq,
                    request_id=uuid.uuid4().hex), m.SubmitTurnResponse, who)
                turns += 1
        return cpu_seconds(proc.pid) - cpu0, time.perf_counter() - wall0, turns

    per_turn: dict[str, list[float]] = {"native": [], "web": []}
    wall: dict[str, list[float]] = {"native": [], "web": []}
    try:
        await round_(native_call)  # warm-up, both ways
        await round_(web_call)
        for _ in range(args.rounds):
            for name, call in (("native", native_call), ("web", web_call)):
                cpu, seconds, turns = await round_(call)
                per_turn[name].append(cpu / turns * 1000)
                wall[name].append(seconds / turns * 1000)
    finally:
        await web.aclose()
        await channel.close()
        proc.terminate()
        proc.wait(30)
    load = os.getloadavg()[0]
    for name in ("native", "web"):
        print(f"{name:7} server CPU {statistics.median(per_turn[name]):.2f} ms/turn "
              f"(rounds {', '.join(f'{x:.2f}' for x in per_turn[name])}); "
              f"client wall {statistics.median(wall[name]):.2f} ms/turn")
    ratio = statistics.median(per_turn["web"]) / statistics.median(per_turn["native"])
    print(f"web / native server CPU per turn: {ratio:.2f}x   (a turn: 2 GetMatch + 1 SubmitTurn pass; "
          f"load average {load:.1f})")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--matches", type=int, default=40)
    p.add_argument("--turns", type=int, default=4, help="turns played in each match (passes)")
    asyncio.run(run(p.parse_args()))


if __name__ == "__main__":
    main()
