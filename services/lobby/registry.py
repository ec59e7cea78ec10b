"""The match-server registry: servers register, heartbeat with their load, and report where a
match went after a take-over; the lobby allocates on the healthy ones and gauges them all."""

from __future__ import annotations

import time
from dataclasses import dataclass

from wordarena.services.common import logs
from wordarena.services.common.db import Database
from wordarena.services.lobby import store
from wordarena.services.lobby.errors import LobbyError
from wordarena.services.lobby.metrics import (
    MATCH_CAPACITY,
    MATCH_LOAD,
    MATCH_SERVERS,
    SERVER_STATES,
    STALE_WINDOW_S,
)
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.lobby.table_ops import Tables

__all__ = ["Load", "Registry"]

log = logs.get_logger("wordarena.lobby")


@dataclass(frozen=True)
class Load:
    """What a match server reports of itself."""

    capacity: int
    active: int
    draining: bool


class Registry:
    """Registered match servers."""

    def __init__(self, db: Database, options: LobbyOptions, tables: Tables) -> None:
        self.db = db
        self.opt = options
        self.tables = tables

    async def register(self, server_id: str, address: str, version: str, load: Load,
                       web_url: str = "") -> None:
        """Adds (or renews) a match server (``web_url``: where browsers reach it)."""
        await self.db.run(
            store.register_server,
            server_id,
            address,
            version[:64],
            load.capacity,
            load.active,
            load.draining,
            time.time(),
            web_url,
        )
        log.info("match server registered", match_server_id=server_id, address=address, web_url=web_url)

    async def web_urls(self) -> dict[str, str]:
        """The web URL of every match server seen within a server TTL, by its gRPC address."""
        rows = await self.db.run(store.servers_seen_since, time.time() - self.opt.server_ttl_s)
        return {r.address: r.web_url for r in rows if r.web_url}

    async def heartbeat(self, server_id: str, address: str, load: Load) -> float:
        """Records a heartbeat; returns when the next one is due (NOT_FOUND for an unknown server:
        it must register again)."""
        now = time.time()
        if not await self.db.run(
            store.heartbeat_server, server_id, load.capacity, load.active, load.draining, address, now
        ):
            raise LobbyError.not_found("unknown server_id: register again", "server_id")
        return now + self.opt.server_ttl_s

    async def match_moved(self, match_id: str, server_id: str, address: str) -> None:
        """Records a match's new owner, and points its tables there."""
        if not await self.db.run(store.move_match, match_id, server_id, address):
            raise LobbyError.not_found("unknown match", "match_id")
        await self.tables.match_moved(match_id, address)

    async def update_server_gauges(self) -> dict[str, int]:
        """Sets ``wordarena_match_servers{state}``, ``wordarena_match_capacity`` and
        ``wordarena_match_load`` from the registry. Returns the server count by state."""
        now = time.time()
        rows = await self.db.run(store.servers_seen_since, now - STALE_WINDOW_S)
        counts = dict.fromkeys(SERVER_STATES, 0)
        capacity = load = 0
        for r in rows:
            if r.last_heartbeat < now - self.opt.server_ttl_s:
                counts["stale"] += 1
            elif r.draining:
                counts["draining"] += 1
            else:
                counts["healthy"] += 1
                capacity += r.capacity
                load += r.active
        for state, n in counts.items():
            MATCH_SERVERS.labels(state).set(n)
        MATCH_CAPACITY.set(capacity)
        MATCH_LOAD.set(load)
        return counts
