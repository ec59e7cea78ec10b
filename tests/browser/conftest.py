"""Browser tests: the web client (clients/web/dist) in Debian's Chromium, driven by Playwright for
Python, against a real ``wordarena serve`` (lobby + match server, their web ports). Without the
browser or Playwright these skip, which under CI fails the run (tests/conftest.py): scripts/setup
installs both.

Every page's console errors (and uncaught exceptions) are collected and each test ends by asserting
there were none. Screenshots go to tests/browser/artifacts/ (git-ignored)."""

from __future__ import annotations

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


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    data = tmp_path_factory.mktemp("serve")
    lobby, match = f"127.0.0.1:{_free_port()}", f"127.0.0.1:{_free_port()}"
    out = open(data / "serve.out", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [*WORDARENA, "serve", "--data-dir", str(data), "--lobby-listen", lobby, "--match-listen", match,
         "--bot-delay", "0"],
        cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
        # every test signs guests in from 127.0.0.1: the per-address guest throttle opened wide
        env={**os.environ, "WORDARENA_GUEST_SIGN_IN_BURST": "10000",
             "WORDARENA_SIGN_IN_ADDRESS_BURST": "10000",
             # ... and so are the caps on what one address's guests keep open (lobby, --max-open-*)
             "WORDARENA_MAX_OPEN_TABLES_PER_GUEST_ADDRESS": "10000",
             "WORDARENA_MAX_OPEN_TOURNAMENTS_PER_GUEST_ADDRESS": "10000"})
    deadline = time.monotonic() + 180
    text = ""
    while "READY" not in text:
        text = (data / "serve.out").read_text()
        if proc.poll() is not None:
            pytest.fail(f"wordarena serve exited: {text}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("wordarena serve did not become ready")
        time.sleep(0.2)
    (url,) = re.findall(r"^web\s+(\S+)", text, re.M)
    try:
        yield Site(url, lobby, match, proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        out.close()


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
