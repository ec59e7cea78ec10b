"""``wordarena serve --match-servers 2``: two match servers beside the lobby, each with its own
SQLite file, and the lobby spreads the matches across both — also when tables start in a quick
burst, before any server's next heartbeat has reported its new load."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
from e2e_helpers import ROOT, WORDARENA, free_port

from wordarena.clients.cli.client import Client, Config
from wordarena.v1 import common_pb2, lobby_pb2, match_pb2

pytestmark = pytest.mark.slow

SETTINGS = lobby_pb2.TableSettings(
    ruleset=common_pb2.RulesetRef(ruleset_id="classic", language="en"),
    seats=2,
    bots=[lobby_pb2.BotSeat(seat=1, bot_level=1)],
    start_policy=lobby_pb2.START_POLICY_HOST,
)


def _serve(data: Path, servers: int) -> tuple[subprocess.Popen[str], list[str], list[str]]:
    """Start ``wordarena serve`` and read its address lines up to READY."""
    proc = subprocess.Popen(
        [
            *WORDARENA,
            "serve",
            "--data-dir",
            str(data),
            "--lobby-listen",
            f"127.0.0.1:{free_port()}",
            "--match-listen",
            "127.0.0.1:0",
            "--match-servers",
            str(servers),
            "--bot-delay",
            "0",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=dict(os.environ),
    )
    assert proc.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 180
    while not lines or not lines[-1].startswith("READY"):
        line = proc.stdout.readline()
        assert line, f"serve exited: {''.join(lines)}"
        assert time.monotonic() < deadline, "serve did not become ready"
        lines.append(line)
    lobby = [ln.split()[1] for ln in lines if ln.startswith("lobby ")]
    matches = [ln.split()[1] for ln in lines if ln.startswith("match ")]
    return proc, lobby, matches


def test_two_match_servers_share_the_matches(tmp_path: Path) -> None:
    data = tmp_path / "data"
    proc, lobby, match_servers = _serve(data, 2)
    try:
        assert len(match_servers) == 2 and len(set(match_servers)) == 2
        with Client(lobby[0], config=Config(tmp_path / "me.json")) as client:
            client.sign_in_guest("Mona")
            # Four tables started in a burst (well within one heartbeat of the servers).
            tables = [client.create_table(SETTINGS, seat=0).table_id for _ in range(4)]
            for table_id in tables:
                client.start_table(table_id)
            started = [client.wait_for_match(table_id) for table_id in tables]
            assert Counter(m.address for m in started) == Counter({match_servers[0]: 2, match_servers[1]: 2})
            for m in started:  # each is played where the lobby said
                assert client.get_match(m.match_id).status == match_pb2.MATCH_STATUS_IN_PROGRESS
                assert client.profile.matches[m.match_id] == m.address
        assert (data / "match.db").exists() and (data / "match-2.db").exists()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = None
    assert rc == 0
