"""protos/README.md walks a client author through a whole game: every Python block in it runs
as it is (``LOBBY`` pointed at the server) against a real ``wordarena serve``, in a process of its
own, so a walkthrough that no longer matches the contract fails here."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from e2e_helpers import ROOT, Served

pytestmark = pytest.mark.slow

README = ROOT / "protos" / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_a_walkthrough_through_a_whole_game() -> None:
    [walkthrough] = [b for b in python_blocks() if "LOBBY = " in b]
    for rpc in ("SignInGuest", "CreateTable", "JoinTable", "WatchTables", "GetMatch", "StreamMatch",
                "after_seq", "SubmitTurn", "expected_seq", "request_id", "StaleSeq", "GetMatchRecord"):
        assert rpc in walkthrough, rpc


@pytest.mark.parametrize("number", range(len(python_blocks())))
def test_each_python_block_of_protos_readme_runs_against_a_real_server(served: Served, number: int) -> None:
    code = python_blocks()[number]
    code = re.sub(r'^LOBBY = "[^"]*"', f'LOBBY = "{served.lobby}"', code, flags=re.M)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
