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
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORDARENA = [sys.executable, "-m", "wordarena.clients.cli.main"]
CHROMIUM = os.environ.get("WORDARENA_TEST_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

pytestmark = pytest.mark.slow


@dataclass
class Site:
    """A running ``wordarena serve``: the page's URL and the servers' native gRPC addresses."""

    url: str
    lobby: str
    match: str


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
             "WORDARENA_SIGN_IN_ADDRESS_BURST": "10000"})
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
        yield Site(url, lobby, match)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        out.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} not found: scripts/setup installs Debian's chromium for the tests")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright not installed: scripts/setup installs the dev extra")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        yield b
        b.close()


@dataclass
class Pages:
    """Browser contexts opened by a test (each its own storage: its own player), and every console
    error they logged."""

    browser: Any
    site: Site
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    contexts: list[Any] = field(default_factory=list)

    def open(self, width: int = 1100, height: int = 1000) -> Any:
        ctx = self.browser.new_context(viewport={"width": width, "height": height})
        self.contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(30_000)
        page.on("console",
                lambda m: self.errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"{page.url}: {e}"))
        page.goto(self.site.url)
        return page


@pytest.fixture
def pages(browser: Any, site: Site) -> Iterator[Pages]:
    ps = Pages(browser, site)
    yield ps
    for ctx in ps.contexts:
        ctx.close()
    assert not ps.errors, f"console errors: {ps.errors}"


def unique(prefix: str) -> str:
    """A display name no other test uses (names are unique among live players)."""
    return f"{prefix}{uuid.uuid4().hex[:6]}"


def shot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
