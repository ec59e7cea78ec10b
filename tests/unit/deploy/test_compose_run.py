"""deploy/compose.yaml's servers run as configured — as processes on this machine, since no Docker
engine is at hand: each server gets its compose environment and command, with the compose host
names and ports replaced by loopback and free ports, PostgreSQL by a fresh test database, and the
shared data volume by one shared folder. That checks the layout's one unusual choice: without
configured keys or a service token, the servers agree on the development key pair of the shared
data directory, so match servers register with the lobby, the lobby allocates on them and they
accept the lobby's player tokens.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from deploy_helpers import DEPLOY, compose, compose_env, env_of, final

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

VENV_BIN = Path(sys.executable).parent
HEALTHCHECK = DEPLOY / "docker" / "healthcheck.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(what: str, ok: Callable[[], bool], proc: subprocess.Popen[bytes], log: Path,
             timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not ok():
        assert proc.poll() is None, f"{what}: exited\n{log.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"{what}: timed out\n{log.read_text()[-3000:]}"
        time.sleep(0.5)


def healthy(listen: str) -> bool:
    env = {**os.environ, "WORDARENA_LISTEN": listen}
    return subprocess.run([sys.executable, str(HEALTHCHECK)], env=env, capture_output=True,
                          timeout=30).returncode == 0


def metric(address: str, name: str, labels: str) -> float | None:
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    m = re.search(rf"^{name}\{{{labels}\}} (\S+)$", text, re.M)
    return float(m[1]) if m else None


@pytest.fixture
def servers(postgres_database: str, tmp_path: Path) -> Iterator[dict[str, dict[str, str]]]:
    services = {n: s for n, s in compose()["services"].items()
                if s.get("command", [""])[0] in ("wordarena-lobby", "wordarena-match")}
    # compose host:port -> a loopback address of this machine
    moved: dict[str, str] = {}
    for name, svc in services.items():
        port = compose_env(svc)["WORDARENA_LISTEN"].rpartition(":")[2]
        moved[f"{name}:{port}"] = f"127.0.0.1:{free_port()}"
    shared = tmp_path / "wordarena-data"  # the shared data volume
    image = env_of(final("ENV"))
    envs: dict[str, dict[str, str]] = {}
    for name, svc in services.items():
        env = {**image, **compose_env(svc)}
        listen_port = env["WORDARENA_LISTEN"].rpartition(":")[2]
        env["WORDARENA_LISTEN"] = moved[f"{name}:{listen_port}"]
        env["WORDARENA_METRICS_LISTEN"] = f"127.0.0.1:{free_port()}"
        env["WORDARENA_WEB_LISTEN"] = f"127.0.0.1:{free_port()}"
        env["WORDARENA_DATABASE_URL"] = postgres_database
        env["WORDARENA_DATA_DIR"] = str(shared)
        del env["WORDARENA_LEXICON_DIR"]  # the image's compiled lexicons are not on this machine
        for key in ("WORDARENA_ADVERTISE_ADDRESS", "WORDARENA_LOBBY"):
            if key in env:
                env[key] = moved[env[key]]
        envs[name] = env
    procs: list[subprocess.Popen[bytes]] = []
    try:
        # in compose's order: the lobby first (the match servers depend on it being healthy)
        for name in sorted(services, key=lambda n: n != "lobby"):
            log = tmp_path / f"{name}.log"
            with open(log, "wb") as out:
                proc = subprocess.Popen([str(VENV_BIN / services[name]["command"][0])],
                                        env={**os.environ, **envs[name]}, stdout=out, stderr=out)
            procs.append(proc)
            wait_for(f"{name} healthy", lambda n=name: healthy(envs[n]["WORDARENA_LISTEN"]), proc, log)
        yield envs
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=90)


def test_compose_servers_register_allocate_and_accept_the_lobbys_tokens(
        servers: dict[str, dict[str, str]], tmp_path: Path) -> None:
    lobby = servers["lobby"]
    matches = [n for n in servers if n != "lobby"]
    deadline = time.monotonic() + 60
    metrics = lobby["WORDARENA_METRICS_LISTEN"]
    while metric(metrics, "wordarena_match_servers", 'state="healthy"') != len(matches):
        assert time.monotonic() < deadline, "the match servers did not register with the lobby"
        time.sleep(0.5)

    env = {**os.environ, "WORDARENA_LOBBY": lobby["WORDARENA_LISTEN"],
           "WORDARENA_CONFIG": str(tmp_path / "me.json")}

    def cli(*args: str) -> dict:
        out = subprocess.run([str(VENV_BIN / "wordarena"), *args, "--json"], env=env, capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr
        return json.loads(out.stdout)

    cli("login", "--name", "Composer")
    match = cli("table", "create", "--ruleset", "classic", "--bot", "1", "--wait")["match"]
    advertised = {servers[n]["WORDARENA_ADVERTISE_ADDRESS"] for n in matches}
    assert match["address"] in advertised, "the lobby hands out a match server's advertised address"
    view = cli("state", match["match_id"])  # the match server accepts the lobby's token
    assert view["controlled_seats"]
    for name in matches:  # the warning docs/operations.md tells compose users to expect
        log = (tmp_path / f"{name}.log").read_text()
        assert "token keys: --lobby is set but no public key is configured" in log
