"""``wordarena stream MATCH`` gives the documented exit codes (docs/cli.md, *Scripting*) when it
cannot follow the match: 1 for a match that does not exist or a caller not signed in, 3 for a
lobby that cannot be reached; it retries only what can pass (a dropped stream, a server down).

Each command is a separate process; what it must answer comes from the documentation, never
from the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_helpers import Served, cli, free_port

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("idle", [[], ["--idle", "2"]])
def test_stream_of_a_match_that_does_not_exist_exits_1(served: Served, tmp_path: Path,
                                                       idle: list[str]) -> None:
    me = tmp_path / "nora.json"
    cli(served, me, "login", "--name", f"Nora{len(idle)}")
    # Before: `notice: … not found …; retrying…` until --idle ran out, then exit 0.
    done = cli(served, me, "stream", "m_no_such_match", *idle, "--json", check=False, timeout=30)
    assert done.returncode == 1, (done.stdout, done.stderr)
    error = json.loads(done.stdout.splitlines()[-1])
    assert error["exit_code"] == 1 and error["status"] == "NOT_FOUND", error
    assert "retrying" not in done.stderr


def test_stream_without_signing_in_exits_1(served: Served, tmp_path: Path) -> None:
    stranger = tmp_path / "never-logged-in.json"
    done = cli(served, stranger, "stream", "m_no_such_match", "--idle", "2", check=False, timeout=30)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "wordarena login" in done.stderr
    assert "retrying" not in done.stderr


@pytest.mark.parametrize("idle", [[], ["--idle", "2"]])
def test_stream_with_the_lobby_down_exits_3(served: Served, tmp_path: Path, idle: list[str]) -> None:
    me = tmp_path / "lou.json"
    cli(served, me, "login", "--name", f"Lou{len(idle)}")
    nobody = f"127.0.0.1:{free_port()}"  # a port nothing listens on
    done = cli(served, me, "stream", "m_no_such_match", "--lobby", nobody, *idle, check=False,
               timeout=60)
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert done.stderr.splitlines()[-1].startswith("unreachable: ")
