"""Browser tests: the web client (clients/web/dist) in Debian's Chromium, driven by Playwright for
Python, against a real ``wordarena serve`` (lobby + match server, their web ports). Without the
browser or Playwright these skip, which under CI fails the run (tests/conftest.py): scripts/setup
installs both.

Every page's console errors (and uncaught exceptions) are collected and each test ends by asserting
there were none. Screenshots go to tests/browser/artifacts/ (git-ignored)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import Pages, Site

ROOT = Path(__file__).resolve().parents[2]
WORDARENA = [sys.executable, "-m", "wordarena.clients.cli.main"]
CHROMIUM = os.environ.get("WORDARENA_TEST_CHROMIUM", "/usr/bin/chromium")



def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(data: Path, *extra: str) -> Iterator[Site]:
    """A ``wordarena serve`` on free ports with its data in ``data`` (and ``extra`` flags), until
    the block ends; every test signs guests in from 127.0.0.1, so the per-address guest throttle
    and the caps on what one address's guests keep open (lobby, --max-open-*) are opened wide."""
    lobby, match = f"127.0.0.1:{_free_port()}", f"127.0.0.1:{_free_port()}"
    with open(data / "serve.out", "w") as out:
        proc = subprocess.Popen(
            [*WORDARENA, "serve", "--data-dir", str(data), "--lobby-listen", lobby, "--match-listen", match,
             "--bot-delay", "0", *extra],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
            env={**os.environ, "WORDARENA_GUEST_SIGN_IN_BURST": "10000",
                 "WORDARENA_SIGN_IN_ADDRESS_BURST": "10000",
                 "WORDARENA_MAX_OPEN_TABLES_PER_GUEST_ADDRESS": "10000",
                 "WORDARENA_MAX_OPEN_TOURNAMENTS_PER_GUEST_ADDRESS": "10000"})
        try:
            deadline = time.monotonic() + 180
            text = ""
            while "READY" not in text:
                text = (data / "serve.out").read_text()
                if proc.poll() is not None:
                    pytest.fail(f"wordarena serve exited: {text}")
                if time.monotonic() > deadline:
                    pytest.fail(f"wordarena serve did not become ready in 180 s: {text}")
                time.sleep(0.2)  # polling its output, not a proof
            (url,) = re.findall(r"^web\s+(\S+)", text, re.M)
            yield Site(url, lobby, match, proc.pid)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    with serving(tmp_path_factory.mktemp("serve")) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for one test module: Playwright's sync API keeps its event loop running in the
    main thread while it is started, which would break asyncio.run() and pytest-asyncio in every
    later test of the run, so it stops when the module ends."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} not found: scripts/setup installs Debian's chromium for the tests")
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        pytest.skip("playwright not installed: scripts/setup installs the dev extra")
    # waits for page state, not proofs by time: generous for a loaded CI machine (default 5 s)
    expect.set_options(timeout=30_000)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        yield b
        b.close()


@pytest.fixture
def pages(browser: Any, site: Site) -> Iterator[Pages]:
    ps = Pages(browser, site)
    yield ps
    for ctx in ps.contexts:
        ctx.close()
    assert not ps.errors, f"console errors: {ps.errors}"
