"""End-to-end fixtures: a real ``wordarena serve`` on free ports with a temporary data dir."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_helpers import ROOT, WORDARENA, Served, free_port


def serving(data: Path, *extra: str) -> Iterator[Served]:
    """A ``wordarena serve`` on free ports in ``data`` (``extra``: more serve flags), stopped
    (and checked to stop cleanly) afterwards."""
    lobby, match = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    out = open(data / "serve.out", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [*WORDARENA, "serve", "--data-dir", str(data), "--lobby-listen", lobby, "--match-listen", match,
         "--bot-delay", "0", *extra],
        # a module signs many guests in from 127.0.0.1: the per-address guest throttle opened wide
        cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
        env={**os.environ, "WORDARENA_GUEST_SIGN_IN_BURST": "10000",
             "WORDARENA_SIGN_IN_ADDRESS_BURST": "10000",
             # ... and so are the caps on what one address's guests keep open (lobby, --max-open-*)
             "WORDARENA_MAX_OPEN_TABLES_PER_GUEST_ADDRESS": "10000",
             "WORDARENA_MAX_OPEN_TOURNAMENTS_PER_GUEST_ADDRESS": "10000"})
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        text = (data / "serve.out").read_text()
        if "READY" in text:
            break
        if proc.poll() is not None:
            log = (data / "serve.log").read_text() if (data / "serve.log").exists() else ""
            pytest.fail(f"wordarena serve exited: {text}\n{log[-3000:]}")
        time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("wordarena serve did not become ready")
    try:
        yield Served(lobby, match, data, proc)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = None
        out.close()
        assert rc == 0, f"serve did not stop cleanly: {rc}"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from serving(tmp_path_factory.mktemp("serve"))
