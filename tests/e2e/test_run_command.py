"""The README's run command, as a newcomer types it: ``scripts/run`` sets up, starts the servers
and opens a game against a bot; the first thing on the screen is a board, ``quit`` leaves, and
the servers stop with it."""

from __future__ import annotations

import os
import re
import socket
import urllib.request
from pathlib import Path

import pexpect
import pytest
from e2e_helpers import ROOT, free_port

pytestmark = pytest.mark.slow

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_run_command_opens_a_board_against_a_bot_and_stops_cleanly(tmp_path: Path) -> None:
    port = free_port()
    env = dict(os.environ, WORDARENA_LOBBY=f"127.0.0.1:{port}", WORDARENA_DATA_DIR=str(tmp_path),
               WORDARENA_CONFIG=str(tmp_path / "config.json"), COLUMNS="110", LINES="60",
               TERM="xterm-256color")
    child = pexpect.spawn(str(ROOT / "scripts" / "run"), cwd=str(ROOT), env=env,
                          encoding="utf-8", timeout=180, dimensions=(60, 110))
    try:
        # the page's address first (issue 39: scripts/run prints it), and it answers
        child.expect(r"play in a browser at (http://127\.0\.0\.1:\d+/)", timeout=180)
        page = child.match.group(1)
        with urllib.request.urlopen(page, timeout=10) as r:
            assert r.status == 200 and "text/html" in r.headers["content-type"]
        child.expect(r"Match (m_\w+)", timeout=180)
        child.expect("your move > |waiting", timeout=60)
        screen = ANSI.sub("", child.before or "")
        # A board with its coordinates: the column letters A..O across the top.
        assert re.search(r"A\s+B\s+C\s+D\s+E\s+F\s+G\s+H", screen), screen[-2000:]
        child.sendline("quit")
        child.expect(pexpect.EOF, timeout=60)
    finally:
        if child.isalive():
            child.terminate(force=True)
    child.close()
    assert child.exitstatus == 0, child.before
    assert not _port_open(port), "the lobby is still listening after play ended"
