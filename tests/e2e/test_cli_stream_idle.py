"""``wordarena stream MATCH --idle N`` ends after N quiet seconds, as its help says, even when no
message at all arrives in that time (a script once waited ten minutes for it)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from e2e_helpers import ROOT, WORDARENA, Served, cli, cli_json

pytestmark = pytest.mark.slow


def test_stream_with_idle_ends_on_a_quiet_match(served: Served, tmp_path: Path) -> None:
    me = tmp_path / "ida.json"
    cli(served, me, "login", "--name", "Ida")
    match_id = cli_json(served, me, "table", "create", "--ruleset", "classic", "--bot", "1",
                        "--wait")["match"]["match_id"]
    deadline = time.monotonic() + 60
    view = cli_json(served, me, "state", match_id)
    while view.get("to_move_seat") not in view["controlled_seats"]:  # let the bot move first
        assert time.monotonic() < deadline, "the bot did not move"
        time.sleep(0.2)
        view = cli_json(served, me, "state", match_id)
    # Nothing happens now until this player moves: the stream must stop by itself.
    start = time.monotonic()
    done = subprocess.run([*WORDARENA, "stream", match_id, "--after", str(view["last_seq"]), "--idle", "2"],
                          cwd=ROOT, env=served.env(me), capture_output=True, text=True, timeout=60)
    took = time.monotonic() - start
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", "no event happened after that seq"
    assert 2 <= took < 10, f"stream --idle 2 took {took:.1f} s"
