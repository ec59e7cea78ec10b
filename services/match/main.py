"""``wordarena-match``: the match server.

Flags (each with its ``WORDARENA_*`` environment variable; see ``services.common.config`` for the
common ones — listen, metrics, database, keys, logging):

``--lease-seconds`` / ``WORDARENA_LEASE_SECONDS``       ownership lease of matches (default 30)
``--capacity`` / ``WORDARENA_CAPACITY``                 matches this server accepts (default 5000)
``--stream-queue`` / ``WORDARENA_STREAM_QUEUE``         events buffered per stream before a slow
                                                        reader is cut off (default 256)
``--heartbeat-seconds`` / ``WORDARENA_HEARTBEAT_SECONDS`` stream heartbeat interval (default 15)
``--bot-delay`` / ``WORDARENA_BOT_DELAY``               seconds a bot waits before moving (default 0)
``--engine-workers`` / ``WORDARENA_ENGINE_WORKERS``     threads for analysis (default 2)
``--bot-workers`` / ``WORDARENA_BOT_WORKERS``           processes in which bots think: at most this
                                                        many bot moves at once (default: the cores,
                                                        at most 4; see ``botworkers``)
``--chat-rate`` / ``WORDARENA_CHAT_RATE``               chat messages a second per player and match,
                                                        after the burst (default 1)
``--chat-burst`` / ``WORDARENA_CHAT_BURST``             chat messages a player may send at once (default 5)
``--chat-per-match`` / ``WORDARENA_CHAT_PER_MATCH``     chat messages a player may post in one match
                                                        (default 500)
``--analysis-rate`` / ``WORDARENA_ANALYSIS_RATE``       Hindsight and Word Strength calls a second per
                                                        player, after the burst (default 2; a
                                                        simulated Hindsight counts 6; see ``quotas``)
``--analysis-burst`` / ``WORDARENA_ANALYSIS_BURST``     analysis calls a player may make at once
                                                        (default 20)
``--chat-observers-per-match`` / ``WORDARENA_CHAT_OBSERVERS_PER_MATCH`` messages the observers'
                                                        channel of a match takes, every spectator
                                                        together (default 2000)
``--orphan-timeout`` / ``WORDARENA_ORPHAN_TIMEOUT``     seconds after which a match no player has
                                                        come to is aborted (default 600; 0 = never;
                                                        see ``services.match.orphans``)
``--lobby`` / ``WORDARENA_LOBBY``                       host:port of the lobby's MatchRegistryService;
                                                        when set, the server registers, heartbeats
                                                        (address, capacity, load), reports every
                                                        finished match's result and the new location
                                                        of every match it takes over (retried until
                                                        acknowledged; see ``services.match.lobby_link``)
``--advertise-address`` / ``WORDARENA_ADVERTISE_ADDRESS`` host:port clients should use (default:
                                                        listen; a port 0 becomes the bound port)

Start-up applies the database migrations (unless ``--no-migrate``; ``--migrate-only`` migrates and
exits), loads the token keys (``--require-keys``: configured keys or a start-up failure; with
``--lobby`` and no configured public key a warning says that lobby tokens will be refused unless
the lobby uses the same development key pair), binds the port with health NOT_SERVING, takes over
the running matches whose lease is free, expired or its own (replaying their logs), and only then
turns health SERVING. While running, it takes over matches whose owner stopped renewing its lease.
``--web-listen`` (common flag) adds a gRPC-Web port for browsers serving MatchService.
Ready line on stdout (for launchers and tests): ``LISTENING <port> METRICS <metrics port>``
(`` WEB <web port>`` after it when there is a web port), or with ``--log-format json`` a JSON
object ``{"event": "listening", "port": …, "metrics_port": …}`` (and ``"web_port"``; see
``parse_ready_line``). SIGTERM: health NOT_SERVING, streams end with UNAVAILABLE, in-flight
calls drain (``--shutdown-grace``), then the server stops.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from wordarena.services.common import auth, logs
from wordarena.services.common.authn import BearerAuth
from wordarena.services.common.config import Settings, add_flag, build_parser, settings_from_args
from wordarena.services.common.db import Database
from wordarena.services.common.server import GrpcServer
from wordarena.services.match.control import ControlServicer
from wordarena.services.match.core import ChatLimits
from wordarena.services.match.lobby_link import LobbyLink
from wordarena.services.match.manager import MatchManager
from wordarena.services.match.quotas import AnalysisLimits, AnalysisQuota
from wordarena.services.match.results import ResultOutbox
from wordarena.services.match.service import MatchServicer
from wordarena.services.match.store import MatchStore, open_database
from wordarena.v1 import control_pb2_grpc, match_pb2_grpc

log = logs.get_logger(__name__)


def parser() -> argparse.ArgumentParser:
    """The command-line parser (common flags + the match server's own)."""
    p = build_parser("match", "wordarena match server")
    add_flag(p, "--lease-seconds", default=30.0, type=float, help="match ownership lease")
    add_flag(p, "--capacity", default=5000, type=int, help="matches this server accepts")
    add_flag(p, "--stream-queue", default=256, type=int, help="events buffered per stream")
    add_flag(p, "--heartbeat-seconds", default=15.0, type=float, help="stream heartbeat interval")
    add_flag(p, "--bot-delay", default=0.0, type=float, help="seconds a bot waits before moving")
    add_flag(p, "--deal-seed", default=0, type=int,
             help="tests and demonstrations only: deal every match created without a seed from "
             "this seed, so that its deal is known in advance (0: a random seed per match)")
    add_flag(p, "--engine-workers", default=2, type=int, help="threads for analysis")
    add_flag(p, "--bot-workers", default=0, type=int,
             help="processes in which bots think, at most this many bot moves at once "
             "(0: the machine's cores, at most 4)")
    add_flag(p, "--chat-rate", default=1.0, type=float, help="chat messages a second per player")
    add_flag(p, "--chat-burst", default=5, type=int, help="chat messages a player may send at once")
    add_flag(p, "--chat-per-match", default=500, type=int, help="chat messages a player may post in a match")
    add_flag(p, "--chat-observers-per-match", default=2000, type=int,
             help="messages the observers' channel of a match takes in all (every spectator together)")
    add_flag(p, "--analysis-rate", default=2.0, type=float,
             help="Hindsight and Word Strength calls a second per player (a simulation counts 6)")
    add_flag(p, "--analysis-burst", default=20, type=int, help="analysis calls a player may make at once")
    add_flag(p, "--orphan-timeout", default=600.0, type=float,
             help="seconds before a match no player has come to is aborted (0 = never)")
    add_flag(p, "--lobby", default="", help="lobby host:port to register with and report results to")
    add_flag(p, "--advertise-address", default="", help="host:port clients should use (default: listen)")
    add_flag(p, "--advertise-web-url", default="",
             help="where browsers reach the web port, told to the lobby for /config.json (default: "
                  "http://ADVERTISED-HOST:WEB-PORT/ when --web-listen is set)")
    return p


def load(argv: Sequence[str] | None = None) -> Settings:
    """Settings from flags and environment."""
    p = parser()
    args = p.parse_args(argv)
    if args.analysis_rate <= 0 or args.analysis_burst < 1:
        p.error(f"--analysis-rate {args.analysis_rate:g} / --analysis-burst {args.analysis_burst}: "
                "a rate above 0 and a burst of 1 or more")
    if args.bot_workers < 0:
        p.error(f"--bot-workers {args.bot_workers}: a number of processes, 0 or more "
                "(0: the cores, at most 4)")
    return settings_from_args("match", args)


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
        "bot_workers": 0,
        "chat_rate": 1.0,
        "chat_burst": 5,
        "chat_per_match": 500,
        "chat_observers_per_match": 2000,
        "analysis_rate": 2.0,
        "analysis_burst": 20,
        "orphan_timeout": 600.0,
        "lobby": "",
        "report_retry_base": 1.0,
        "report_retry_max": 300.0,
        "result_sweep_seconds": 60.0,
    } | settings.extra
    keys = load_keys(settings, lobby=str(extra["lobby"]))
    db = open_database(settings.database_url, float(extra["lease_seconds"]))
    store = MatchStore(db)
    if settings.no_migrate:
        log.info("migrations skipped (--no-migrate)")
    else:
        await asyncio.to_thread(store.migrate)
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
        deal_seed=int(extra.get("deal_seed", 0)),
        engine_workers=int(extra["engine_workers"]),
        bot_workers=int(extra["bot_workers"]),
        chat_limits=ChatLimits(rate=float(extra["chat_rate"]), burst=int(extra["chat_burst"]),
                               per_match=int(extra["chat_per_match"]),
                               observers_per_match=int(extra["chat_observers_per_match"])),
        orphan_timeout=float(extra["orphan_timeout"]),
    )
    outbox = ResultOutbox(db, store)
    link: LobbyLink | None = None
    if extra["lobby"]:
        link = LobbyLink(str(extra["lobby"]), manager, outbox, service_token=settings.service_token,
                         keys=keys, retry_base=float(extra["report_retry_base"]),
                         retry_max=float(extra["report_retry_max"]),
                         sweep_every=float(extra["result_sweep_seconds"]))
    authn = BearerAuth(keys, settings.service_token)

    async def drain(release: bool) -> int:
        manager.draining = True
        if release:
            ids = list(manager.matches)
            for match_id in ids:
                rt = manager.matches.get(match_id)
                if rt is not None:
                    manager.lost(rt)
            await store.release(manager.owner, ids)
        return manager.active_matches

    server.add(
        match_pb2_grpc.add_MatchServiceServicer_to_server,
        MatchServicer(manager, authn, AnalysisQuota(
            AnalysisLimits(float(extra["analysis_rate"]), int(extra["analysis_burst"])),
            lambda: manager.bot_workers.workers)),
        "wordarena.v1.MatchService", web=True,
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
    port = await server.start(serving=False)  # NOT_SERVING until the owned matches are recovered
    if settings.advertise_address.endswith(":0"):
        manager.address = settings.advertise_address.rpartition(":")[0] + f":{port}"
        manager.owner = f"{manager.server_id}|{manager.address}"
    if link is not None:
        link.web_url = web_url_of(str(extra.get("advertise_web_url") or ""), manager.address,
                                  server.web_port)
        await link.start()  # before take-over, so matches ending from now on are reported
    await manager.start()  # take over running matches (others load on first use or the next scan)
    log.info("matches recovered", matches=len(manager.matches), active=manager.active_matches)
    await server.set_serving()
    return MatchServer(settings, server, manager, db, outbox, link)


def web_url_of(advertised: str, address: str, web_port: int) -> str:
    """Where browsers reach this server's web port: ``--advertise-web-url``, else the advertised
    host with the web port (nothing without a web port)."""
    if advertised or not web_port:
        return advertised
    host = address.rpartition(":")[0] or "127.0.0.1"
    return f"http://{host}:{web_port}/"


def load_keys(settings: Settings, *, lobby: str = "") -> auth.TokenKeys:
    """The token keys (``auth.KeyConfigError`` with a clear message when they cannot be used)."""
    try:
        keys = auth.keys_from_settings(settings)
    except ValueError as exc:
        log.error("cannot start: token keys", error=str(exc))
        raise auth.KeyConfigError(f"wordarena-match: {exc}") from exc
    if lobby and keys.source.startswith("dev:"):
        log.warning(
            "token keys: --lobby is set but no public key is configured; verifying with the development "
            "key pair in the data dir, so tokens the lobby signs are refused (UNAUTHENTICATED) unless the "
            "lobby uses this same key pair (as with `wordarena serve`). Set WORDARENA_TOKEN_PUBLIC_KEY to "
            "the lobby's public key, and --require-keys in production",
            key_file=keys.source.removeprefix("dev:"), lobby=lobby)
    return keys


def ready_line(port: int, metrics_port: int, fmt: str, web_port: int = 0) -> str:
    """The machine-readable line printed on stdout once the server serves."""
    if fmt == "json":
        return json.dumps({"event": "listening", "port": port, "metrics_port": metrics_port}
                          | ({"web_port": web_port} if web_port else {}))
    return f"LISTENING {port} METRICS {metrics_port}" + (f" WEB {web_port}" if web_port else "")


def parse_ready_line(line: str) -> tuple[int, int] | None:
    """(port, metrics port) from a ready line of either format; None for any other line."""
    line = line.strip()
    if line.startswith("LISTENING"):
        parts = line.split()
        return int(parts[1]), int(parts[3])
    if line.startswith("{"):
        try:
            obj = json.loads(line)
        except ValueError:
            return None
        if isinstance(obj, dict) and obj.get("event") == "listening":
            return int(obj["port"]), int(obj.get("metrics_port") or 0)
    return None


def parse_web_port(line: str) -> int:
    """The web port of a ready line of either format (0: none)."""
    line = line.strip()
    if line.startswith("LISTENING"):
        parts = line.split()
        return int(parts[5]) if len(parts) > 5 and parts[4] == "WEB" else 0
    with contextlib.suppress(ValueError, AttributeError):
        return int(json.loads(line).get("web_port") or 0)
    return 0


def migrate_only(settings: Settings) -> int:
    """``--migrate-only``: bring the schema to head and exit (Kubernetes init containers)."""
    db = Database(settings.database_url)
    try:
        MatchStore(db).migrate()
    finally:
        db.close()
    log.info("match schema at head", database=db.engine.url.render_as_string(hide_password=True))
    return 0


async def _run(settings: Settings) -> None:
    srv = await start(settings)
    log.info(
        "match server ready",
        port=srv.port,
        metrics_port=srv.grpc.metrics_port,
        database=srv.db.engine.url.render_as_string(hide_password=True),
    )
    # Machine-readable line for launchers and tests (bench/match_load.py, tests/service/match).
    print(ready_line(srv.port, srv.grpc.metrics_port, settings.log_format, srv.grpc.web_port), flush=True)
    await srv.grpc.wait_for_termination_signal()
    srv.db.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Console script entry point."""
    settings = load(argv)
    logs.configure_logging(settings.log_format, settings.log_level, service="match",
                           server_id=settings.server_id)
    if settings.migrate_only:
        return migrate_only(settings)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run(settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
