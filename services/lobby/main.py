"""``wordarena-lobby``: the lobby server.

Flags (each with its ``WORDARENA_*`` environment variable; see ``services.common.config``):
the common ``--listen``, ``--metrics-listen``, ``--database-url``, ``--data-dir``, ``--log-format``,
``--log-level``, ``--token-private-key``, ``--token-public-key``, ``--service-token``,
``--max-message-bytes``, ``--shutdown-grace``; and the lobby's own ``--token-ttl`` (seconds, default
30 days), ``--server-ttl`` (seconds without heartbeat before a match server gets no new matches,
default 15), ``--ticket-retention`` (seconds a closed quick-match ticket is kept before
housekeeping deletes it, default 24 hours; 0 keeps them), ``--guest-sign-in-rate`` /
``--guest-sign-in-burst`` (SignInGuest per client address: default 0.2 a second after 20) and
``--sign-in-free-failures`` / ``--sign-in-max-wait`` (SignIn per name and client address: 5 failed
passwords free, then waits of 1, 2, 4 ... seconds up to 300; failures forgotten after an hour),
``--sign-in-address-burst`` / ``--sign-in-address-rate`` (failed SignIns per client address over
all names: 30, then one per 10 s).
With ``--web-listen`` the lobby's web port serves LobbyService and TournamentService over
gRPC-Web, the web client's files at ``/`` (``--web-root``, default the client shipped in the
package, ``wordarena/clients/web/dist``) and ``/config.json``: ``{"match_servers": {native
address: web URL}}`` from ``--web-match-urls ADDRESS=URL,...`` (how a page finds the web port of
the match server a match is at; see docs/web.md).
Without keys, a development key pair is generated in the data dir, unless ``--require-keys`` /
``WORDARENA_REQUIRE_KEYS`` is set (production): then the lobby refuses to start without
``--token-private-key``. ``--no-migrate`` skips the start-up migrations;
``--migrate-only`` runs them and exits (the Kubernetes init container). ``--server-id`` names this
lobby instance in every log line; the lobby takes no ``--advertise-address`` (nothing points
clients at one lobby instance: they use the lobby's Service address).

``wordarena-lobby dev-token PLAYER_ID [...]`` prints a token signed with the lobby's key instead of
serving (see ``services.lobby.devtoken``).
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from wordarena.services.common import auth, logs
from wordarena.services.common.authn import BearerAuth
from wordarena.services.common.config import Settings, add_flag, build_parser, settings_from_args
from wordarena.services.common.db import Database
from wordarena.services.common.server import GrpcServer
from wordarena.services.lobby import devtoken, store
from wordarena.services.lobby.api import LobbyServicer, RegistryServicer, TournamentServicer
from wordarena.services.lobby.app import Lobby
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.lobby.passwords import FailureThrottle
from wordarena.services.lobby.registry import Registry
from wordarena.services.lobby.settings import TICKET_RETENTION_S
from wordarena.v1 import control_pb2_grpc, lobby_pb2_grpc, tournament_pb2_grpc

__all__ = ["build_lobby", "main", "serve"]

log = logs.get_logger("wordarena.lobby")


def parse(argv: Sequence[str] | None = None) -> Settings:
    """Parses the lobby's flags."""
    p = build_parser("lobby", "wordarena lobby server: players, tables, matchmaking, records")
    add_flag(p, "--token-ttl", default=30 * 24 * 3600.0, type=float, help="player token lifetime, seconds")
    add_flag(p, "--server-ttl", default=15.0, type=float, help="match server heartbeat timeout, seconds")
    add_flag(p, "--ticket-retention", default=TICKET_RETENTION_S, type=float,
             help="seconds a closed quick-match ticket is kept before it is deleted (0 = forever)")
    d = LobbyOptions()
    add_flag(p, "--guest-sign-in-rate", default=d.guest_sign_in_rate, type=float,
             help="guest sign-ins a second per client address, after the burst")
    add_flag(p, "--guest-sign-in-burst", default=d.guest_sign_in_burst, type=int,
             help="guest sign-ins a client address may make at once")
    for name, help_ in (
        ("max_open_tables", "open tables one player may sit at"),
        ("max_open_tables_per_guest_address", "open tables the guests of one client address may open"),
        ("max_open_tournaments", "unfinished tournaments one player may have created"),
        ("max_open_tournaments_per_guest_address",
         "unfinished tournaments the guests of one client address may have created"),
    ):
        add_flag(p, "--" + name.replace("_", "-"), default=getattr(d, name), type=int, help=help_)
    add_flag(p, "--sign-in-free-failures", default=d.sign_in_throttle.limit, type=int,
             help="failed sign-ins per (name, client address) before the backoff starts")
    add_flag(p, "--sign-in-max-wait", default=d.sign_in_throttle.max_s, type=float,
             help="longest backoff wait between failed sign-ins, seconds")
    add_flag(p, "--sign-in-address-burst", default=d.address_failure_burst, type=int,
             help="failed sign-ins a client address may make over all names before it is slowed")
    add_flag(p, "--sign-in-address-rate", default=d.address_failure_rate, type=float,
             help="failed sign-ins a second per client address after that burst")
    add_flag(p, "--web-root", default="",
             help="directory the web port serves at / (default: the web client in the package)")
    add_flag(p, "--web-match-urls", default="",
             help="ADDRESS=URL,...: each match server's web URL by its gRPC address (/config.json)")
    return settings_from_args("lobby", p.parse_args(argv))


def shipped_web_client() -> Path | None:
    """The web client's files shipped in the package (``wordarena/clients/web/dist``), found
    without importing the client."""
    spec = importlib.util.find_spec("wordarena.clients")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        dist = Path(folder) / "web" / "dist"
        if dist.is_dir():
            return dist
    return None


def web_config(
    match_urls: str, registry: Registry | None = None
) -> Callable[[], Awaitable[dict[str, object]]]:
    """``/config.json`` of the lobby's web port: each match server's web URL by its gRPC address,
    as the match servers registered them (``RegisterMatchServerRequest.web_url``), and as
    ``--web-match-urls ADDRESS=URL,...`` names them (which wins: an operator's override)."""
    fixed = match_urls_of(match_urls)

    async def config() -> dict[str, object]:
        known = await registry.web_urls() if registry is not None else {}
        return {"match_servers": {a: u.rstrip("/") for a, u in known.items()} | fixed}

    return config


def match_urls_of(match_urls: str) -> dict[str, str]:
    """``--web-match-urls ADDRESS=URL,...`` read."""
    servers = {}
    for item in match_urls.split(","):
        address, sep, url = item.strip().partition("=")
        if not sep or not address or not url:
            if item.strip():
                raise ValueError(f"--web-match-urls: {item.strip()!r} is not ADDRESS=URL")
            continue
        servers[address.strip()] = url.strip().rstrip("/")
    return servers


def options_from_settings(settings: Settings) -> LobbyOptions:
    """The lobby's tunables from its flags (defaults for the ones not given)."""
    x, d = settings.extra, LobbyOptions()
    return LobbyOptions(
        token_ttl_s=float(x.get("token_ttl", d.token_ttl_s)),
        server_ttl_s=float(x.get("server_ttl", d.server_ttl_s)),
        ticket_retention_s=float(x.get("ticket_retention", TICKET_RETENTION_S)),
        guest_sign_in_rate=float(x.get("guest_sign_in_rate", d.guest_sign_in_rate)),
        guest_sign_in_burst=int(x.get("guest_sign_in_burst", d.guest_sign_in_burst)),
        address_failure_burst=int(x.get("sign_in_address_burst", d.address_failure_burst)),
        address_failure_rate=float(x.get("sign_in_address_rate", d.address_failure_rate)),
        max_open_tables=int(x.get("max_open_tables", d.max_open_tables)),
        max_open_tables_per_guest_address=int(
            x.get("max_open_tables_per_guest_address", d.max_open_tables_per_guest_address)),
        max_open_tournaments=int(x.get("max_open_tournaments", d.max_open_tournaments)),
        max_open_tournaments_per_guest_address=int(
            x.get("max_open_tournaments_per_guest_address", d.max_open_tournaments_per_guest_address)),
        sign_in_throttle=FailureThrottle(
            limit=int(x.get("sign_in_free_failures", d.sign_in_throttle.limit)),
            max_s=float(x.get("sign_in_max_wait", d.sign_in_throttle.max_s)),
        ),
    )


async def build_lobby(
    settings: Settings, options: LobbyOptions | None = None
) -> tuple[GrpcServer, Lobby, Database]:
    """Migrates the database, builds the lobby and its server (not started)."""
    try:
        keys = auth.keys_from_settings(settings)
        if keys.signing_key is None:
            raise ValueError("the lobby needs a token signing key (--token-private-key / "
                             f"{auth.ENV_PRIVATE_KEY})")
    except ValueError as exc:
        log.error("cannot start: token keys", error=str(exc))
        raise auth.KeyConfigError(f"wordarena-lobby: {exc}") from exc
    db = Database(settings.database_url)
    if settings.no_migrate:
        log.info("migrations skipped (--no-migrate)")
    else:
        await asyncio.to_thread(store.migrate, db)
    opt = options or options_from_settings(settings)
    if settings.service_token:
        opt.service_secret = settings.service_token
    lobby = Lobby(db, keys, opt)
    authn = BearerAuth(keys, opt.service_secret)
    server = GrpcServer(settings)
    server.add(lobby_pb2_grpc.add_LobbyServiceServicer_to_server, LobbyServicer(lobby, authn),
               "wordarena.v1.LobbyService", web=True)
    server.add(tournament_pb2_grpc.add_TournamentServiceServicer_to_server, TournamentServicer(lobby, authn),
               "wordarena.v1.TournamentService", web=True)
    root = str(settings.extra.get("web_root") or "")
    server.web_static = Path(root) if root else shipped_web_client()
    server.web_config = web_config(str(settings.extra.get("web_match_urls") or ""), lobby.registry)
    server.add(
        control_pb2_grpc.add_MatchRegistryServiceServicer_to_server,
        RegistryServicer(lobby, authn),
        "wordarena.v1.MatchRegistryService",
    )
    server.on_drain(lobby.stop)
    return server, lobby, db


async def serve(settings: Settings) -> None:
    """Runs the lobby until SIGTERM / SIGINT."""
    server, lobby, db = await build_lobby(settings)
    await lobby.start()
    await server.start()
    try:
        await server.wait_for_termination_signal()
    finally:
        db.close()


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point: serves, or, with ``dev-token`` first, prints a token and exits."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["dev-token"]:
        sys.exit(devtoken.main(args[1:]))
    settings = parse(args)
    logs.configure_logging(settings.log_format, settings.log_level, service="lobby",
                           server_id=settings.server_id)
    if settings.migrate_only:
        db = Database(settings.database_url)
        try:
            store.migrate(db)
        finally:
            db.close()
        log.info("lobby schema at head", database=db.engine.url.render_as_string(hide_password=True))
        return
    asyncio.run(serve(settings))


if __name__ == "__main__":
    main()
