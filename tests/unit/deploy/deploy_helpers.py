"""Readers for the deploy tests: the Dockerfile, .dockerignore, compose.yaml, and external tools
that must be there under CI."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
DEPLOY = ROOT / "deploy"
DOCKERFILE = DEPLOY / "docker" / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
COMPOSE = DEPLOY / "compose.yaml"


def require_tool(name: str, why: str) -> str:
    """The path of a command-line tool; without it the test skips, or fails under CI (``CI`` set)."""
    path = shutil.which(name)
    if path is None:
        message = f"{name} not found ({why}; scripts/setup installs it)"
        if os.environ.get("CI"):
            pytest.fail(f"CI requires {message}")
        pytest.skip(message)
    return path


# ------------------------------------------------------------------------------------------------
# Dockerfile


@dataclass(frozen=True)
class Instruction:
    keyword: str  # upper case: FROM, RUN, ENV …
    args: str  # the rest, continuation lines joined
    stage: int  # 0 for the first FROM's stage


@cache
def dockerfile() -> tuple[Instruction, ...]:
    """The Dockerfile's instructions (comments dropped, ``\\`` continuations joined)."""
    out: list[Instruction] = []
    stage, buf = -1, ""
    for raw in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue  # comments end nothing, even inside a continuation (as Docker reads them)
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        keyword, _, args = (buf + line).partition(" ")
        buf = ""
        if keyword.upper() == "FROM":
            stage += 1
        out.append(Instruction(keyword.upper(), " ".join(args.split()), stage))
    return tuple(out)


def stages() -> int:
    return 1 + max(i.stage for i in dockerfile())


def final(keyword: str) -> list[Instruction]:
    """Instructions of the final stage with this keyword."""
    last = stages() - 1
    return [i for i in dockerfile() if i.stage == last and i.keyword == keyword]


def run_with(text: str) -> Instruction:
    """The one RUN instruction whose text holds ``text``."""
    (found,) = [i for i in dockerfile() if i.keyword == "RUN" and text in i.args]
    return found


def split_flags(args: str) -> tuple[dict[str, str], str]:
    """``--mount=a=b,c=d --x=y rest`` → ({"mount": "a=b,c=d", "x": "y"}, "rest")."""
    flags: dict[str, str] = {}
    words = args.split(" ")
    while words and words[0].startswith("--"):
        name, _, value = words.pop(0)[2:].partition("=")
        flags[name] = value
    return flags, " ".join(words)


def key_values(spec: str) -> dict[str, str]:
    """``type=bind,from=build`` → {"type": "bind", "from": "build"}."""
    return dict(part.partition("=")[::2] for part in spec.split(","))


def env_of(instructions: list[Instruction]) -> dict[str, str]:
    """Variables set by ENV instructions (``K=V`` pairs, shell-quoted values allowed)."""
    env: dict[str, str] = {}
    for i in instructions:
        for word in shlex.split(i.args):
            k, sep, v = word.partition("=")
            assert sep, f"ENV {i.args!r}: use the K=V form"
            env[k] = v
    return env


def command_words(shell: str, program: str) -> list[str]:
    """The words of the first ``program …`` command in a shell line, up to ``&&`` / ``;`` / ``|``."""
    words = shlex.split(shell)
    for n in range(len(words) - len(program.split()) + 1):
        if words[n:n + len(program.split())] == program.split():
            rest = words[n + len(program.split()):]
            end = next((k for k, w in enumerate(rest) if w in ("&&", ";", "|", "||")), len(rest))
            return rest[:end]
    raise AssertionError(f"no {program!r} in {shell!r}")


def exec_form(args: str) -> list[str]:
    """The JSON array of an exec-form CMD / HEALTHCHECK CMD."""
    value = json.loads(args)
    assert isinstance(value, list) and all(isinstance(w, str) for w in value), args
    return value


# ------------------------------------------------------------------------------------------------
# .dockerignore


@cache
def dockerignore_rules() -> tuple[tuple[bool, re.Pattern[str]], ...]:
    """(excludes?, pattern) in file order; the last rule matching a path decides, as in Docker."""
    rules = []
    for raw in DOCKERIGNORE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        keep = line.startswith("!")
        pattern = line.removeprefix("!").strip("/")
        regex = ""
        for part in re.split(r"(\*\*/|\*\*|\*|\?)", pattern):
            regex += {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}.get(part, re.escape(part))
        rules.append((not keep, re.compile(regex)))
    return tuple(rules)


def in_build_context(relpath: str) -> bool:
    """Whether Docker sends this file (path relative to the repository) to the build.

    A rule matches a path when it matches the path or one of its parent folders."""
    parts = relpath.split("/")
    prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    excluded = False
    for excludes, regex in dockerignore_rules():
        if any(regex.fullmatch(p) for p in prefixes):
            excluded = excludes
    return not excluded


# ------------------------------------------------------------------------------------------------
# compose.yaml


@cache
def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))


def compose_env(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(e.partition("=")[::2] for e in env)
    return {k: str(v) for k, v in env.items()}


def published(service: dict[str, Any]) -> dict[int, int]:
    """Container port → host port of the ``ports:`` entries (``"HOST:CONTAINER"``)."""
    out = {}
    for spec in service.get("ports", []):
        host, _, container = str(spec).rpartition(":")
        out[int(container)] = int(host.rpartition(":")[2])
    return out


def port_of(address: str) -> int:
    return int(address.rpartition(":")[2])
