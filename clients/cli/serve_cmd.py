"""``wordarena serve``: a lobby and a match server on this machine, embedded SQLite by default.

Both servers run as separate processes started from their real entry points
(``services.lobby.main:main`` and ``services.match.main:main``) — the same code paths as a
deployment. They share a data directory (SQLite files, the development token key pair) and a
freshly generated service token. The match server is started with ``--lobby`` and registers
itself with the lobby, heartbeats and reports match results there (``MatchRegistryService``).
Ctrl-C or SIGTERM stops both gracefully. The servers end with ``serve`` even when it is killed
with SIGKILL (``services.common.lifeline``: the kernel's parent-death signal, and a pipe they
watch). ``serve`` first checks that every address it is to listen on is free ("in use": it exits
at once, exit status 3), and reports READY only for servers that prove they are its own: each
answers a service call with the service token this run generated, which no other process knows.

Browsers: the lobby's web port (``--web-listen``, default a free port of 127.0.0.1; empty = none) serves the
web client at ``/`` and the lobby's RPCs over gRPC-Web; each match server gets a web port of its own
(a free port on the same host), allows the lobby page's origin, and the lobby lists it in
``/config.json`` under the match server's gRPC address (docs/web.md). The page's URL is printed
(``web    http://HOST:PORT/``) before ``READY``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import grpc

from wordarena.v1 import lobby_pb2, lobby_pb2_grpc

_LAUNCH = ("import sys; from wordarena.services.common.lifeline import die_with_parent; die_with_parent(); "
           "from wordarena.services.{0}.main import main; sys.exit(main() or 0)")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``serve``."""
    p = subparsers.add_parser(
        "serve", help="run a lobby and a match server on this machine (embedded SQLite)",
        description="Starts the lobby and a match server, prints their addresses and runs until "
        "Ctrl-C / SIGTERM. Port 0 picks a free port.")
    p.add_argument("--lobby-listen", default=os.environ.get("WORDARENA_LOBBY") or "127.0.0.1:50051",
                   metavar="HOST:PORT", help="lobby address (default 127.0.0.1:50051, env WORDARENA_LOBBY)")
    p.add_argument("--match-listen", default="127.0.0.1:50052", metavar="HOST:PORT",
                   help="match server address (default 127.0.0.1:50052); with --match-servers N, the "
                        "next servers take the next ports")
    p.add_argument("--match-servers", type=int, default=1, metavar="N",
                   help="match servers to run (default 1): on SQLite each has its own file "
                        "(match.db, match-2.db, …); with --database-url they share the database")
    p.add_argument("--web-listen", default="127.0.0.1:0", metavar="HOST:PORT",
                   help="the web page and the lobby's gRPC-Web port (default 127.0.0.1:0: a free port, "
                        "printed; '' = no web ports)")
    p.add_argument("--data-dir", default=os.environ.get("WORDARENA_DATA_DIR"),
                   help="where the SQLite files and keys live, private to you (mode 0700; env "
                        "WORDARENA_DATA_DIR; default ~/.local/share/wordarena)")
    p.add_argument("--database-url", default="",
                   help="a database URL for both services instead of SQLite files (e.g. PostgreSQL)")
    p.add_argument("--bot-delay", type=float, default=0.5, help="seconds a bot waits before moving")
    p.add_argument("--deal-seed", type=int, default=0, help=argparse.SUPPRESS)  # tests: known deals
    p.add_argument("--log-level", default="warning", help="servers' log level (default warning)")
    p.add_argument("--log-file", default=None,
                   help="servers' logs (default <data-dir>/serve.log; '-' = this terminal)")
    p.add_argument("--ready-timeout", type=float, default=60.0, help="seconds to wait for start-up")
    p.set_defaults(func=_serve)


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free right now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def resolve(address: str) -> str:
    """``host:0`` → ``host:<a free port>``."""
    host, _, port = address.rpartition(":")
    host = host or "127.0.0.1"
    return f"{host}:{free_port(host) if port in ('', '0') else int(port)}"


def _client_address(address: str) -> str:
    host, _, port = address.rpartition(":")
    return f"127.0.0.1:{port}" if host in ("0.0.0.0", "", "[::]", "::") else address


def wait_ready(address: str, timeout: float, proc: subprocess.Popen | None = None) -> bool:
    """Wait until a gRPC server answers at ``address`` (False if ``proc`` died or time ran out)."""
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(_client_address(address)) as ch:
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                return False
            try:
                grpc.channel_ready_future(ch).result(timeout=0.5)
                return True
            except grpc.FutureTimeoutError:
                continue
    return False


def wait_serving(address: str, timeout: float, proc: subprocess.Popen | None = None) -> bool:
    """Wait until the server at ``address`` says SERVING on the standard health service (False
    if ``proc`` died or time ran out)."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(_client_address(address)) as ch:
        stub = health_pb2_grpc.HealthStub(ch)
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                return False
            try:
                answer = stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return True
            except grpc.RpcError:
                pass
            time.sleep(0.2)
    return False


def _start(service: str, flags: list[str], env: dict[str, str], log: IO[str] | None,
           lifeline_fd: int) -> subprocess.Popen:
    """A server process in its own session (Ctrl-C reaches ``serve``, which stops it), tied to this
    process by ``lifeline_fd`` (the read end of a pipe only this process can write to)."""
    return subprocess.Popen([sys.executable, "-c", _LAUNCH.format(service), *flags], env=env,
                            stdout=log, stderr=subprocess.STDOUT if log else None,
                            start_new_session=True, pass_fds=(lifeline_fd,))


class ForeignServer(Exception):
    """Another process answers at an address ``serve`` started a server for."""


def address_in_use(address: str) -> bool:
    """True when ``address`` (``host:port``) cannot be bound now: another process listens there."""
    host, _, port = address.rpartition(":")
    host = host.strip("[]") or "0.0.0.0"
    try:
        infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror:
        return False  # the server reports an address it cannot resolve itself
    family, kind, proto, _, where = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC does: TIME_WAIT is free
        try:
            s.bind(where)
        except OSError:
            return True
    return False


def _service_md(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


def wait_own_lobby(address: str, token: str, timeout: float, proc: subprocess.Popen | None = None) -> bool:
    """Wait until the lobby at ``address`` answers and proves it is the one started with ``token``:
    a Heartbeat of a server it never registered is NOT_FOUND there, UNAUTHENTICATED from a lobby
    with another token. False if ``proc`` died or time ran out; ``ForeignServer`` if another server
    answers."""
    from wordarena.v1 import control_pb2, control_pb2_grpc

    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(_client_address(address)) as ch:
        stub = control_pb2_grpc.MatchRegistryServiceStub(ch)
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                return False
            try:
                stub.Heartbeat(control_pb2.HeartbeatRequest(server_id="serve-readiness-probe"),
                               metadata=_service_md(token), timeout=1)
            except grpc.RpcError as err:
                code = err.code() if isinstance(err, grpc.Call) else None
                if code == grpc.StatusCode.NOT_FOUND:
                    return True
                if code not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                    raise ForeignServer(f"{address} answers {code.name if code else err}") from err
                time.sleep(0.2)
                continue
            return True  # a lobby that knows the probe's server id: it took our token
    return False


def check_own_match_server(address: str, token: str) -> None:
    """``ForeignServer`` unless the match server at ``address`` takes ``token`` (GetLoad)."""
    from wordarena.v1 import control_pb2, control_pb2_grpc

    with grpc.insecure_channel(_client_address(address)) as ch:
        try:
            control_pb2_grpc.MatchControlServiceStub(ch).GetLoad(
                control_pb2.GetLoadRequest(), metadata=_service_md(token), timeout=5)
        except grpc.RpcError as err:
            code = err.code() if isinstance(err, grpc.Call) else None
            raise ForeignServer(f"{address} answers {code.name if code else err}") from err


def _stop(procs: list[subprocess.Popen], grace: float = 10.0) -> None:
    for p in procs:
        if p.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _server_missing() -> str | None:
    """The server dependency a client-only install lacks (``wordarena[server]`` adds them), if any."""
    try:
        importlib.import_module("wordarena.services.lobby.main")
        importlib.import_module("wordarena.services.match.main")
    except ModuleNotFoundError as exc:
        return exc.name or str(exc)
    return None


def _serve(args: argparse.Namespace) -> int:
    missing = _server_missing()
    if missing:
        print(f"wordarena serve: the servers need the package {missing!r}, which this install lacks; "
              "install them with: pip install 'wordarena[server]'", file=sys.stderr)
        return 2
    from wordarena.services.common.config import default_data_dir

    data_dir = Path(args.data_dir).expanduser() if args.data_dir else default_data_dir()
    # The files hold password hashes and the token signing key: readable by the owner only. The
    # servers inherit the umask, so the SQLite files they create are 0600.
    os.umask(0o077)
    data_dir.mkdir(parents=True, exist_ok=True)
    data_dir.chmod(0o700)
    if args.match_servers < 1:
        print("wordarena serve: --match-servers must be at least 1", file=sys.stderr)
        return 2
    lobby_addr = resolve(args.lobby_listen)
    match_addrs = match_addresses(args.match_listen, args.match_servers)
    web = web_flags(args.web_listen, match_addrs)
    listens = [("the lobby", "--lobby-listen", lobby_addr),
               *(("a match server", "--match-listen", a) for a in match_addrs),
               *(("a web port", "--web-listen", f[1]) for f in [web.lobby, *web.match] if f)]
    for what, flag, address in listens:
        if address_in_use(address):
            print(f"wordarena serve: {address} ({what}) is in use by another process (an earlier "
                  f"`wordarena serve`?); stop it, or choose another address with {flag}", file=sys.stderr)
            return 3
    from wordarena.services.common.lifeline import PARENT_FD_ENV, PARENT_PID_ENV

    token = secrets.token_urlsafe(32)
    # The servers' lifeline: they stop when this pipe's write end closes (this process is gone).
    lifeline_fd, lifeline_w = os.pipe()
    env = dict(os.environ)
    env.pop("WORDARENA_LISTEN", None)
    env["WORDARENA_SERVICE_TOKEN"] = token
    env[PARENT_PID_ENV] = str(os.getpid())
    env[PARENT_FD_ENV] = str(lifeline_fd)
    env.setdefault("PYTHONUNBUFFERED", "1")
    common = ["--data-dir", str(data_dir), "--log-level", args.log_level]
    if args.database_url:
        common += ["--database-url", args.database_url]
    log: IO[str] | None = None
    log_path = None
    if args.log_file != "-":
        log_path = Path(args.log_file) if args.log_file else data_dir / "serve.log"
        log = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 - lives as long as the servers

    stopping = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stopping.set()

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    procs: dict[str, subprocess.Popen] = {}
    try:
        lobby_flags = [*common, "--listen", lobby_addr, *web.lobby]
        procs["lobby"] = _start("lobby", lobby_flags, env, log, lifeline_fd)
        if not wait_own_lobby(lobby_addr, token, args.ready_timeout, procs["lobby"]):
            print(f"serve: the lobby did not start (see {log_path or 'the output above'})", file=sys.stderr)
            return 3
        flags = {"lobby": lobby_flags}
        for n, match_addr in enumerate(match_addrs, start=1):
            name = "match" if n == 1 else f"match-{n}"
            flags[name] = [*_match_flags(args, common, match_addr, lobby_addr, data_dir, n),
                           *web.match[n - 1]]
            procs[name] = _start("match", flags[name], env, log, lifeline_fd)
            # SERVING once it has tried to register with the lobby (and recovered its matches).
            if not wait_serving(match_addr, args.ready_timeout, procs[name]):
                where = log_path or "the output above"
                print(f"serve: the match server {match_addr} did not start (see {where})", file=sys.stderr)
                return 3
            check_own_match_server(match_addr, token)
        _wait_for_capacity(_client_address(lobby_addr))
        print(f"lobby  {_client_address(lobby_addr)}", flush=True)
        for match_addr in match_addrs:
            print(f"match  {_client_address(match_addr)}", flush=True)
        if web.page:
            print(f"web    {web.page}", flush=True)
        print(f"data   {data_dir}" + (f"   logs {log_path}" if log_path else ""), flush=True)
        print(f"READY  play with: wordarena play --lobby {_client_address(lobby_addr)}   "
              "(Ctrl-C stops the servers)", flush=True)
        _supervise(procs, lambda name: _start(name.partition("-")[0], flags[name], env, log, lifeline_fd),
                   stopping)
        print("serve: stopping…", flush=True)
        return 0
    except ForeignServer as exc:
        print(f"serve: another process answers where this serve started its servers ({exc}); "
              "not ready: stop that process, or choose other addresses", file=sys.stderr)
        return 3
    finally:
        _stop(list(procs.values()))
        os.close(lifeline_w)
        os.close(lifeline_fd)
        for s, h in old.items():
            signal.signal(s, h)
        if log:
            log.close()


@dataclass
class WebFlags:
    """The web ports of ``serve``: the page's URL and each server's flags."""

    page: str = ""
    lobby: list[str] = field(default_factory=list)
    match: list[list[str]] = field(default_factory=list)


def web_flags(listen: str, match_addrs: list[str]) -> WebFlags:
    """The lobby's web port at ``listen`` (port 0: a free one; empty: no web ports at all), and
    one for each match server on a free port of the same host, which allows the page's origin;
    the lobby's ``/config.json`` maps each match server's gRPC address to its web URL."""
    if not listen:
        return WebFlags(match=[[] for _ in match_addrs])
    lobby_web = resolve(listen)
    host = lobby_web.rpartition(":")[0]
    page_host = _client_address(lobby_web)
    origins = [f"http://{page_host}"]
    if page_host.startswith("127.0.0.1:"):
        origins.append(f"http://localhost:{page_host.rpartition(':')[2]}")
    urls, match = [], []
    for addr in match_addrs:
        web_addr = resolve(f"{host}:0")
        urls.append(f"{_client_address(addr)}=http://{_client_address(web_addr)}")
        match.append(["--web-listen", web_addr, "--web-origins", ",".join(origins)])
    return WebFlags(page=f"http://{page_host}/", match=match,
                    lobby=["--web-listen", lobby_web, "--web-match-urls", ",".join(urls)])


def match_addresses(listen: str, n: int) -> list[str]:
    """The listen addresses of ``n`` match servers: ``listen`` (port 0: a free port) and, after it,
    the next ports (or more free ports)."""
    first = resolve(listen)
    host, _, port = first.rpartition(":")
    fixed = listen.rpartition(":")[2] not in ("", "0")
    return [first, *(f"{host}:{int(port) + i}" if fixed else resolve(f"{host}:0") for i in range(1, n))]


def _match_flags(args: argparse.Namespace, common: list[str], listen: str, lobby: str, data_dir: Path,
                 n: int) -> list[str]:
    """The flags of the ``n``-th match server. A stable server id (``serve-HOST-PORT``): a restarted
    server is the same owner, so it takes its matches back at once instead of clients being sent
    away until the lease runs out. On SQLite each server has its own file (the first the default
    ``match.db``); with ``--database-url`` they share it (and take over each other's matches)."""
    flags = [*common, "--listen", listen, "--advertise-address", _client_address(listen),
             "--server-id", f"serve-{socket.gethostname()}-{listen.rsplit(':', 1)[1]}",
             "--bot-delay", str(args.bot_delay), "--lobby", _client_address(lobby)]
    if n > 1 and not args.database_url:
        flags += ["--database-url", f"sqlite:///{data_dir / f'match-{n}.db'}"]
    if args.deal_seed:
        flags += ["--deal-seed", str(args.deal_seed)]
    return flags


def _supervise(procs: dict[str, subprocess.Popen], start: Callable[[str], subprocess.Popen],
               stopping: threading.Event, first_delay: float = 1.0, max_delay: float = 30.0) -> None:
    """Keep the servers running until ``stopping`` is set: a server that stops is started again
    after a delay that doubles while it keeps stopping (up to ``max_delay``) and resets once it
    has run for a minute; the other server runs on meanwhile."""
    delay = dict.fromkeys(procs, first_delay)
    started = dict.fromkeys(procs, time.monotonic())
    while not stopping.wait(0.5):
        for name, proc in procs.items():
            if proc.poll() is None:
                if time.monotonic() - started[name] > 60:
                    delay[name] = first_delay
                continue
            label = "lobby" if name == "lobby" else "match server"
            print(f"serve: the {label} stopped (exit {proc.returncode}); starting it again in "
                  f"{delay[name]:.0f} s", file=sys.stderr, flush=True)
            if stopping.wait(delay[name]):
                return
            procs[name] = start(name)
            started[name] = time.monotonic()
            delay[name] = min(delay[name] * 2, max_delay)


def _wait_for_capacity(lobby: str, timeout: float = 10.0) -> None:
    """Best effort: wait until the lobby answers a ruleset listing (it is up and migrated)."""
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(lobby) as ch:
        stub = lobby_pb2_grpc.LobbyServiceStub(ch)
        while time.monotonic() < deadline:
            try:
                stub.ListRulesets(lobby_pb2.ListRulesetsRequest(), timeout=2)
                return
            except grpc.RpcError:
                time.sleep(0.2)
