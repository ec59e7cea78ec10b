"""``wordarena serve`` as the end-to-end and browser tests run it: the real command, on free
ports, with its data in a temporary folder, ready when it prints READY, stopped with SIGTERM.

Every test signs guests in from 127.0.0.1, so the per-address guest throttle and the caps on what
one address's guests keep open (lobby, ``--max-open-*``) are opened wide."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORDARENA = [sys.executable, "-m", "wordarena.clients.cli.main"]
#: Seconds a serve may take to be ready (its first start compiles word lists; CI is loaded).
READY_WITHIN = 180.0


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Running:
    """A running serve: its servers' native addresses, its data, its process, what it printed up
    to READY, and (once stopped) its exit status."""

    lobby: str
    match: str
    data: Path
    proc: subprocess.Popen[bytes]
    ready: str
    returncode: int | None = None


@contextlib.contextmanager
def serve(data: Path, *extra: str) -> Iterator[Running]:
    """``wordarena serve`` with ``extra`` flags, until the block ends."""
    lobby, match = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    with open(data / "serve.out", "w") as out:
        proc = subprocess.Popen(
            [*WORDARENA, "serve", "--data-dir", str(data), "--lobby-listen", lobby, "--match-listen", match,
             "--bot-delay", "0", *extra],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
            env={**os.environ, "WORDARENA_GUEST_SIGN_IN_BURST": "10000",
                 "WORDARENA_SIGN_IN_ADDRESS_BURST": "10000",
                 "WORDARENA_MAX_OPEN_TABLES_PER_GUEST_ADDRESS": "10000",
                 "WORDARENA_MAX_OPEN_TOURNAMENTS_PER_GUEST_ADDRESS": "10000"})
        running = Running(lobby, match, data, proc, "")
        try:
            deadline = time.monotonic() + READY_WITHIN
            while "READY" not in running.ready:
                running.ready = (data / "serve.out").read_text()
                if proc.poll() is not None:
                    log = (data / "serve.log").read_text() if (data / "serve.log").exists() else ""
                    pytest.fail(f"wordarena serve exited: {running.ready}\n{log[-3000:]}")
                if time.monotonic() > deadline:
                    pytest.fail(f"wordarena serve was not ready in {READY_WITHIN:g} s: {running.ready}")
                time.sleep(0.2)  # polling its output, not a proof
            yield running
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                running.returncode = proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
