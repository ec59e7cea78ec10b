"""The lobby's own answers for the browser tests of accounts, quick match, tournaments and records,
over native gRPC (with the token a page keeps, or a director signed in here): what the pages must
show is checked against them."""

from __future__ import annotations

import re
from typing import Any

import grpc
from web_helpers import expect, unique, view_of

from wordarena.v1 import lobby_pb2 as lb
from wordarena.v1 import lobby_pb2_grpc, match_pb2_grpc, tournament_pb2_grpc
from wordarena.v1 import match_pb2 as m


def token_of(page: Any) -> str:
    return str(page.evaluate("localStorage.getItem('wordarena.token')"))


def lobby_call(address: str, method: str, request: Any, token: str = "") -> Any:
    with grpc.insecure_channel(address) as channel:
        stub = lobby_pb2_grpc.LobbyServiceStub(channel)
        meta = [("authorization", f"Bearer {token}")] if token else []
        return getattr(stub, method)(request, metadata=meta, timeout=30)


def tournament_call(address: str, method: str, request: Any, token: str) -> Any:
    with grpc.insecure_channel(address) as channel:
        stub = tournament_pb2_grpc.TournamentServiceStub(channel)
        return getattr(stub, method)(request, metadata=[("authorization", f"Bearer {token}")], timeout=30)


def guest(address: str, prefix: str) -> tuple[str, lb.SignInGuestResponse]:
    """A guest signed in over native gRPC (a tournament's director): its token and answer."""
    res = lobby_call(address, "SignInGuest", lb.SignInGuestRequest(display_name=unique(prefix)))
    return res.token.token, res


def record_of(page: Any, address: str, player_id: str = "") -> lb.GetPlayerRecordResponse:
    request = lb.GetPlayerRecordRequest(player_id=player_id)
    return lobby_call(address, "GetPlayerRecord", request, token_of(page))


def rating_text(record: Any) -> str:
    """How the record and leaderboard pages write a rating (records.ts)."""
    return f"{record.rating.rating:.0f} ±{record.rating.deviation:.0f}"


def view_in(page: Any, address: str, mid: str) -> m.MatchView:
    """The page's player's view of match ``mid`` over native gRPC (a game shown inside another
    page than #/match/ID: a tournament's)."""
    with grpc.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        return stub.GetMatch(m.GetMatchRequest(match_id=mid),
                             metadata=[("authorization", f"Bearer {token_of(page)}")], timeout=30).match


def resign_whoever_moves(pages: dict[Any, str], match_address: str,
                         mid: str | None = None) -> tuple[Any, Any]:
    """The player to move resigns (confirming the page's question) once both pages show the game;
    returns (winner's page, loser's page) once both pages show the game over. ``mid``: the match,
    when the pages show it elsewhere than at #/match/ID."""
    first = next(iter(pages))
    for page in pages:
        expect(page.locator("#status")).to_have_attribute("data-turn", re.compile(r"\w"))

    def view(p: Any) -> m.MatchView:
        return view_in(p, match_address, mid) if mid else view_of(p, match_address)

    seat_of = {view(p).viewer_seat: p for p in pages}
    view_first = view(first)
    loser = seat_of[view_first.to_move_seat]
    winner = next(p for p in pages if p is not loser)
    expect(loser.locator("#status")).to_have_attribute("data-turn", "mine")
    loser.once("dialog", lambda d: d.accept())
    loser.click("#resign")
    for page in pages:
        expect(page.locator("#moves li", has_text=f"{pages[loser]} resigned")).to_have_count(1)
        expect(page.locator("#summary")).to_be_visible()
        expect(page.locator("#winner")).to_contain_text(f"{pages[winner]} won")
    return winner, loser

