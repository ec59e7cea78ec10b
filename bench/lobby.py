"""Lobby benchmark: guest sign-ins and ListTables over real loopback gRPC, with the lobby's CPU.

    .venv/bin/python bench/lobby.py [--database-url URL] [--clients 20] [--signins 2000]
        [--tables 200] [--lists 4000] [--profile PREFIX]

Starts ``wordarena-lobby`` in its own process (an SQLite file in a temp dir unless
``--database-url`` is given; ``--lobby-arg`` passes it more flags, e.g. a sign-in throttle set
high for the benchmark), signs in guests with ``--clients`` concurrent callers, opens
``--tables`` tables, then calls ListTables (a page of 50) the same way. For each phase it prints
the calls per second the load generator got, the latency, and the lobby process's CPU seconds
per call (user + system, from /proc) with what that makes per core (``1 / CPU per call``): the
figure that does not depend on how busy the machine is. A third phase calls the gRPC health
``Check`` as often as ListTables: the cheapest unary call the server answers (no token, no lobby
code), so its CPU per call is the floor that gRPC, the event loop and the server's per-call
metrics and logging context set for any call; a fourth calls the same on a bare ``grpc.aio``
server process with nothing else in it (gRPC's own floor). ``--profile PREFIX`` records each phase
with py-spy (``PREFIX-signin.raw``, ``PREFIX-list.raw``). A figure script, not a timed test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from wordarena.v1 import common_pb2, lobby_pb2, lobby_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process (all threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_lobby(url: str, data_dir: Path, port: int, extra: list[str]) -> subprocess.Popen[bytes]:
    """``wordarena-lobby`` on ``port``, waited for until it answers."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "wordarena.services.lobby.main",
            "--listen",
            f"127.0.0.1:{port}",
            "--database-url",
            url,
            "--data-dir",
            str(data_dir),
            "--log-level",
            "warning",
            "--log-format",
            "json",
            # every bench client signs in from 127.0.0.1: the per-address guest throttle opened wide
            "--guest-sign-in-burst",
            "1000000000",
            *extra,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=(data_dir / "lobby.log").open("w"),
    )
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        grpc.channel_ready_future(ch).result(timeout=60)
    return proc


async def phase(
    name: str, pid: int, clients: int, calls: int, one: Callable[[int], Awaitable[None]], profile: str
) -> None:
    """Run ``calls`` calls of ``one(client)`` from ``clients`` concurrent callers; print figures."""
    lat: list[float] = []
    per_client = calls // clients

    async def caller(k: int) -> None:
        for _ in range(per_client):
            a = time.perf_counter()
            await one(k)
            lat.append(time.perf_counter() - a)

    spy = None
    if profile:
        spy = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "py-spy"),
                "record",
                "--pid",
                str(pid),
                "--format",
                "raw",
                "--rate",
                "250",
                "--output",
                f"{profile}-{name}.raw",
                "--nonblocking",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        await asyncio.sleep(1.0)
    cpu0, t0 = cpu_s(pid), time.perf_counter()
    await asyncio.gather(*(caller(k) for k in range(clients)))
    dt, cpu = time.perf_counter() - t0, cpu_s(pid) - cpu0
    if spy is not None:
        spy.send_signal(2)
        spy.wait(30)
    q = statistics.quantiles(lat, n=100)
    n = len(lat)
    print(
        f"{name}: {n} calls in {dt:.2f} s = {n / dt:.0f}/s ({clients} clients), p50 {q[49] * 1e3:.1f} ms, "
        f"p99 {q[98] * 1e3:.1f} ms; server CPU {cpu:.2f} s = {cpu / n * 1e3:.3f} ms per call "
        f"= {n / cpu:.0f} calls/s per core",
        flush=True,
    )


async def run(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="wa-lobby-bench-"))
    url = args.database_url or f"sqlite:///{tmp / 'lobby.db'}"
    port = free_port()
    proc = start_lobby(url, tmp, port, args.lobby_arg or [])
    try:
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        stub = lobby_pb2_grpc.LobbyServiceStub(channel)
        tokens: list[str] = []

        async def sign_in(_k: int) -> None:
            r = await stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name=f"b{uuid.uuid4().hex[:12]}"))
            tokens.append(r.token.token)

        await phase("signin", proc.pid, args.clients, args.signins, sign_in, args.profile)
        settings = lobby_pb2.TableSettings(
            ruleset=common_pb2.RulesetRef(ruleset_id="wordtiles"),
            seats=4,
            start_policy=lobby_pb2.START_POLICY_HOST,
        )
        for i in range(args.tables):
            await stub.CreateTable(
                lobby_pb2.CreateTableRequest(settings=settings, request_id=uuid.uuid4().hex),
                metadata=(("authorization", f"Bearer {tokens[i % len(tokens)]}"),),
            )

        async def list_tables(k: int) -> None:
            r = await stub.ListTables(
                lobby_pb2.ListTablesRequest(page_size=50),
                metadata=(("authorization", f"Bearer {tokens[k]}"),),
            )
            assert len(r.tables) == 50

        await phase("list", proc.pid, args.clients, args.lists, list_tables, args.profile)
        health = health_pb2_grpc.HealthStub(channel)

        async def check(_k: int) -> None:
            r = await health.Check(health_pb2.HealthCheckRequest(service=""))
            assert r.status == health_pb2.HealthCheckResponse.SERVING

        # the floor: the cheapest unary call this server answers (no token, no lobby code)
        await phase("health", proc.pid, args.clients, args.lists, check, args.profile)
        await channel.close()
    finally:
        proc.terminate()
        proc.wait(30)
    # and under that, grpc.aio itself: a server process with nothing but the health service
    port = free_port()
    bare = subprocess.Popen([sys.executable, "-c", BARE_SERVER, str(port)], cwd=ROOT)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            grpc.channel_ready_future(ch).result(timeout=60)
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        health = health_pb2_grpc.HealthStub(channel)
        await phase("bare grpc.aio health", bare.pid, args.clients, args.lists, check, "")
        await channel.close()
    finally:
        bare.terminate()
        bare.wait(30)


BARE_SERVER = """
import asyncio, sys
import grpc
from grpc_health.v1 import health, health_pb2_grpc

async def main():
    server = grpc.aio.server()
    health_pb2_grpc.add_HealthServicer_to_server(health.aio.HealthServicer(), server)
    server.add_insecure_port(f"127.0.0.1:{sys.argv[1]}")
    await server.start()
    await server.wait_for_termination()

asyncio.run(main())
"""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--database-url", default="")
    p.add_argument("--clients", type=int, default=20)
    p.add_argument("--signins", type=int, default=2000)
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--lists", type=int, default=4000)
    p.add_argument("--profile", default="", help="py-spy raw profiles of the lobby: PREFIX-<phase>.raw")
    p.add_argument("--lobby-arg", action="append", help="extra flag for the lobby (repeatable)")
    asyncio.run(run(p.parse_args()))


if __name__ == "__main__":
    main()
