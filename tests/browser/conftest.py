"""Browser tests: the web client (clients/web/dist) in Debian's Chromium, driven by Playwright for
Python, against a real ``wordarena serve`` (lobby + match server, their web ports). Without the
browser or Playwright these skip, which under CI fails the run (tests/conftest.py): scripts/setup
installs both.

Every page's console errors (and uncaught exceptions) are collected and each test ends by asserting
there were none. Screenshots go to tests/browser/artifacts/ (git-ignored)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import Pages, Site, serving

CHROMIUM = os.environ.get("WORDARENA_TEST_CHROMIUM", "/usr/bin/chromium")



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
