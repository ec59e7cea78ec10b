"""The lobby's view of the match servers as metrics: ``wordarena_match_servers{state}``
(healthy / draining / stale), ``wordarena_match_capacity`` and ``wordarena_match_load`` (healthy
servers only), as scraped from the Prometheus registry."""

from __future__ import annotations

import time

from lobby_harness import LobbyEnv
from prometheus_client import REGISTRY

from wordarena.services.lobby.models import MatchServerRow
from wordarena.v1 import control_pb2


def _sample(name: str, **labels: str) -> float | None:
    return REGISTRY.get_sample_value(name, labels)


async def test_match_server_gauges(env: LobbyEnv) -> None:
    async def register(server_id: str, port: int, capacity: int, active: int, draining: bool = False) -> None:
        await env.registry.RegisterMatchServer(control_pb2.RegisterMatchServerRequest(
            server_id=server_id, address=f"127.0.0.1:{port}",
            load=control_pb2.ServerLoad(capacity=capacity, active_matches=active, draining=draining)),
            metadata=env.service_md)

    await register("ms-1", 5001, 100, 10)
    await register("ms-2", 5002, 50, 5)
    await register("ms-3", 5003, 70, 7, draining=True)
    await register("ms-4", 5004, 30, 3)
    await register("ms-5", 5005, 30, 3)

    def age(s: object) -> None:  # ms-4 fell silent a minute ago, ms-5 two hours ago
        now = time.time()
        for sid, ago in (("ms-4", 60.0), ("ms-5", 7200.0)):
            row = s.get(MatchServerRow, sid)  # type: ignore[attr-defined]
            row.last_heartbeat = now - ago
            s.add(row)  # type: ignore[attr-defined]

    await env.lobby.db.run(age)
    counts = await env.lobby.update_server_gauges()
    assert counts == {"healthy": 2, "draining": 1, "stale": 1}
    for state, n in counts.items():
        assert _sample("wordarena_match_servers", state=state) == n
    assert _sample("wordarena_match_capacity") == 150
    assert _sample("wordarena_match_load") == 15

    # A heartbeat brings a stale server back.
    await env.registry.Heartbeat(control_pb2.HeartbeatRequest(
        server_id="ms-4", load=control_pb2.ServerLoad(capacity=30, active_matches=1)),
        metadata=env.service_md)
    assert await env.lobby.update_server_gauges() == {"healthy": 3, "draining": 1, "stale": 0}
    assert (_sample("wordarena_match_capacity"), _sample("wordarena_match_load")) == (180, 16)
