"""A watcher chats from the game screen: ``wordarena watch MATCH`` in a pseudo-terminal, ``chat``
typed at the prompt goes to the observers' channel (shown on the watcher's screen marked
``(observers)``), which the players do not read while the match runs; ``help`` says so."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pexpect
import pytest
from e2e_helpers import ROOT, Served, cli, cli_json, read_raw

pytestmark = pytest.mark.slow

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_a_watcher_chats_in_the_observers_channel(served: Served, tmp_path: Path) -> None:
    rita = tmp_path / "rita.json"
    cli(served, rita, "login", "--name", "Rita")
    match_id = cli_json(served, rita, "table", "create", "--bot", "1", "--wait")["match"]["match_id"]
    child = pexpect.spawn(sys.executable, ["-m", "wordarena.clients.cli.main", "watch", match_id,
                                           "--name", "Wes"],
                          cwd=str(ROOT), env=served.env(tmp_path / "wes.json"), encoding="utf-8",
                          timeout=60, dimensions=(60, 110))
    try:
        child.expect("watching > ", timeout=60)
        child.sendline("chat go Rita go")
        screen = ""
        deadline = time.monotonic() + 30
        while "(observers): go Rita go" not in screen and time.monotonic() < deadline:
            screen += ANSI.sub("", read_raw(child, 0.3))
        assert "Wes (observers): go Rita go" in screen
        child.sendline("help")
        child.expect("observers' channel", timeout=30)
        child.sendline("quit")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close(force=True)
    # Rita, a player, does not read it while the match runs.
    assert "events" not in cli_json(served, rita, "log", match_id, "--chat")
