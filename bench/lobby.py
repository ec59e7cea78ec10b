"""Lobby benchmark: prints guest sign-ins/s and ListTables latency over real loopback gRPC.

    .venv/bin/python bench/lobby.py [--database-url URL] [--clients 20] [--signins 1000]
        [--tables 200] [--lists 2000]

Starts a lobby (SQLite file in a temp dir unless --database-url is given), signs in guests with
``--clients`` concurrent callers, opens ``--tables`` tables, then times ListTables (page of 50).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import grpc

from wordarena.services.common import logs
from wordarena.services.common.config import Settings
from wordarena.services.lobby.main import build_lobby
from wordarena.v1 import common_pb2, lobby_pb2, lobby_pb2_grpc


async def run(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="wa-lobby-bench-"))
    url = args.database_url or f"sqlite:///{tmp / 'lobby.db'}"
    # every bench client signs in from 127.0.0.1: the per-address guest throttle opened wide
    settings = Settings(service="lobby", listen="127.0.0.1:0", database_url=url, data_dir=tmp,
                        extra={"guest_sign_in_burst": 10**9})
    logs.configure_logging("json", "warning")
    server, lobby, db = await build_lobby(settings)
    await lobby.start()
    port = await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    stub = lobby_pb2_grpc.LobbyServiceStub(channel)

    tokens: list[str] = []
    per_client = args.signins // args.clients

    async def signer() -> None:
        for _ in range(per_client):
            r = await stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name=f"b{uuid.uuid4().hex[:12]}"))
            tokens.append(r.token.token)

    t0 = time.perf_counter()
    await asyncio.gather(*(signer() for _ in range(args.clients)))
    dt = time.perf_counter() - t0
    print(
        f"sign-ins: {len(tokens)} in {dt:.2f} s = {len(tokens) / dt:.0f}/s ({args.clients} clients)"
    )

    for i in range(args.tables):
        md = (("authorization", f"Bearer {tokens[i % len(tokens)]}"),)
        s = lobby_pb2.TableSettings(
            ruleset=common_pb2.RulesetRef(ruleset_id="wordtiles"),
            seats=4,
            start_policy=lobby_pb2.START_POLICY_HOST,
        )
        await stub.CreateTable(
            lobby_pb2.CreateTableRequest(settings=s, request_id=uuid.uuid4().hex), metadata=md
        )

    lat: list[float] = []
    per_lister = args.lists // args.clients

    async def lister(k: int) -> None:
        md = (("authorization", f"Bearer {tokens[k]}"),)
        for _ in range(per_lister):
            a = time.perf_counter()
            r = await stub.ListTables(lobby_pb2.ListTablesRequest(page_size=50), metadata=md)
            lat.append(time.perf_counter() - a)
            assert len(r.tables) == 50

    t0 = time.perf_counter()
    await asyncio.gather(*(lister(k) for k in range(args.clients)))
    dt = time.perf_counter() - t0
    q = statistics.quantiles(lat, n=100)
    print(
        f"ListTables (page 50 of {args.tables} open tables): {len(lat) / dt:.0f}/s, "
        f"p50 {q[49] * 1000:.2f} ms, p99 {q[98] * 1000:.2f} ms ({args.clients} concurrent clients)"
    )
    await channel.close()
    await server.stop(0.5)
    db.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--database-url", default="")
    p.add_argument("--clients", type=int, default=20)
    p.add_argument("--signins", type=int, default=1000)
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--lists", type=int, default=2000)
    asyncio.run(run(p.parse_args()))


if __name__ == "__main__":
    main()
