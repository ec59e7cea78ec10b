"""Quick match in the page: a ticket queued and cancelled (the lobby's answer shown, and the ticket
cancelled in the lobby), then two browser contexts (one at 375 px, by keyboard) quick-match each
other: each waits, sees the lobby's count of players waiting, and lands in the same match."""

from __future__ import annotations

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


def test_two_players_quick_match_each_other_and_a_ticket_is_cancelled(pages: Pages) -> None:
    site = pages.site
    ann, bob = unique("Ann"), unique("Bob")
    a, b = pages.open(), pages.open(width=375, height=800)
    sign_in(a, ann)
    sign_in(b, bob)

    # queued, then cancelled: the page says what the lobby says
    _queue(a, "wordtiles", "en")
    expect(a.locator("#qm-state")).to_contain_text("Looking for opponents: 1 waiting for Word Tiles (en)")
    ticket_id = a.evaluate("sessionStorage.getItem('wordarena.ticket')")
    expect(a.locator("#qm-cancel")).to_be_focused()
    a.keyboard.press("Enter")
    expect(a.locator("#qm-state")).to_have_text("Cancelled.")
    ticket = lobby_call(site.lobby, "GetQuickMatchTicket", lb.GetQuickMatchTicketRequest(ticket_id=ticket_id),
                        token_of(a)).ticket
    assert ticket.status == lb.TICKET_STATUS_CANCELLED
    expect(a.locator("#qm-start")).to_be_enabled()

    # two players asking for the same game meet; the second by keyboard on a phone-wide page
    _queue(a, "classic", "fr")
    expect(a.locator("#qm-state")).to_contain_text("1 waiting for Classic (fr)")
    shot(a, "quickmatch-waiting")
    b.click("#nav a[href='#/quick']")
    b.wait_for_selector("#qm-family option[value=classic]", state="attached")
    b.focus("#qm-family")
    b.select_option("#qm-family", "classic")
    b.select_option("#qm-language", "fr")
    b.focus("#qm-start")
    b.keyboard.press("Enter")
    mid = match_id(a)
    assert match_id(b) == mid
    for page in (a, b):
        expect(page.locator("#board .sq")).to_have_count(225)
        expect(page.locator("#seats")).to_contain_text(ann)
        expect(page.locator("#seats")).to_contain_text(bob)
    mine = lobby_call(site.lobby, "ListMyMatches", lb.ListMyMatchesRequest(), token_of(b)).matches
    assert [m.assignment.match_id for m in mine if m.active] == [mid]
    assert mine[0].ruleset.language == "fr"
    shot(b, "quickmatch-matched-phone")
