"""What a player does in the page, and the test's own oracle: the player's view fetched over
native gRPC with the token the page holds, and the engine's move generator run on the board that
view shows (tests/service/match/match_harness.py), never the server's runtime."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import grpc
from playwright.sync_api import expect

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service" / "match"))
from match_harness import client_moves, expected_notation

from wordarena.v1 import match_pb2 as m
from wordarena.v1 import match_pb2_grpc


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
