"""Readers for the deploy tests: the Dockerfile, .dockerignore, compose.yaml, and external tools
that must be there under CI."""

from __future__ import annotations

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
    flags: dict[str, str]  # --mount=…, --chmod=… → {"mount": "…", "chmod": "…"}
    value: tuple[str, ...]  # the words as Docker reads them (ENV: k, v, k, v …)
    json: bool  # exec form (a JSON array)
    stage: int  # 0 for the first FROM's stage

    @property
    def shell(self) -> str:
        """The command of a shell-form RUN / CMD."""
        assert not self.json and len(self.value) == 1, self
        return self.value[0]


@cache
def dockerfile() -> tuple[Instruction, ...]:
    """The Dockerfile's instructions, parsed by Docker's own parser (BuildKit's, through the
    ``dockerfile`` package), so that continuations, comments and JSON forms read as Docker reads
    them."""
    import dockerfile as parser

    out: list[Instruction] = []
    stage = -1
    for c in parser.parse_file(str(DOCKERFILE)):
        stage += c.cmd.upper() == "FROM"
        flags = dict(f.removeprefix("--").partition("=")[::2] for f in c.flags)
        out.append(Instruction(c.cmd.upper(), flags, tuple(c.value), c.json, stage))
    return tuple(out)


def stages() -> int:
    return 1 + max(i.stage for i in dockerfile())


def final(keyword: str) -> list[Instruction]:
    """Instructions of the final stage with this keyword."""
    last = stages() - 1
    return [i for i in dockerfile() if i.stage == last and i.keyword == keyword]


def run_with(text: str, stage: int | None = None) -> Instruction:
    """The one RUN instruction whose command holds ``text`` (in ``stage``, when given)."""
    (found,) = [i for i in dockerfile() if i.keyword == "RUN" and text in i.shell
                and (stage is None or i.stage == stage)]
    return found


def key_values(spec: str) -> dict[str, str]:
    """``type=bind,from=build`` → {"type": "bind", "from": "build"}."""
    return dict(part.partition("=")[::2] for part in spec.split(","))


def env_of(instructions: list[Instruction]) -> dict[str, str]:
    """Variables set by ENV instructions."""
    env: dict[str, str] = {}
    for i in instructions:
        env.update(zip(i.value[::2], i.value[1::2], strict=True))
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
