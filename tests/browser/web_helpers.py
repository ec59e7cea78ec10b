"""What a player does in the page, and the test's own oracle: the player's view fetched over
native gRPC with the token the page holds, and the engine's move generator run on the board that
view shows (tests/service/match/match_harness.py), never the server's runtime."""

from __future__ import annotations

import contextlib
import re
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service" / "match"))
from match_harness import client_moves, expected_notation
from serve_process import serve

from wordarena.v1 import match_pb2 as m
from wordarena.v1 import match_pb2_grpc

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


@dataclass
class Site:
    """A running ``wordarena serve``: the page's URL and the servers' native gRPC addresses."""

    url: str
    lobby: str
    match: str
    serve_pid: int


@contextlib.contextmanager
def serving(data: Path, *extra: str) -> Iterator[Site]:
    """A ``wordarena serve`` (``serve_process.serve``) with ``extra`` flags, as the page's site."""
    with serve(data, *extra) as running:
        (url,) = re.findall(r"^web\s+(\S+)", running.ready, re.M)
        yield Site(url, running.lobby, running.match, running.proc.pid)


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


def unique(prefix: str) -> str:
    """A display name no other test uses (names are unique among live players)."""
    return f"{prefix}{uuid.uuid4().hex[:6]}"


def shot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def expect(target: Any, message: str | None = None) -> Any:
    """Playwright's ``expect``, imported when first used: without Playwright the ``browser``
    fixture skips each test in its set-up (which under CI fails it, tests/conftest.py), where a
    module-level import would skip the module at collection, unseen by that rule."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(target, message)


def sign_in(page: Any, name: str) -> None:
    page.fill("#guest-name", name)
    page.click("#signin button[type=submit]")
    expect(page.locator("#me")).to_have_text(name)
    expect(page.locator("#tables-state")).to_have_text("Live.")


def create_table(page: Any, family: str, *, seats: int = 2, bots: int = 0, board: str | None = None) -> None:
    page.wait_for_selector(f"#family option[value={family}]", state="attached")
    page.select_option("#family", family)
    if board:
        page.select_option("#board", board)
    page.fill("#seats", str(seats))
    page.dispatch_event("#seats", "change")
    page.fill("#bots", str(bots))
    page.click("#create")


def match_id(page: Any) -> str:
    page.wait_for_url(re.compile(r"#/match/"))
    return page.url.split("#/match/")[1]


def view_of(page: Any, address: str) -> m.MatchView:
    """The page's player's view, over native gRPC with the token the page keeps."""
    token = page.evaluate("localStorage.getItem('wordarena.token')")
    with grpc.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        return stub.GetMatch(m.GetMatchRequest(match_id=match_id(page)),
                             metadata=[("authorization", f"Bearer {token}")], timeout=30).match


def best_play(view: m.MatchView) -> tuple[Any, str] | None:
    """The best-scoring legal play of the viewer's rack (engine move, ``8H WORD``), or None."""
    moves = client_moves(view)
    if not moves:
        return None
    move = moves[0]
    return move, expected_notation(view, move.placements(), move.across)


def square_name(row: int, col: int) -> str:
    return f"{chr(ord('A') + col)}{row + 1}"
