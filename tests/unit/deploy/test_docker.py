"""The image (deploy/docker/Dockerfile, .dockerignore) and the compose setup (deploy/compose.yaml)
stay true to the code, to each other and to docs/operations.md.

No Docker engine runs here, so no image is built. Instead the Dockerfile is read by Docker's own
parser and each of its claims is checked where it can be, or its commands run outside a container
(test_compose_run.py runs compose.yaml's servers the same way):

* it builds the wheel as tests/e2e/test_wheel.py does and installs it with the same extra; the
  wheel builds from exactly what .dockerignore lets into the build context;
* its Debian packages are the run-time packages of scripts/setup, and cover the catalogue's lists;
* its lexicon step asks for every lexicon of the catalogue (run with a stand-in ``wordarena``), and
  ``wordarena lexicon info`` leaves a cache file the servers load without compiling (run for real);
* it runs as a numeric non-root user, the manifests' ``runAsUser``;
* its HEALTHCHECK runs the health-check script, which answers 0 for a real, serving lobby and 1
  once it is gone; every ``WORDARENA_*`` it sets is read by the servers;
* compose.yaml follows the Compose Specification (a strict parser) and has the services, ports and
  advertised addresses of the table in docs/operations.md, settings the servers read, Prometheus
  targets and Grafana provisioning that match.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
import zipfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from deploy_helpers import (
    COMPOSE,
    DEPLOY,
    DOCKERFILE,
    ROOT,
    command_words,
    compose,
    compose_env,
    dockerfile,
    env_of,
    final,
    in_build_context,
    key_values,
    port_of,
    published,
    run_with,
    stages,
)
from test_manifests import container_env, pod_spec, service_envs, workloads

VENV_BIN = Path(sys.executable).parent
WHEEL_TEST = ROOT / "tests" / "e2e" / "test_wheel.py"
DOCS = ROOT / "docs" / "operations.md"
SERVERS = ("wordarena-lobby", "wordarena-match")
# pip options that change nothing in what is built or installed
COSMETIC = {"-q", "--quiet", "--disable-pip-version-check", "--no-cache-dir"}


@cache
def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def image_env() -> dict[str, str]:
    return env_of(final("ENV"))


# ------------------------------------------------------------------------------------------------
# The wheel


def test_two_stages_on_the_python_the_project_requires() -> None:
    from packaging.specifiers import SpecifierSet

    froms = [list(i.value) for i in dockerfile() if i.keyword == "FROM"]
    assert stages() == 2 and froms[0][1:] == ["AS", "build"], froms
    requires = SpecifierSet(pyproject()["project"]["requires-python"])
    for words in froms:
        m = re.fullmatch(r"python:(\d+\.\d+)-slim-bookworm", words[0])
        assert m, f"{words[0]}: the slim Debian 12 Python image"
        assert m[1] in requires, f"{words[0]} does not satisfy requires-python {requires}"
    assert froms[0][0] == froms[1][0], "the wheel is built on the Python that runs it"


def _wheel_test_pip_lists() -> list[list[str]]:
    """The string constants of each list in test_wheel.py that runs ``pip wheel``."""
    out = []
    for node in ast.walk(ast.parse(WHEEL_TEST.read_text(encoding="utf-8"))):
        if isinstance(node, ast.List):
            words = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if words[:3] == ["-m", "pip", "wheel"]:
                out.append(words[3:])
    return out


def _options(words: list[str]) -> set[str]:
    return {w for w in words if w.startswith("-") and w not in COSMETIC and w != "-w"}


# Flags of the instructions, as the Dockerfile reference lists them (the parser takes any).
KNOWN_FLAGS = {
    "RUN": {"mount", "network", "security"},
    "COPY": {"from", "chmod", "chown", "link", "parents", "exclude"},
    "HEALTHCHECK": {"interval", "timeout", "start-period", "start-interval", "retries"},
    "FROM": {"platform"},
}


def test_instructions_use_known_flags() -> None:
    for i in dockerfile():
        unknown = set(i.flags) - KNOWN_FLAGS.get(i.keyword, set())
        assert not unknown, f"{i.keyword} --{unknown}"
    first_line = DOCKERFILE.read_text(encoding="utf-8").splitlines()[0]
    assert first_line == "# syntax=docker/dockerfile:1", "RUN --mount, COPY --chmod: BuildKit's front end"


def test_builds_the_wheel_the_wheel_test_builds() -> None:
    # test_wheel.py builds the wheel twice (with a compiler and without), the same way both times
    lists = _wheel_test_pip_lists()
    assert lists and all(words == lists[0] for words in lists), lists
    test_words = lists[0]
    build = run_with("pip wheel")
    assert build.stage == 0
    words = command_words(build.shell, "pip wheel")
    assert _options(words) == _options(test_words) == {"--no-deps"}, (words, test_words)
    assert words[-1] == ".", "the wheel of the checkout copied into the build stage"
    workdir = [i.value for i in dockerfile() if i.stage == 0 and i.keyword == "WORKDIR"]
    copies = [i.value for i in dockerfile() if i.stage == 0 and i.keyword == "COPY"]
    assert workdir and copies == [(".", ".")], "the whole build context (as .dockerignore leaves it)"


def test_installs_that_wheel_with_the_extra_the_wheel_test_serves_with() -> None:
    wheel_test = WHEEL_TEST.read_text(encoding="utf-8")
    (test_req,) = set(re.findall(r"\"(wordarena\[[\w,]+\]) @ ", wheel_test))
    assert test_req == "wordarena[server]"
    out_dir = command_words(run_with("pip wheel").shell, "pip wheel")
    out_dir = out_dir[out_dir.index("-w") + 1]
    install = run_with("pip install")
    mount = key_values(install.flags["mount"])
    assert mount["type"] == "bind" and mount["from"] == "build" and mount["source"] == out_dir
    (req,) = command_words(install.shell, "pip install")
    assert req == f"{test_req} @ file://$(echo {mount['target']}/wordarena-*.whl)", req
    assert run_with("pip install").stage == stages() - 1
    assert "server" in pyproject()["project"]["optional-dependencies"]


@cache
def tracked_files() -> tuple[str, ...]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return tuple(p for p in out.stdout.decode().split("\0") if p and (ROOT / p).is_file())


@cache
def package_roots() -> dict[str, str]:
    """setup.py's ROOTS (import name → folder), read without running setup()."""
    for node in ast.parse((ROOT / "setup.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "ROOTS":
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py has no ROOTS")


def test_dockerignore_lets_through_what_the_build_reads() -> None:
    needed = ["pyproject.toml", "setup.py", pyproject()["project"]["readme"]]
    folders = tuple(f"{f}/" for f in package_roots().values())
    needed += [p for p in tracked_files() if p.startswith(folders) and "__pycache__" not in p]
    for i in dockerfile():
        if i.keyword == "COPY" and "from" not in i.flags:
            needed += [s for s in i.value[:-1] if s != "."]
    missing = [p for p in needed if not in_build_context(p)]
    assert not missing, f".dockerignore leaves out {missing[:10]}"
    for kept_out in (".git/HEAD", ".venv/bin/python", "tests/unit/deploy/test_docker.py", "bench/engine.py",
                     "engine/__pycache__/board.cpython-311.pyc", "node_modules/x/package.json"):
        assert not in_build_context(kept_out), f"{kept_out} would be sent to the build"


@pytest.mark.slow
def test_the_wheel_builds_from_the_build_context(tmp_path: Path) -> None:
    """Stage 1 as Docker runs it: the files .dockerignore lets through, then its pip command."""
    context = tmp_path / "context"
    for p in tracked_files():
        if in_build_context(p):
            (context / p).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / p, context / p)
    words = command_words(run_with("pip wheel").shell, "pip wheel")
    words[words.index("-w") + 1] = str(tmp_path / "dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", *words], cwd=context, check=True, timeout=900,
                   capture_output=True)
    (wheel,) = (tmp_path / "dist").glob("wordarena-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name, folder in package_roots().items():
        for p in tracked_files():
            # clients/web's sources and build files (package.json, tsconfig.json) build dist/,
            # which ships; they do not
            web_source = p.startswith("clients/web/") and not p.startswith("clients/web/dist/")
            if (p.startswith(f"{folder}/") and p.endswith((".py", ".dawg", ".json")) and "/tests/" not in p
                    and not web_source):
                inside = name.replace(".", "/") + p.removeprefix(folder)
                assert inside in names, f"{inside} is not in the wheel built from the build context"


# ------------------------------------------------------------------------------------------------
# Word lists and lexicons


@cache
def setup_runtime_debs() -> list[str]:
    text = (ROOT / "scripts" / "setup").read_text(encoding="utf-8")
    (found,) = re.findall(r"^runtime_debs=\(([^)]*)\)", text, re.M)
    return found.split()


def test_debian_packages_are_the_run_time_packages_of_setup() -> None:
    from wordarena.engine.lexicon.catalog import SOURCES

    install = command_words(run_with("apt-get install", stages() - 1).shell, "apt-get install")
    packages = [w for w in install if not w.startswith("-")]
    assert "--no-install-recommends" in install
    assert packages == setup_runtime_debs(), "deploy/docker/Dockerfile and scripts/setup disagree"
    needed = {s.debian_package for s in SOURCES.values() if s.debian_package} | {"wordnet-base"}
    assert needed <= set(packages), f"missing {needed - set(packages)}"


def test_the_build_stage_has_the_compiler_of_the_native_core_and_the_servers_do_not() -> None:
    """The wheel carries the native move generator compiled (setup.py): gcc in the build stage,
    before the wheel is built; the servers' stage installs the wheel and no compiler."""
    compiler = run_with("apt-get install", 0)
    assert {"gcc", "libc6-dev"} <= set(command_words(compiler.shell, "apt-get install"))
    assert dockerfile().index(compiler) < dockerfile().index(run_with("pip wheel"))
    runtime = " ".join(i.shell for i in dockerfile() if i.keyword == "RUN" and i.stage == stages() - 1)
    assert "gcc" not in runtime and "build-essential" not in runtime


def test_the_lexicon_step_asks_for_every_lexicon_of_the_catalogue(tmp_path: Path) -> None:
    """The step runs with a stand-in ``wordarena`` that notes its arguments (the real one takes a
    minute and a half for all of them; the next test runs it for one)."""
    from wordarena.engine.lexicon import available_lexicons

    step = run_with("wordarena lexicon")
    names_so_far = [i for i in dockerfile() if i.stage == step.stage and i.keyword == "ENV"
                    and dockerfile().index(i) < dockerfile().index(step)]
    assert "WORDARENA_LEXICON_DIR" in env_of(names_so_far), "the cache directory is set before the step"
    assert run_with("pip install").stage == step.stage and \
        dockerfile().index(run_with("pip install")) < dockerfile().index(step)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls"
    (bin_dir / "wordarena").write_text(f'#!/bin/sh\necho "$*" >> {log}\n')
    (bin_dir / "wordarena").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{VENV_BIN}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["sh", "-ec", step.shell], env=env, check=True, timeout=60)
    assert log.read_text().split("\n")[:-1] == [f"lexicon info {n}" for n in available_lexicons()]


def test_lexicon_info_leaves_a_cache_the_servers_load_without_compiling(tmp_path: Path) -> None:
    from wordarena.engine.lexicon.catalog import SOURCES

    name = "en-gb"  # the smallest list the catalogue compiles
    source = SOURCES[name]
    if not all(p.exists() for p in source.sources):
        why = f"the word list of {name} is missing (Debian package {source.debian_package})"
        if os.environ.get("CI"):
            pytest.fail(f"CI requires {why}")
        pytest.skip(why)
    env = {**os.environ, "WORDARENA_LEXICON_DIR": str(tmp_path)}
    subprocess.run([str(VENV_BIN / "wordarena"), "lexicon", "info", name], env=env, check=True,
                   capture_output=True, timeout=300)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(f"{name}-")]
    load_only = ("import wordarena.engine.lexicon.catalog as c\n"
                 "def refuse(*a, **k): raise SystemExit('compiled instead of loading the cache')\n"
                 f"c.compile_lexicon = refuse\nprint(len(c.load_lexicon({name!r})))\n")
    out = subprocess.run([sys.executable, "-c", load_only], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and int(out.stdout) > 50_000, out.stderr


def _mount_targets() -> list[str]:
    targets = [m["mountPath"] for w in workloads() for c in pod_spec(w)["containers"]
               for m in c.get("volumeMounts", [])]
    for svc in compose()["services"].values():
        targets += [str(v).split(":")[1] for v in svc.get("volumes", [])]
    return targets


def test_the_compiled_lexicons_are_not_hidden_by_a_volume() -> None:
    lexicons = Path(image_env()["WORDARENA_LEXICON_DIR"])
    assert lexicons.is_absolute()
    for target in _mount_targets():
        assert not lexicons.is_relative_to(target), f"a volume at {target} hides {lexicons}"
    for w in workloads():
        for c in pod_spec(w)["containers"]:
            assert "WORDARENA_LEXICON_DIR" not in container_env(c), "the image's cache directory is used"


# ------------------------------------------------------------------------------------------------
# User, settings, health


def test_runs_as_the_manifests_non_root_user() -> None:
    (user,) = final("USER")
    uid, _, gid = user.value[0].partition(":")
    assert uid.isdigit() and gid.isdigit(), "numeric, so that Kubernetes' runAsNonRoot can check it"
    assert int(uid) != 0 and int(gid) != 0
    useradd = run_with("useradd")
    assert f"--uid {uid}" in useradd.shell and f"--gid {gid}" in useradd.shell
    assert dockerfile().index(user) > dockerfile().index(run_with("wordarena lexicon")), \
        "root writes the lexicon cache; the servers only read it"
    for w in workloads():
        ctx = pod_spec(w)["securityContext"]
        assert (ctx["runAsUser"], ctx["runAsGroup"], ctx["runAsNonRoot"]) == (int(uid), int(gid), True)
    data_dir = image_env()["WORDARENA_DATA_DIR"]
    assert f"-o {uid} -g {gid}" in useradd.shell and useradd.shell.endswith(data_dir), \
        "the data directory belongs to the user (volumes mounted there start out writable)"


def test_every_setting_the_image_sets_is_read_by_both_servers() -> None:
    names = [k for k in image_env() if k.startswith("WORDARENA_")]
    assert {"WORDARENA_LEXICON_DIR", "WORDARENA_LISTEN", "WORDARENA_DATA_DIR"} <= set(names)
    for k in names:
        assert k in service_envs()["lobby"] and k in service_envs()["match"], f"{k} is read by no server"
    assert image_env()["WORDARENA_LISTEN"].startswith("0.0.0.0:")
    (cmd,) = final("CMD")
    assert cmd.json and cmd.value[0] == "wordarena"
    assert not final("ENTRYPOINT"), "the manifests' command: must choose the server"


def _healthcheck() -> tuple[dict[str, str], list[str]]:
    (hc,) = final("HEALTHCHECK")
    assert hc.json and hc.value[0] == "CMD", "exec form: no shell needed"
    return hc.flags, list(hc.value[1:])


def _seconds(value: str) -> float:
    return float(value.removesuffix("s"))


def test_healthcheck_uses_the_health_service_script() -> None:
    flags, command = _healthcheck()
    copies = {i.value[-1]: i.value[0] for i in final("COPY")}
    installed = f"/usr/local/bin/{command[0]}"
    assert copies.get(installed) == "deploy/docker/healthcheck.py", copies
    script = (DEPLOY / "docker" / "healthcheck.py").read_text(encoding="utf-8")
    assert script.startswith("#!/usr/bin/env python3\n")
    assert "from grpc_health.v1 import" in script and "WORDARENA_LISTEN" in script
    # The start period covers a match server's recovery, as the startupProbe budget does.
    for w in workloads():
        for c in pod_spec(w)["containers"]:
            probe = c.get("startupProbe")
            if probe:
                budget = probe["periodSeconds"] * probe["failureThreshold"]
                assert _seconds(flags["start-period"]) >= budget, w["metadata"]["name"]
    assert _seconds(flags["timeout"]) > 3, "longer than the script's own deadline"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_healthcheck_answers_for_a_real_lobby(tmp_path: Path) -> None:
    """The script as the HEALTHCHECK runs it (address from WORDARENA_LISTEN, a wildcard host)."""
    port = _free_port()
    script = [sys.executable, str(DEPLOY / "docker" / "healthcheck.py")]
    env = {**os.environ, "WORDARENA_LISTEN": f"0.0.0.0:{port}"}
    assert subprocess.run(script, env=env, capture_output=True, timeout=30).returncode == 1, "nobody there"
    lobby = subprocess.Popen([str(VENV_BIN / "wordarena-lobby"), "--data-dir", str(tmp_path)], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            out = subprocess.run(script, env=env, capture_output=True, text=True, timeout=30)
            if out.returncode == 0:
                break
            assert lobby.poll() is None, "the lobby exited"
            assert time.monotonic() < deadline, out.stderr
            time.sleep(0.5)
        assert out.stdout.strip() == f"127.0.0.1:{port} SERVING"
    finally:
        lobby.send_signal(signal.SIGTERM)
        lobby.wait(timeout=60)
    assert subprocess.run(script, env=env, capture_output=True, timeout=30).returncode == 1


# ------------------------------------------------------------------------------------------------
# compose.yaml


def services() -> dict[str, dict[str, Any]]:
    return compose()["services"]


def servers() -> dict[str, dict[str, Any]]:
    return {n: s for n, s in services().items() if s.get("command", [""])[0] in SERVERS}


@cache
def client_envs() -> frozenset[str]:
    names: set[str] = set()
    for p in (ROOT / "clients").rglob("*.py"):
        text = p.read_text(encoding="utf-8")
        names.update(re.findall(r"environ\.get\(\s*\"(WORDARENA_[A-Z0-9_]+)\"", text))
    return frozenset(names)


@cache
def docs_table() -> dict[str, list[str]]:
    """The compose table of docs/operations.md: service → its cells."""
    section = DOCS.read_text(encoding="utf-8").split("### Compose: every service on one machine", 1)[1]
    rows = {}
    for line in section.split("\n\n| service |", 1)[1].split("\n\n", 1)[0].splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = cells
    return rows


def _addresses(cell: str) -> list[str]:
    return re.findall(r"`([\w.-]+:\d+)`", cell)


def test_compose_file_follows_the_compose_specification() -> None:
    """Parsed by a strict implementation of the Compose Specification (PyPI compose-spec, the Rust
    compose_spec crate): unknown keys, bad ports, durations or conditions are errors."""
    from compose_spec import PyOptions

    parsed = PyOptions(apply_merge=True).from_yaml(COMPOSE.read_text(encoding="utf-8"))
    assert sorted(parsed.service_names()) == sorted(services())
    bad = COMPOSE.read_text(encoding="utf-8").replace("condition: service_healthy", "condition: healthy", 1)
    with pytest.raises(ValueError):
        PyOptions(apply_merge=True).from_yaml(bad)


def test_compose_has_the_services_the_docs_name() -> None:
    assert set(docs_table()) == set(services())
    assert set(servers()) == {"lobby", "match-1", "match-2"}
    for name, (_, runs, listens, host) in docs_table().items():
        svc = services()[name]
        command = svc.get("command", [""])[0]
        if command in SERVERS:
            assert f"`{command}`" in runs, name
        # each published port is published as itself, and is one the service listens on
        want = {int(p): int(p) for p in re.findall(r"`(\d+)`", host)}
        assert published(svc) == want, f"{name}: published ports"
        assert set(want) <= {port_of(a) for a in _addresses(listens)}, f"{name}: published ports"
        for address in _addresses(listens):
            assert address.startswith(f"{name}:"), f"{name}: {address}"


def test_compose_servers_listen_and_advertise_as_documented() -> None:
    ids = set()
    for name, svc in servers().items():
        env = compose_env(svc)
        _, runs, listens, _ = docs_table()[name]
        grpc_address, web_address, metrics_address = _addresses(listens)
        assert env["WORDARENA_LISTEN"] == f"0.0.0.0:{port_of(grpc_address)}", name
        assert env["WORDARENA_WEB_LISTEN"] == f"0.0.0.0:{port_of(web_address)}", name
        assert env["WORDARENA_METRICS_LISTEN"] == f"0.0.0.0:{port_of(metrics_address)}", name
        if svc["command"][0] == "wordarena-match":
            assert f"advertising `{grpc_address}`" in runs
            assert env["WORDARENA_ADVERTISE_ADDRESS"] == grpc_address, "its own address"
            assert env["WORDARENA_LOBBY"] == _addresses(docs_table()["lobby"][2])[0]
        ids.add(env["WORDARENA_SERVER_ID"])
        assert svc["depends_on"], name
    assert len(ids) == len(servers()), "every server has its own id"


def test_compose_settings_are_read_by_what_each_container_runs() -> None:
    for name, svc in services().items():
        command = svc.get("command", [""])[0]
        env = compose_env(svc)
        if command in SERVERS:
            allowed = service_envs()[command.removeprefix("wordarena-")]
        elif command == "wordarena":
            allowed = client_envs()
        else:
            assert not any(k.startswith("WORDARENA_") for k in env), name
            continue
        for k in env:
            assert k in allowed, f"{name}: {k} is not read by {command}"


def test_compose_servers_share_the_database_and_the_development_keys() -> None:
    assert services()["postgres"]["image"].startswith("postgres:16-"), "PostgreSQL 16, as documented"
    pg = compose_env(services()["postgres"])
    url = f"postgresql+psycopg://{pg['POSTGRES_USER']}:{pg['POSTGRES_PASSWORD']}@postgres:5432/{pg['POSTGRES_DB']}"
    data_dir = image_env()["WORDARENA_DATA_DIR"]
    volumes = set()
    for name, svc in servers().items():
        env = compose_env(svc)
        assert env["WORDARENA_DATABASE_URL"] == url, name
        assert "WORDARENA_TOKEN_PUBLIC_KEY" not in env and "WORDARENA_REQUIRE_KEYS" not in env, \
            "the development key pair of the shared data directory"
        (volume,) = [v for v in svc["volumes"] if v.endswith(f":{data_dir}")]
        volumes.add(volume)
        build = svc["build"]
        assert (COMPOSE.parent / build["context"]).resolve() == ROOT
        assert (ROOT / build["dockerfile"]).resolve() == DOCKERFILE
    assert len(volumes) == 1, "one data volume for every server"
    assert volumes.pop().split(":")[0] in compose()["volumes"]


def test_compose_prometheus_scrapes_the_servers_with_the_shipped_rules() -> None:
    prom = services()["prometheus"]
    (config_flag,) = [a for a in prom["command"] if a.startswith("--config.file=")]
    (mount,) = prom["volumes"]
    source, target, _ = mount.split(":")
    config_path = COMPOSE.parent / source / Path(config_flag.partition("=")[2]).relative_to(target)
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    shipped = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text(encoding="utf-8"))
    assert config["rule_files"] == shipped["rule_files"]
    jobs = {j["job_name"]: {t for sc in j["static_configs"] for t in sc["targets"]}
            for j in config["scrape_configs"]}
    assert set(jobs) == {j["job_name"] for j in shipped["scrape_configs"]}
    for name, svc in servers().items():
        metrics = compose_env(svc)["WORDARENA_METRICS_LISTEN"]
        assert f"{name}:{port_of(metrics)}" in jobs[svc["command"][0]], f"Prometheus does not scrape {name}"
    assert sum(len(t) for t in jobs.values()) == len(servers())
    labels = [sc.get("labels") for j in config["scrape_configs"] for sc in j["static_configs"]]
    assert labels == [{"namespace": "compose"}] * len(labels), "the dashboard's namespace variable"
    assert published(prom) == {9090: 9090}


def test_compose_grafana_is_provisioned_with_the_data_source_and_the_dashboard() -> None:
    graf = services()["grafana"]
    mounts = {v.split(":")[1]: COMPOSE.parent / v.split(":")[0] for v in graf["volumes"]}
    provisioning = mounts["/etc/grafana/provisioning"]
    (ds,) = yaml.safe_load((provisioning / "datasources" / "prometheus.yaml").read_text())["datasources"]
    assert ds["type"] == "prometheus" and ds["isDefault"]
    assert ds["url"] == f"http://prometheus:{next(iter(published(services()['prometheus'])))}"
    (provider,) = yaml.safe_load((provisioning / "dashboards" / "wordarena.yaml").read_text())["providers"]
    dashboards = [target for target in mounts if Path(target).parent == Path(provider["options"]["path"])]
    assert [mounts[d].resolve() for d in dashboards] == [(DEPLOY / "grafana" / "wordarena.json").resolve()]
    # the dashboard's data source variable picks Prometheus data sources
    text = (DEPLOY / "grafana" / "wordarena.json").read_text(encoding="utf-8")
    assert '"type": "datasource"' in text and '"query": "prometheus"' in text


def test_docs_give_the_commands_of_this_layout() -> None:
    doc = DOCS.read_text(encoding="utf-8")
    assert "docker build -f deploy/docker/Dockerfile -t REGISTRY/wordarena:TAG ." in doc
    assert f"docker compose -f {COMPOSE.relative_to(ROOT)} up" in doc
    for line in COMPOSE.read_text(encoding="utf-8").splitlines():
        if "docker compose" in line and "run --rm cli" in line:
            assert line.lstrip("# ").strip() in doc
    packages = " ".join(setup_runtime_debs())
    assert f"`{packages}`" in doc, "the docs name the image's Debian packages"
    assert f"`WORDARENA_LEXICON_DIR={image_env()['WORDARENA_LEXICON_DIR']}`" in doc
    uid = final("USER")[0].value[0].split(":")[0]
    assert f"uid/gid `{uid}`" in doc
