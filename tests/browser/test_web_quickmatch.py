"""Quick match in the page: a ticket queued and cancelled by keyboard (the lobby's answer shown, and
the ticket cancelled in the lobby); one cancelled by leaving the page; then two browser contexts
(one at 375 px, by keyboard) quick-match each other: each waits, sees the lobby's count of players
waiting (the first reloads meanwhile and waits on with the same ticket), and lands in the same
match."""

from __future__ import annotations

from typing import Any

import pytest
from lobby_helpers import lobby_call, token_of
from web_helpers import Pages, expect, match_id, shot, sign_in, unique

from wordarena.v1 import lobby_pb2 as lb

pytestmark = pytest.mark.slow


def _queue(page: object, family: str, language: str) -> None:
    page.click("#nav a[href='#/quick']")  # type: ignore[attr-defined]
    page.wait_for_selector(f"#qm-family option[value={family}]", state="attached")  # type: ignore[attr-defined]
    page.select_option("#qm-family", family)  # type: ignore[attr-defined]
    page.select_option("#qm-language", language)  # type: ignore[attr-defined]
    page.click("#qm-start")  # type: ignore[attr-defined]


def _board_shown(page: Any) -> None:
    try:
        expect(page.locator("#board .sq")).to_have_count(225)
    except AssertionError as exc:  # what the page says instead (seen once: no board within 30 s)
        said = page.locator("#app").inner_text()[:300]
        raise AssertionError(f"no board at {page.url}; the page: {said!r}") from exc


def _ticket(page: object, lobby: str, ticket_id: str) -> lb.QuickMatchTicket:
    request = lb.GetQuickMatchTicketRequest(ticket_id=ticket_id)
    return lobby_call(lobby, "GetQuickMatchTicket", request, token_of(page)).ticket


def test_two_players_quick_match_each_other_and_a_ticket_is_cancelled(pages: Pages) -> None:
    site = pages.site
    ann, bob = unique("Ann"), unique("Bob")
    a, b = pages.open(), pages.open(width=375, height=800)
    sign_in(a, ann)
    sign_in(b, bob)

    # queued, then cancelled: the page says what the lobby says
    _queue(a, "scrabble", "en")
    expect(a.locator("#qm-state")).to_contain_text("Looking for opponents: 1 waiting for Scrabble (en)")
    ticket_id = a.evaluate("sessionStorage.getItem('wordarena.ticket')")
    expect(a.locator("#qm-cancel")).to_be_focused()
    a.keyboard.press("Enter")
    expect(a.locator("#qm-state")).to_have_text("Cancelled.")
    assert _ticket(a, site.lobby, ticket_id).status == lb.TICKET_STATUS_CANCELLED
    expect(a.locator("#qm-start")).to_be_enabled()

    # leaving the page while waiting cancels the ticket
    _queue(a, "classic", "en")
    expect(a.locator("#qm-state")).to_contain_text("1 waiting for Classic (en)")
    ticket_id = a.evaluate("sessionStorage.getItem('wordarena.ticket')")
    a.click("#nav a[href='#/']")
    expect(a.locator("#tables-state")).to_have_text("Live.")
    ticket = _ticket(a, site.lobby, ticket_id)
    assert ticket.status == lb.TICKET_STATUS_CANCELLED

    # two players asking for the same game meet; the first reloads while waiting (the same ticket
    # goes on), the second asks by keyboard on a phone-wide page
    # (English: a language no other game of the run may have loaded would have the match server
    # compile its word list first, which can take longer than the page is given to show the board)
    _queue(a, "wordtiles", "en")
    expect(a.locator("#qm-state")).to_contain_text("1 waiting for Word Tiles (en)")
    ticket_id = a.evaluate("sessionStorage.getItem('wordarena.ticket')")
    a.reload()
    expect(a.locator("#qm-state")).to_contain_text("1 waiting for Word Tiles (en)")
    expect(a.locator("#qm-family")).to_have_value("wordtiles")  # the form shows the ticket's game
    expect(a.locator("#qm-cancel")).to_be_visible()
    assert _ticket(a, site.lobby, ticket_id).status == lb.TICKET_STATUS_QUEUED
    shot(a, "quickmatch-waiting")
    b.click("#nav a[href='#/quick']")
    b.wait_for_selector("#qm-family option[value=wordtiles]", state="attached")
    b.focus("#qm-family")
    b.select_option("#qm-family", "wordtiles")
    b.select_option("#qm-language", "en")
    b.focus("#qm-start")
    b.keyboard.press("Enter")
    mid = match_id(a)
    assert match_id(b) == mid
    assert _ticket(a, site.lobby, ticket_id).assignment.match_id == mid
    for page in (a, b):
        _board_shown(page)
        expect(page.locator("#seats")).to_contain_text(ann)
        expect(page.locator("#seats")).to_contain_text(bob)
    mine = lobby_call(site.lobby, "ListMyMatches", lb.ListMyMatchesRequest(), token_of(b)).matches
    assert [m.assignment.match_id for m in mine if m.active] == [mid]
    assert (mine[0].ruleset.ruleset_id, mine[0].ruleset.language) == ("wordtiles", "en")
    shot(b, "quickmatch-matched-phone")
