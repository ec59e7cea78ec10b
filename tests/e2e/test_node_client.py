"""The example Node.js client (clients/node-example/play.js), built from the .proto files alone,
plays a whole game against a real ``wordarena serve``: two guests and a spectator, one stream
dropped and resumed, an error's details decoded, no rack leaked. Skipped without Node.js, except
under CI, where it fails."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from e2e_helpers import ROOT, Served

pytestmark = pytest.mark.slow

PLAY = ROOT / "clients" / "node-example" / "play.js"
# The libraries play.js requires (root package.json devDependencies).
NODE_PACKAGES = ("@grpc/grpc-js", "@grpc/proto-loader", "google-proto-files")


def _missing(what: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"CI requires {what} for the Node.js example client")
    pytest.skip(f"{what} not found: the Node.js example client is not tested")


@pytest.fixture(scope="module")
def node() -> str:
    """The node binary, with the client's packages installed in the root node_modules.

    scripts/test installs node_modules (scripts/check-protos runs ``npm ci`` when buf is missing),
    but a node_modules from before these packages were added, or pytest run on its own, may lack
    them: then ``npm ci`` here, as check-protos would."""
    node = shutil.which("node")
    if node is None:
        _missing("node")
    assert node is not None
    if not all((ROOT / "node_modules" / p / "package.json").exists() for p in NODE_PACKAGES):
        npm = shutil.which("npm")
        if npm is None:
            _missing("npm")
        assert npm is not None
        res = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=ROOT,
                             capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, f"npm ci failed:\n{res.stdout}\n{res.stderr}"
    return node


def test_node_client_plays_a_whole_game(node: str, served: Served) -> None:
    # node first: without it the test skips (or fails) before a server is started.
    res = subprocess.run([node, str(PLAY), served.lobby], cwd=ROOT, capture_output=True, text=True,
                         timeout=180)
    assert res.returncode == 0, f"play.js exited {res.returncode}\n{res.stdout}\n{res.stderr}"
    summary = json.loads(res.stdout.strip().splitlines()[-1])
    assert summary["ok"] is True
    assert summary["game_over"]["reason"].startswith("GAME_OVER_REASON_")
    assert summary["turns"] >= 3
    # Every viewer (two players and the spectator) saw the whole log: MatchStarted, the turns and
    # GameOver, i.e. at least turns + 2 events, as many as GetMatch.last_seq.
    assert summary["last_seq"] >= summary["turns"] + 2
    assert summary["events_seen"] == {"A": summary["last_seq"], "B": summary["last_seq"],
                                      "spectator": summary["last_seq"]}
    # The dropped stream was resumed after a seq it had seen, and events came after it.
    assert 1 <= summary["resumed_at"] < summary["last_seq"]
    assert summary["events_after_resume"] == summary["last_seq"] - summary["resumed_at"]
    assert set(summary["checks_passed"]) == {"error_details_decoded", "seq_order",
                                             "resume_no_loss_no_repeat", "no_opponent_rack"}
