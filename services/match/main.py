"""``wordarena-match``: the match server.

Flags (each with its ``WORDARENA_*`` environment variable; see ``services.common.config`` for the
common ones — listen, metrics, database, keys, logging):

``--lease-seconds`` / ``WORDARENA_LEASE_SECONDS``       ownership lease of matches (default 30)
``--capacity`` / ``WORDARENA_CAPACITY``                 matches this server accepts (default 5000)
``--stream-queue`` / ``WORDARENA_STREAM_QUEUE``         events buffered per stream before a slow
                                                        reader is cut off (default 256)
``--heartbeat-seconds`` / ``WORDARENA_HEARTBEAT_SECONDS`` stream heartbeat interval (default 15)
``--bot-delay`` / ``WORDARENA_BOT_DELAY``               seconds a bot waits before moving (default 0)
``--engine-workers`` / ``WORDARENA_ENGINE_WORKERS``     threads for bot moves and analysis (default 2)
``--lobby`` / ``WORDARENA_LOBBY``                       host:port of the lobby's MatchRegistryService;
                                                        when set, the server registers, heartbeats
                                                        (address, capacity, load) and reports every
                                                        finished match's result (retried until
                                                        acknowledged; see ``services.match.lobby_link``)

Start-up applies the database migrations, takes over the running matches whose lease is free or
expired, and serves. SIGTERM: health NOT_SERVING, streams end with UNAVAILABLE, in-flight calls
drain (``--shutdown-grace``), then the server stops.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from protos.wordarena.v1 import control_pb2_grpc, match_pb2_grpc
from services.common import auth, logs
from services.common.config import Settings, add_flag, build_parser, settings_from_args
from services.common.db import Database
from services.common.server import GrpcServer
from services.match.lobby_link import LobbyLink
from services.match.manager import MatchManager
from services.match.results import ResultOutbox
from services.match.service import Authenticator, ControlServicer, MatchServicer
from services.match.store import MatchStore

log = logs.get_logger(__name__)


def parser() -> argparse.ArgumentParser:
    """The command-line parser (common flags + the match server's own)."""
    p = build_parser("match", "wordarena match server")
    add_flag(p, "--lease-seconds", default=30.0, type=float, help="match ownership lease")
    add_flag(p, "--capacity", default=5000, type=int, help="matches this server accepts")
    add_flag(p, "--stream-queue", default=256, type=int, help="events buffered per stream")
    add_flag(p, "--heartbeat-seconds", default=15.0, type=float, help="stream heartbeat interval")
    add_flag(p, "--bot-delay", default=0.0, type=float, help="seconds a bot waits before moving")
    add_flag(p, "--engine-workers", default=2, type=int, help="threads for bot moves and analysis")
    add_flag(p, "--lobby", default="", help="lobby host:port to register with and report results to")
    return p


def load(argv: Sequence[str] | None = None) -> Settings:
    """Settings from flags and environment."""
    return settings_from_args("match", parser().parse_args(argv))


@dataclass
class MatchServer:
    """A running match server (in-process handle, used by ``main`` and the tests)."""

    settings: Settings
    grpc: GrpcServer
    manager: MatchManager
    db: Database
    outbox: ResultOutbox
    link: LobbyLink | None = None

    @property
    def port(self) -> int:
        return self.grpc.port

    async def stop(self, grace: float | None = None) -> None:
        """Graceful stop (as on SIGTERM)."""
        await self.grpc.stop(grace)
        self.db.close()


async def start(settings: Settings) -> MatchServer:
    """Migrate, take over matches, and start serving."""
    extra = {
        "lease_seconds": 30.0,
        "capacity": 5000,
        "stream_queue": 256,
        "heartbeat_seconds": 15.0,
        "bot_delay": 0.0,
        "engine_workers": 2,
        "lobby": "",
        "report_retry_base": 1.0,
        "report_retry_max": 300.0,
    } | settings.extra
    db = Database(settings.database_url)
    store = MatchStore(db)
    await asyncio.to_thread(store.migrate)
    keys = auth.load_token_keys(
        settings.data_dir,
        private_key=settings.token_private_key or None,
        public_keys=settings.token_public_key or None,
    )
    server = GrpcServer(settings)
    manager = MatchManager(
        store,
        server_id=settings.server_id,
        address=settings.advertise_address,
        lease_seconds=float(extra["lease_seconds"]),
        capacity=int(extra["capacity"]),
        stream_queue=int(extra["stream_queue"]),
        heartbeat_seconds=float(extra["heartbeat_seconds"]),
        bot_delay=float(extra["bot_delay"]),
        engine_workers=int(extra["engine_workers"]),
    )
    outbox = ResultOutbox(db, store)
    link: LobbyLink | None = None
    if extra["lobby"]:
        link = LobbyLink(str(extra["lobby"]), manager, outbox, service_token=settings.service_token,
                         keys=keys, retry_base=float(extra["report_retry_base"]),
                         retry_max=float(extra["report_retry_max"]))
    authn = Authenticator(keys, settings.service_token)

    async def drain(release: bool) -> int:
        manager.draining = True
        if release:
            ids = list(manager.matches)
            for match_id in ids:
                rt = manager.matches.get(match_id)
                if rt is not None:
                    manager._lost(rt)
            await store.release(manager.owner, ids)
        return manager.active_matches

    server.add(
        match_pb2_grpc.add_MatchServiceServicer_to_server,
        MatchServicer(manager, authn),
        "wordarena.v1.MatchService",
    )
    server.add(
        control_pb2_grpc.add_MatchControlServiceServicer_to_server,
        ControlServicer(manager, authn, drain),
        "wordarena.v1.MatchControlService",
    )

    async def on_shutdown() -> None:
        if link is not None:
            await link.stop()
        await manager.close(release=True)

    server.on_drain(on_shutdown)
    port = await server.start()
    if settings.advertise_address.endswith(":0"):
        manager.address = settings.advertise_address.rpartition(":")[0] + f":{port}"
        manager.owner = f"{manager.server_id}|{manager.address}"
    if link is not None:
        await link.start()  # before take-over, so matches ending from now on are reported
    await manager.start()  # take over running matches (others load on first use)
    return MatchServer(settings, server, manager, db, outbox, link)


async def _run(settings: Settings) -> None:
    srv = await start(settings)
    log.info(
        "match server ready",
        port=srv.port,
        metrics_port=srv.grpc.metrics_port,
        database=srv.db.engine.url.render_as_string(hide_password=True),
    )
    # Machine-readable line for launchers and tests.
    print(f"LISTENING {srv.port} METRICS {srv.grpc.metrics_port}", flush=True)
    await srv.grpc.wait_for_termination_signal()
    srv.db.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Console script entry point."""
    settings = load(argv)
    logs.configure_logging(settings.log_format, settings.log_level)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run(settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
