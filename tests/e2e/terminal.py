"""A ``wordarena`` command in a real pseudo-terminal (pexpect), read the way a person reads it: the
screen's text with colours and cursor moves taken out, searched for what should appear."""

from __future__ import annotations

import contextlib
import re
import sys
import time
from pathlib import Path

import pexpect
import pytest
from e2e_helpers import ROOT, Served, cli_json, read_raw

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


class Terminal:
    """One ``wordarena ARGS`` process on a 60×110 terminal, with everything it printed kept."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        """``env``: the process environment (``Served.env(config)`` for one talking to a server)."""
        self.child = pexpect.spawn(sys.executable, ["-m", "wordarena.clients.cli.main", *args],
                                   cwd=str(ROOT), env=env, encoding="utf-8", timeout=60,
                                   dimensions=(60, 110))
        self.text = ""

    def pump(self, seconds: float = 0.2) -> str:
        """Read what was printed within ``seconds`` (the pty must not fill up); returns it."""
        new = ANSI.sub("", read_raw(self.child, seconds))
        self.text += new
        return new

    def wait_for(self, pattern: str, timeout: float = 60, since: int = 0) -> re.Match[str]:
        """The first match of ``pattern`` in what was printed after offset ``since``, waiting for
        it; the test fails with the screen's tail when it does not come."""
        deadline = time.monotonic() + timeout
        while True:
            found = re.search(pattern, self.text[since:])
            if found:
                return found
            if time.monotonic() > deadline or (not self.child.isalive() and not self.pump(0.1)):
                pytest.fail(f"{pattern!r} never appeared; the terminal showed:\n{self.text[-4000:]}")
            self.pump()

    def mark(self) -> int:
        """An offset: ``wait_for(..., since=mark)`` looks only at what comes after it."""
        self.pump(0.1)
        return len(self.text)

    def type(self, line: str) -> None:
        """Type a line and Enter."""
        self.child.sendline(line)

    def close(self) -> int | None:
        """Quit (if still running) and return the exit status."""
        if self.child.isalive():
            self.child.sendline("quit")
            with contextlib.suppress(pexpect.TIMEOUT):
                self.child.expect(pexpect.EOF, timeout=20)
        self.child.close(force=True)
        return self.child.exitstatus


def state(served: Served, config: Path, match_id: str) -> dict:
    """The player's view (``wordarena state --json``)."""
    return cli_json(served, config, "state", match_id)


def wait_turn(served: Served, config: Path, match_id: str, timeout: float = 60) -> dict:
    """The player's view once it is one of the player's seats to move (or the game is over)."""
    deadline = time.monotonic() + timeout
    while True:
        view = state(served, config, match_id)
        if view.get("result") or view.get("to_move_seat", 0) in view.get("controlled_seats", []):
            return view
        assert time.monotonic() < deadline, f"never the player's turn: {view.get('seats')}"
        time.sleep(0.2)
