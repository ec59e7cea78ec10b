"""The wheel as a user installs it: built from this checkout, installed (not editable) into a fresh
virtualenv, run from a folder outside the repository. A client install plays and checks records
alone; ``wordarena[server]`` adds the servers, which then serve a game to the installed CLI."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import venv
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from e2e_helpers import ROOT, best_move, free_port

pytestmark = pytest.mark.slow

RECORD = ROOT / "tests" / "unit" / "interchange" / "gcg" / "doug_v_emely.gcg"

# What must travel inside the wheel: one file of each kind of package data.
PACKAGE_DATA = (
    "wordarena/v1/match.proto",
    "wordarena/v1/match_pb2.py",
    "wordarena/engine/lexicon/data/en.dawg",
    "wordarena/engine/rulesets/data/boards/classic.json",
    "wordarena/engine/bots/data/leaves-classic-en.json",
    "wordarena/services/lobby/migrations/env.py",
    "wordarena/services/lobby/migrations/versions/0001_initial.py",
    "wordarena/services/match/migrations/versions/0001_initial.py",
    "wordarena/services/match/migrations/script.py.mako",
    "wordarena/clients/web/dist/index.html",
)


@dataclass
class Installed:
    """A virtualenv with the wheel installed, and a working folder outside the repository."""

    wheel: Path
    bin: Path
    cwd: Path

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env.update(PATH=f"{self.bin}{os.pathsep}{env.get('PATH', '')}", COLUMNS="110", **extra)
        return env

    def run(self, *args: str, check: bool = True, timeout: float = 120,
            **env: str) -> subprocess.CompletedProcess[str]:
        res = subprocess.run([str(self.bin / args[0]), *args[1:]], cwd=self.cwd, env=self.env(**env),
                             capture_output=True, text=True, timeout=timeout)
        if check and res.returncode != 0:
            raise AssertionError(f"{' '.join(args)} -> {res.returncode}\n{res.stdout}\n{res.stderr}")
        return res

    def pip_install(self, requirement: str) -> None:
        self.run("python", "-m", "pip", "install", "-q", "--disable-pip-version-check", requirement,
                 timeout=900)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    tmp = tmp_path_factory.mktemp("wheel")
    source = _checkout_copy(tmp / "source")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--disable-pip-version-check",
                    "-w", str(tmp / "dist"), str(source)], check=True, cwd=tmp, timeout=900)
    (wheel,) = (tmp / "dist").glob("wordarena-*.whl")
    venv.create(tmp / "venv", with_pip=True)
    work = tmp / "work"
    work.mkdir()
    inst = Installed(wheel, tmp / "venv" / "bin", work)
    inst.pip_install(str(wheel))  # the client install first; the server extra is added later
    yield inst


def _checkout_copy(dest: Path) -> Path:
    """The files of the checkout a clone would have (tracked, or new and not ignored), copied to
    ``dest``: a build there sees no stale ``build/`` folder, egg-info or other leftovers."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


def test_the_wheel_holds_one_package_and_all_its_data(installed: Installed) -> None:
    names = zipfile.ZipFile(installed.wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"wordarena"}, tops
    missing = [p for p in PACKAGE_DATA if p not in names]
    assert not missing, missing


def test_the_wheel_carries_the_native_move_generator_and_the_cli_uses_it(installed: Installed) -> None:
    """setup.py compiles engine/movegen/native/movegen.c into the wheel: an installed CLI
    analyses with it (``WORDARENA_MOVEGEN=native`` refuses to run without it) and answers exactly
    what the pure-Python generator answers."""
    names = zipfile.ZipFile(installed.wheel).namelist()
    assert [n for n in names if n.startswith("wordarena/engine/movegen/native_core.")
            and n.endswith((".so", ".pyd"))], "no compiled move generator in the wheel"
    cgp = ("15/15/2A12/2QUETCH7/2U4E2T4/2A4X2Y4/2T3ZA2R4/2O1D1AD1PAVISE/1UNFORGED1N4/2E1P2SEWN4/"
           "4A5E4/3OM10/3KI10/3eN10/3HE10 GIRRSW?/ 0/0 0")
    native = installed.run("wordarena", "analyze", "--cgp", cgp, "--json", WORDARENA_MOVEGEN="native")
    python = installed.run("wordarena", "analyze", "--cgp", cgp, "--json", WORDARENA_MOVEGEN="python")
    assert native.stdout == python.stdout and json.loads(native.stdout)
    assert "unavailable" not in native.stderr + python.stderr


def test_a_client_install_checks_records_and_asks_for_the_server_extra(installed: Installed) -> None:
    where = installed.run("python", "-c", "import wordarena.engine as e; print(e.__file__)").stdout
    assert Path(where.strip()).is_relative_to(installed.bin.parent), where  # not the checkout
    # No server dependency came with the client install.
    assert installed.run("python", "-c", "import sqlmodel", check=False).returncode == 1
    check = installed.run("wordarena", "gcg", "check", str(RECORD))
    assert check.stdout.strip().endswith(": ok")
    serve = installed.run("wordarena", "serve", "--data-dir", str(installed.cwd / "x"), check=False)
    assert serve.returncode == 2
    assert "pip install 'wordarena[server]'" in serve.stderr


def test_the_server_extra_serves_a_game_to_the_installed_cli(installed: Installed) -> None:
    installed.pip_install(f"wordarena[server] @ {installed.wheel.as_uri()}")
    data = installed.cwd / "data"
    lobby, match = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    out = open(installed.cwd / "serve.out", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([str(installed.bin / "wordarena"), "serve",
                             "--lobby-listen", lobby, "--match-listen", match, "--bot-delay", "0"],
                            cwd=installed.cwd, env=installed.env(WORDARENA_DATA_DIR=str(data)),
                            stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180
        while "READY" not in (installed.cwd / "serve.out").read_text():
            assert proc.poll() is None, (installed.cwd / "serve.out").read_text()
            assert time.monotonic() < deadline, "wordarena serve did not become ready"
            time.sleep(0.3)
        _play_a_few_turns(installed, lobby)
        # serve honours WORDARENA_DATA_DIR, and keeps its files (password hashes, keys) private.
        assert data.stat().st_mode & 0o777 == 0o700
        files = [p for p in data.iterdir() if p.is_file()]
        assert {"lobby.db", "match.db"} <= {p.name for p in files}, files
        exposed = [(p.name, oct(p.stat().st_mode)) for p in files if p.stat().st_mode & 0o077]
        assert not exposed
    finally:
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=60)
        out.close()
    assert rc == 0


def _play_a_few_turns(installed: Installed, lobby: str) -> None:
    env = {"WORDARENA_LOBBY": lobby, "WORDARENA_CONFIG": str(installed.cwd / "me.json")}

    def cli(*args: str) -> dict:
        return json.loads(installed.run("wordarena", *args, "--json", **env).stdout)

    cli("login", "--name", "Wheely")
    match_id = cli("table", "create", "--ruleset", "classic", "--bot", "1", "--wait")["match"]["match_id"]
    played = 0
    deadline = time.monotonic() + 120
    while played < 3 and time.monotonic() < deadline:
        view = cli("state", match_id)
        if view.get("to_move_seat") not in view["controlled_seats"]:
            time.sleep(0.2)  # the bot is moving
            continue
        move = best_move(view)
        res = cli("move", match_id, move, "--expected-seq", str(view["last_seq"])) if move else cli(
            "pass", match_id)
        assert int(res["last_seq"]) > int(view["last_seq"])
        played += 1
    assert played == 3, "the installed servers did not let three turns be played"


def test_without_a_compiler_the_wheel_installs_and_plays_on_python(
    installed: Installed, tmp_path: Path
) -> None:
    """A machine without a C compiler (``CC=false``): the wheel still builds, without the native
    move generator; the CLI then analyses with the pure-Python one and says so in one line, and
    ``WORDARENA_MOVEGEN=native`` is refused naming the variable. (Runs last: it replaces the
    installed wheel.)"""
    source = _checkout_copy(tmp_path / "source")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"CC": "false"}
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                            "--disable-pip-version-check", "-w", str(tmp_path / "dist"), str(source)],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stderr
    (wheel,) = (tmp_path / "dist").glob("wordarena-*.whl")
    assert not [n for n in zipfile.ZipFile(wheel).namelist() if "/native_core." in n]
    installed.run("python", "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
                  "--force-reinstall", str(wheel), timeout=900)
    cgp = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0"
    auto = installed.run("wordarena", "analyze", "--cgp", cgp, "--top", "1")
    assert "2974 legal moves" in auto.stdout
    assert auto.stderr.count("native move generator unavailable; using the pure-Python one") == 1
    forced = installed.run("wordarena", "analyze", "--cgp", cgp, check=False, WORDARENA_MOVEGEN="native")
    assert forced.returncode == 2 and "WORDARENA_MOVEGEN=native" in forced.stderr
