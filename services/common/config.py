"""Service settings: command-line flags, each with a matching ``WORDARENA_*`` environment variable.

Precedence: flag > environment variable > default. Both services (lobby, match) use
``build_parser`` and add their own flags; ``Settings`` holds the common ones.

Common settings
---------------
``--listen`` / ``WORDARENA_LISTEN``                   gRPC host:port (default ``127.0.0.1:50051``).
``--metrics-listen`` / ``WORDARENA_METRICS_LISTEN``   Prometheus ``/metrics`` host:port; empty = off.
``--database-url`` / ``WORDARENA_DATABASE_URL``       SQLAlchemy URL; default an SQLite file in the
                                                      data dir (``sqlite:///<data-dir>/<service>.db``).
``--data-dir`` / ``WORDARENA_DATA_DIR``               where default files live (``~/.local/share/wordarena``).
``--log-format`` / ``WORDARENA_LOG_FORMAT``           ``json`` (production) or ``console`` (default).
``--log-level`` / ``WORDARENA_LOG_LEVEL``             ``debug``, ``info`` (default), ``warning``, ``error``.
``--token-public-key`` / ``WORDARENA_TOKEN_PUBLIC_KEY``   Ed25519 public key (PEM text or a file path)
                                                      that verifies player bearer tokens.
``--token-private-key`` / ``WORDARENA_TOKEN_PRIVATE_KEY`` Ed25519 private key (PEM or path) that signs
                                                      them (lobby; wordarena-lobby dev-token).
``--service-token`` / ``WORDARENA_SERVICE_TOKEN``     shared secret for internal services (MatchControl).
``--service-token-file`` / ``WORDARENA_SERVICE_TOKEN_FILE``  the same, read from a file (one line; a
                                                      trailing newline is dropped): keeps it off ``ps``.
``--database-password-file`` / ``WORDARENA_DATABASE_PASSWORD_FILE``  the database password, read from
                                                      a file and put into the URL (which then need
                                                      not hold it).
``--max-message-bytes`` / ``WORDARENA_MAX_MESSAGE_BYTES`` gRPC message size limit (default 1 MiB,
                                                      as common.proto says).
``--max-connections`` / ``WORDARENA_MAX_CONNECTIONS``  connections accepted at once (default 10000).
``--max-streams-per-connection`` / ``WORDARENA_MAX_STREAMS_PER_CONNECTION``  calls, streams
                                                      included, open at once on one connection
                                                      (default 100).
``--max-connection-idle`` / ``WORDARENA_MAX_CONNECTION_IDLE``  seconds a connection with no call
                                                      open is kept (default 900); clients reconnect.
``--shutdown-grace`` / ``WORDARENA_SHUTDOWN_GRACE``   seconds to drain on SIGTERM (default 10).
``--web-listen`` / ``WORDARENA_WEB_LISTEN``           host:port of the gRPC-Web (and Connect) port for
                                                      browsers; empty = off (default). See docs/web.md.
``--web-origins`` / ``WORDARENA_WEB_ORIGINS``         origins (comma-separated, ``*`` = any) whose pages
                                                      may call the web port besides its own; default
                                                      none (same-origin only).
``--server-id`` / ``WORDARENA_SERVER_ID``             stable instance id (default: hostname-pid); every
                                                      log line carries it.
``--require-keys`` / ``WORDARENA_REQUIRE_KEYS``       production switch: refuse to start without
                                                      configured token keys (no development key pair).
``--no-migrate`` / ``WORDARENA_NO_MIGRATE``           do not run the database migrations at start-up
                                                      (an init container / job runs them).
``--migrate-only`` / ``WORDARENA_MIGRATE_ONLY``       run the migrations, then exit (init containers).

The match server adds ``--advertise-address`` / ``WORDARENA_ADVERTISE_ADDRESS`` (the host:port
clients should use; default: listen). The lobby has no such flag: nothing points clients at a lobby
instance, so it would have nothing to advertise.

Boolean settings take ``1``/``true``/``yes``/``on`` (or ``0``/``false``/``no``/``off``); the bare
flag means true.
"""

from __future__ import annotations

import argparse
import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ENV_PREFIX = "WORDARENA_"


def env_name(flag: str) -> str:
    """``--metrics-listen`` → ``WORDARENA_METRICS_LISTEN``."""
    return ENV_PREFIX + flag.lstrip("-").replace("-", "_").upper()


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/wordarena`` or ``~/.local/share/wordarena``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "wordarena"


@dataclass
class Settings:
    """Settings every service shares. ``extra`` holds service-specific flags by dest name."""

    service: str
    listen: str = "127.0.0.1:50051"
    metrics_listen: str = ""
    database_url: str = ""
    data_dir: Path = field(default_factory=default_data_dir)
    log_format: str = "console"
    log_level: str = "info"
    token_public_key: str = ""
    token_private_key: str = ""
    service_token: str = ""
    max_message_bytes: int = 1024 * 1024
    max_connections: int = 10_000
    max_streams_per_connection: int = 100
    max_connection_idle: float = 900.0
    shutdown_grace: float = 10.0
    web_listen: str = ""
    web_origins: str = ""
    advertise_address: str = ""
    server_id: str = ""
    require_keys: bool = False
    no_migrate: bool = False
    migrate_only: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.database_url:
            self.database_url = f"sqlite:///{Path(self.data_dir) / (self.service + '.db')}"
        if not self.server_id:
            self.server_id = f"{socket.gethostname()}-{os.getpid()}"
        if not self.advertise_address:
            self.advertise_address = self.listen


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


def env_bool(value: str | bool) -> bool:
    """A boolean setting: ``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off`` (any case)."""
    if isinstance(value, bool):
        return value
    v = value.strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    raise argparse.ArgumentTypeError(f"not a boolean: {value!r} (use 1/0, true/false, yes/no, on/off)")


def add_flag(parser: argparse.ArgumentParser, flag: str, *, default: Any = None, type: Any = str,
             help: str = "", **kwargs: Any) -> None:
    """Add ``flag`` whose default comes from its ``WORDARENA_*`` environment variable."""
    env = env_name(flag)
    raw = os.environ.get(env)
    try:
        value = type(raw) if raw is not None else default
    except (ValueError, argparse.ArgumentTypeError) as exc:
        parser.error(f"{env}={raw!r}: {exc}")
    parser.add_argument(flag, default=value, type=type, help=f"{help} [env {env}; default {default!r}]",
                        **kwargs)


def build_parser(service: str, description: str = "") -> argparse.ArgumentParser:
    """A parser with the common flags; services add their own with ``add_flag``."""
    p = argparse.ArgumentParser(prog=f"wordarena-{service}", description=description)
    add_flag(p, "--listen", default="127.0.0.1:50051", help="gRPC listen address host:port")
    add_flag(p, "--metrics-listen", default="", help="Prometheus /metrics host:port (empty = off)")
    add_flag(p, "--database-url", default="", help="SQLAlchemy database URL (default: SQLite file)")
    add_flag(p, "--data-dir", default=str(default_data_dir()), help="directory for default files")
    add_flag(p, "--log-format", default="console", help="json or console",
             choices=["json", "console"])
    add_flag(p, "--log-level", default="info", help="debug, info, warning, error")
    add_flag(p, "--token-public-key", default="", help="Ed25519 public key (PEM or path)")
    add_flag(p, "--token-private-key", default="", help="Ed25519 private key (PEM or path)")
    add_flag(p, "--service-token", default="", help="shared secret of internal services")
    add_flag(p, "--service-token-file", default="", help="file holding the shared secret (not on ps)")
    add_flag(p, "--database-password-file", default="",
             help="file holding the database password (put into --database-url)")
    add_flag(p, "--max-message-bytes", default=1024 * 1024, type=int,
             help="gRPC max send/receive message size")
    add_flag(p, "--max-connections", default=10_000, type=int,
             help="connections the server accepts at once (more wait in the kernel's backlog)")
    add_flag(p, "--max-streams-per-connection", default=100, type=int,
             help="calls (streams included) one connection may have open at once")
    add_flag(p, "--max-connection-idle", default=900.0, type=float,
             help="seconds a connection with no call open is kept before the server closes it")
    add_flag(p, "--shutdown-grace", default=10.0, type=float, help="seconds to drain on SIGTERM")
    add_flag(p, "--web-listen", default="",
             help="host:port of the gRPC-Web port for browsers (empty = off)")
    add_flag(p, "--web-origins", default="",
             help="origins besides its own whose pages may call the web port (comma-separated; * = any)")
    add_flag(p, "--server-id", default="", help="stable instance id (in every log line)")
    add_flag(p, "--require-keys", default=False, type=env_bool, nargs="?", const=True,
             help="fail at start-up unless token keys are configured (production)")
    add_flag(p, "--no-migrate", default=False, type=env_bool, nargs="?", const=True,
             help="do not run database migrations at start-up")
    add_flag(p, "--migrate-only", default=False, type=env_bool, nargs="?", const=True,
             help="run the database migrations and exit")
    return p


_COMMON = {f.name for f in Settings.__dataclass_fields__.values()} - {"service", "extra"}


def read_secret(path: str, what: str) -> str:
    """A secret held in a file: its text without the trailing newline (SystemExit 2 naming
    ``what`` when the file cannot be read or is empty)."""
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8").rstrip("\r\n")
    except OSError as exc:
        raise SystemExit(f"{what}: cannot read {path}: {exc.strerror}") from exc
    if not text:
        raise SystemExit(f"{what}: {path} is empty")
    return text


def _apply_secret_files(values: dict[str, Any]) -> None:
    """Reads ``--service-token-file`` and ``--database-password-file`` into the settings."""
    token_file = values.pop("service_token_file", "")
    if token_file:
        if values.get("service_token"):
            raise SystemExit("--service-token and --service-token-file: give one of them")
        values["service_token"] = read_secret(token_file, "--service-token-file")
    password_file = values.pop("database_password_file", "")
    if password_file:
        from sqlalchemy.engine import make_url  # servers only: clients never read these settings

        if not values.get("database_url"):
            raise SystemExit("--database-password-file needs --database-url (PostgreSQL)")
        password = read_secret(password_file, "--database-password-file")
        url = make_url(values["database_url"]).set(password=password)
        values["database_url"] = url.render_as_string(hide_password=False)


def settings_from_args(service: str, args: argparse.Namespace) -> Settings:
    """Split parsed arguments into common ``Settings`` fields and ``extra`` (secrets given as
    files read in)."""
    values = dict(vars(args))
    _apply_secret_files(values)
    common = {k: v for k, v in values.items() if k in _COMMON}
    extra = {k: v for k, v in values.items() if k not in _COMMON}
    common["data_dir"] = Path(common.get("data_dir") or default_data_dir())
    return Settings(service=service, extra=extra, **common)


def load_settings(service: str, argv: Sequence[str] | None = None,
                  parser: argparse.ArgumentParser | None = None) -> Settings:
    """Parse ``argv`` (default: ``sys.argv[1:]``) with ``parser`` (default: the common one)."""
    parser = parser or build_parser(service)
    return settings_from_args(service, parser.parse_args(argv))


def read_key(value: str) -> bytes:
    """A key given as PEM text or as a path to a PEM file."""
    if "-----BEGIN" in value:
        return value.encode()
    return Path(value).expanduser().read_bytes()
