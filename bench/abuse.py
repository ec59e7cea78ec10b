"""Abuse benchmark: what each limit holds against a hostile client, and what the attack costs the
other players. A figure script, not a timed test.

    .venv/bin/python bench/abuse.py                 # 150 victim turns per scenario
    .venv/bin/python bench/abuse.py --turns 400

A lobby (listening on IPv4 and IPv6) and a match server run in their own processes with their
default limits (the slow-reader run has a match server of its own, whose chat limits are lifted so
that an attacker can make events fast enough to fill its streams). A *victim* plays a two-player
classic match against an honest partner, passing
turns (a new match when one ends); each of the victim's SubmitTurn calls is timed, request to
answer. Each scenario runs the victim once alone and once under attack, and prints p50/p99 of
that round trip both ways, with what the limit let through:

* chat flood: the victim's opponent sends chat from 8 tasks as fast as it can;
* guest flood: 8 tasks sign in new guests from 127.0.0.1 as fast as they can;
* sign-in flood: 8 tasks guess the victim's password from 127.0.0.1; the victim then signs in
  from ::1 (another address);
* slow readers: an attacker opens 100 StreamMatch streams on a match of its own (same server) on
  channels with gRPC's smallest flow-control window, never reads them, and floods that match with
  chat (limits lifted on that server): each stream is cut off once 256 events (``--stream-queue``)
  wait behind its full connection.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "bench-abuse-token"
SERVICE = (("authorization", f"Bearer {TOKEN}"),)
ATTACKERS = 8

Attack = Callable[["Bench"], Awaitable[str]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Bench:
    """The two server processes and the clients' stubs."""

    def __init__(self, data: Path, match_args: tuple[str, ...] = ()) -> None:
        from wordarena.services.match.main import parse_ready_line

        env = os.environ | {
            "WORDARENA_SERVICE_TOKEN": TOKEN,
            "WORDARENA_DATA_DIR": str(data),
            "WORDARENA_LOG_LEVEL": "error",
            "WORDARENA_SHUTDOWN_GRACE": "1",
        }
        for k in ("WORDARENA_TOKEN_PUBLIC_KEY", "WORDARENA_TOKEN_PRIVATE_KEY", "WORDARENA_REQUIRE_KEYS"):
            env.pop(k, None)
        self.lobby_port = _free_port()
        self.lobby = subprocess.Popen(
            [sys.executable, "-m", "wordarena.services.lobby.main"],
            cwd=ROOT,
            stderr=subprocess.DEVNULL,
            env=env
            | {
                "WORDARENA_LISTEN": f"[::]:{self.lobby_port}",
                "WORDARENA_DATABASE_URL": f"sqlite:///{data / 'lobby.db'}",
            },
        )
        self.match = subprocess.Popen(
            [sys.executable, "-m", "wordarena.services.match.main", *match_args],
            cwd=ROOT,
            env=env
            | {
                "WORDARENA_LISTEN": "127.0.0.1:0",
                "WORDARENA_METRICS_LISTEN": "127.0.0.1:0",
                "WORDARENA_DATABASE_URL": f"sqlite:///{data / 'match.db'}",
            },
            stdout=subprocess.PIPE,
            stderr=open(data / "match.err", "w"),  # noqa: SIM115 - the process holds it
            text=True,
        )
        assert self.match.stdout is not None
        ready = parse_ready_line(self.match.stdout.readline())
        assert ready is not None, "the match server did not start"
        self.match_port, self.metrics_port = ready
        self.data = data
        self.current = ""  # the victim's match now

    def stop(self) -> None:
        for p in (self.match, self.lobby):
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=float(os.environ.get("ABUSE_STOP_WAIT", "30")))

    async def open(self) -> None:
        from wordarena.services.common import auth
        from wordarena.v1 import control_pb2_grpc, lobby_pb2_grpc, match_pb2_grpc

        keys = auth.load_token_keys(self.data)
        self.md = {
            p: (("authorization", f"Bearer {keys.issue(p, p.title(), 3600)}"),)
            for p in ("victim", "partner", "mallory")
        }
        self.ch = grpc.aio.insecure_channel(f"127.0.0.1:{self.match_port}")
        self.stub = match_pb2_grpc.MatchServiceStub(self.ch)
        self.control = control_pb2_grpc.MatchControlServiceStub(self.ch)
        self.lobby4 = grpc.aio.insecure_channel(f"127.0.0.1:{self.lobby_port}")
        self.lobby6 = grpc.aio.insecure_channel(f"[::1]:{self.lobby_port}")
        for ch in (self.lobby4, self.lobby6):
            await asyncio.wait_for(ch.channel_ready(), 60)
        self.lobby_v4 = lobby_pb2_grpc.LobbyServiceStub(self.lobby4)
        self.lobby_v6 = lobby_pb2_grpc.LobbyServiceStub(self.lobby6)

    async def new_match(self, players: tuple[str, str] = ("victim", "partner")) -> str:
        from wordarena.v1 import common_pb2 as c
        from wordarena.v1 import control_pb2 as ctl

        mid = uuid.uuid4().hex[:12]
        seats = [
            ctl.SeatAssignment(index=i, player=c.Player(player_id=p, display_name=p.title()))
            for i, p in enumerate(players)
        ]
        await self.control.CreateMatch(
            ctl.CreateMatchRequest(
                match_id=mid, ruleset=c.RulesetRef(ruleset_id="classic"), seats=seats, seed=1
            ),
            metadata=SERVICE,
        )
        if "victim" in players:
            self.current = mid
        return mid

    async def victim_turns(self, n: int) -> list[float]:
        """``n`` timed SubmitTurn round trips of the victim (the partner passes back)."""
        from wordarena.v1 import common_pb2 as c
        from wordarena.v1 import match_pb2 as m

        times: list[float] = []
        while len(times) < n:
            mid = await self.new_match()
            got = await self.stub.GetMatch(m.GetMatchRequest(match_id=mid), metadata=self.md["victim"])
            seq = got.match.last_seq
            over = False
            while not over and len(times) < n:
                for who in ("victim", "partner"):
                    req = m.SubmitTurnRequest(
                        match_id=mid,
                        expected_seq=seq,
                        request_id=uuid.uuid4().hex,
                        move=c.Move(pass_turn=c.PassMove()),
                    )
                    t0 = time.perf_counter()
                    r = await self.stub.SubmitTurn(req, metadata=self.md[who])
                    if who == "victim":
                        times.append(time.perf_counter() - t0)
                    seq = r.last_seq
                    if any(ev.HasField("game_over") for ev in r.events):
                        over = True
                        break
        return times

    def cutoffs(self) -> float:
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        text = urllib.request.urlopen(url, timeout=5).read().decode()
        for line in text.splitlines():
            if line.startswith("wordarena_stream_cutoffs_total "):
                return float(line.split()[1])
        return 0.0


async def _codes(call: Awaitable[Any]) -> str:
    try:
        await call
    except grpc.aio.AioRpcError as err:
        return err.code().name
    return "OK"


async def chat_flood(b: Bench) -> tuple[Callable[[], Awaitable[None]], Callable[[], str]]:
    from wordarena.v1 import match_pb2 as m

    counts: Counter[str] = Counter()

    async def run() -> None:
        while True:
            req = m.SendChatRequest(match_id=b.current, request_id=uuid.uuid4().hex, text="spam " * 20)
            counts[await _codes(b.stub.SendChat(req, metadata=b.md["partner"]))] += 1

    return (
        run,
        lambda: (
            f"chat accepted {counts['OK']} (the victim's matches change as games end), "
            f"refused RESOURCE_EXHAUSTED {counts['RESOURCE_EXHAUSTED']}"
        ),
    )


async def guest_flood(b: Bench) -> tuple[Callable[[], Awaitable[None]], Callable[[], str]]:
    from wordarena.v1 import lobby_pb2

    counts: Counter[str] = Counter()

    async def run() -> None:
        while True:
            req = lobby_pb2.SignInGuestRequest(display_name=f"g{uuid.uuid4().hex[:12]}")
            counts[await _codes(b.lobby_v4.SignInGuest(req))] += 1

    return (
        run,
        lambda: f"guests created {counts['OK']}, refused RESOURCE_EXHAUSTED {counts['RESOURCE_EXHAUSTED']}",
    )


async def sign_in_flood(b: Bench) -> tuple[Callable[[], Awaitable[None]], Callable[[], str]]:
    from wordarena.v1 import lobby_pb2

    name = f"V{uuid.uuid4().hex[:8]}"
    g = await b.lobby_v6.SignInGuest(lobby_pb2.SignInGuestRequest(display_name=name))
    await b.lobby_v6.ClaimAccount(
        lobby_pb2.ClaimAccountRequest(password="victim-pass-1"),
        metadata=(("authorization", f"Bearer {g.token.token}"),),
    )
    counts: Counter[str] = Counter()

    async def run() -> None:
        while True:
            req = lobby_pb2.SignInRequest(name=name, password=f"guess-{uuid.uuid4().hex[:6]}")
            counts[await _codes(b.lobby_v4.SignIn(req))] += 1

    def report() -> str:
        return (
            f"passwords checked {counts['UNAUTHENTICATED']}, refused unchecked RESOURCE_EXHAUSTED "
            f"{counts['RESOURCE_EXHAUSTED']}; owner from ::1 meanwhile: {b.owner_sign_in}"
        )

    async def owner() -> None:
        await asyncio.sleep(1.0)
        t0 = time.perf_counter()
        code = await _codes(b.lobby_v6.SignIn(lobby_pb2.SignInRequest(name=name, password="victim-pass-1")))
        b.owner_sign_in = f"{code} in {1000 * (time.perf_counter() - t0):.0f} ms"

    b.owner_sign_in = "not tried"
    b.extra = owner()
    return run, report


async def slow_readers(b: Bench) -> tuple[Callable[[], Awaitable[None]], Callable[[], str]]:
    from wordarena.v1 import match_pb2 as m
    from wordarena.v1 import match_pb2_grpc

    before = b.cutoffs()
    mid = await b.new_match(("mallory", "partner"))
    for _ in range(100):
        ch = grpc.aio.insecure_channel(f"127.0.0.1:{b.match_port}", options=[("grpc.http2.bdp_probe", 0)])
        b.attack_channels.append(ch)
        call = match_pb2_grpc.MatchServiceStub(ch).StreamMatch(
            m.StreamMatchRequest(match_id=mid), metadata=b.md["mallory"]
        )
        await call.initial_metadata()
        b.attack_calls.append(call)
    sent: Counter[str] = Counter()

    async def run() -> None:
        while True:
            req = m.SendChatRequest(match_id=mid, request_id=uuid.uuid4().hex, text="x" * 499)
            sent[await _codes(b.stub.SendChat(req, metadata=b.md["mallory"]))] += 1

    return (
        run,
        lambda: f"100 unread streams, {sent['OK']} chats sent to them, cut off {b.cutoffs() - before:.0f}",
    )


def _ms(xs: list[float]) -> str:
    qs = statistics.quantiles(xs, n=100)
    return f"p50 {1000 * statistics.median(xs):6.1f} ms  p99 {1000 * qs[98]:6.1f} ms"


async def scenario(b: Bench, name: str, make: Callable[[Bench], Any], turns: int) -> None:
    calm = await b.victim_turns(turns)
    b.extra, b.attack_channels, b.attack_calls = None, [], []
    run, report = await make(b)
    await b.new_match()
    tasks = [asyncio.create_task(run()) for _ in range(ATTACKERS)]
    if b.extra is not None:
        tasks.append(asyncio.create_task(b.extra))
    await asyncio.sleep(0.5)
    attacked = await b.victim_turns(turns)
    await asyncio.sleep(0.5)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for call in b.attack_calls:
        call.cancel()
    for ch in b.attack_channels:
        await ch.close()
    print(f"{name:14s} alone:    {_ms(calm)}")
    print(f"{'':14s} attacked: {_ms(attacked)}   {report()}", flush=True)


async def main(args: argparse.Namespace) -> None:
    print(
        f"victim's SubmitTurn round trip, {args.turns} turns per run; {ATTACKERS} attacking tasks", flush=True
    )
    lifted = ("--chat-rate", "100000", "--chat-burst", "100000", "--chat-per-match", "10000000")
    runs = (
        ((), (("chat flood", chat_flood), ("guest flood", guest_flood), ("sign-in flood", sign_in_flood))),
        (lifted, (("slow readers", slow_readers),)),
    )
    for match_args, scenarios in runs:
        chosen = [(n, f) for n, f in scenarios if args.only in n]
        if not chosen:
            continue
        b = Bench(Path(tempfile.mkdtemp(prefix="wa-abuse-")), match_args)
        try:
            await b.open()
            for name, make in chosen:
                await scenario(b, name, make, args.turns)
        finally:
            b.stop()


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--turns", type=int, default=150, help="victim turns per run")
    p.add_argument("--only", default="", help="run only the scenarios whose name contains this")
    asyncio.run(main(p.parse_args()))
