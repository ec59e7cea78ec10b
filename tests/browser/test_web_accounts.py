"""Accounts and records in the page: a rated game finished (the player to move resigns), then the
record page shows the changed record and rating and the leaderboard lists the player (each figure
as the lobby answers it over native gRPC); the winner claims the guest account with a password
(the server's refusal of a weak one shown first), keeps the record, signs out and signs in again
with the password, in this page and in a new browser context. Mostly by keyboard, one page at
375 px."""

from __future__ import annotations

import pytest
from lobby_helpers import lobby_call, rating_text, record_of, resign_whoever_moves, token_of
from web_helpers import Pages, create_table, expect, match_id, shot, sign_in, unique

from wordarena.v1 import lobby_pb2 as lb

pytestmark = pytest.mark.slow


def _open_record(page: object) -> None:
    page.click("#nav a[href='#/record']")  # type: ignore[attr-defined]
    expect(page.locator("#record-name")).not_to_have_text("Player record")  # type: ignore[attr-defined]


def test_a_rated_game_shows_in_the_record_and_leaderboard_and_the_guest_claims_it(pages: Pages) -> None:
    site = pages.site
    ann, bob = unique("Ann"), unique("Bob")
    a, b = pages.open(), pages.open(width=375, height=800)
    sign_in(a, ann)
    sign_in(b, bob)

    # before any game: no record
    _open_record(a)
    expect(a.locator("#record-name")).to_have_text(ann + " (guest)")
    expect(a.locator("#record-empty")).to_have_text("No rated games finished yet.")

    a.click("#nav a[href='#/']")
    create_table(a, "classic")
    b.locator("li.table", has_text=ann).locator("button.join").click()
    assert match_id(a) == match_id(b)
    winner, loser = resign_whoever_moves({a: ann, b: bob}, site.match)
    names = {a: ann, b: bob}

    # the record: one game, won (or lost), the rating the lobby computed
    for page, wlt in ((winner, "1-0-0"), (loser, "0-1-0")):
        _open_record(page)
        row = page.locator("#records tr[data-ruleset=classic]")
        expect(row.locator(".wlt")).to_have_text(wlt)
        expect(row.locator(".games")).to_have_text("1")
        record = record_of(page, site.lobby).records[0]
        assert record.rating.rating != 1500
        expect(row.locator(".rating")).to_have_text(rating_text(record))
        expect(row.locator(".average")).to_have_text(f"{record.average_score:.1f}")
        expect(row.locator(".best")).to_have_text(str(record.best_score))
        expect(row.locator(".weighted")).to_have_text(f"{record.weighted_score:+.1f}")
    # a phone's width shows the first four columns
    expect(b.locator("#records th.wide")).to_have_count(3)
    for i in range(3):
        expect(b.locator("#records th.wide").nth(i)).to_be_hidden()
    expect(a.locator("#records th.wide").first).to_be_visible()
    shot(loser, "player-record")

    # the leaderboard: the winner listed with the lobby's rank, for all time and for today
    # by keyboard: the link pressed keeps the focus, marked as the current page
    link = winner.locator("#nav a[href='#/leaderboard']")
    link.focus()
    winner.keyboard.press("Enter")
    expect(link).to_have_attribute("aria-current", "page")
    expect(link).to_be_focused()
    winner.wait_for_selector("#lb-ruleset option[value=classic]", state="attached")
    winner.select_option("#lb-ruleset", "classic")
    request = lb.GetLeaderboardRequest(ruleset_id="classic")
    board = lobby_call(site.lobby, "GetLeaderboard", request, token_of(winner))
    mine = board.caller_entry
    expect(winner.locator("#lb-me")).to_have_text(
        f"You: #{mine.rank}, rating {rating_text(mine.record)}, 1-0-0.")
    line = winner.locator(f"#leaderboard tr[data-player='{mine.player.player_id}']")
    expect(line).to_contain_text(names[winner])
    expect(line.locator(".rating")).to_have_text(rating_text(mine.record))
    for period in (lb.LEADERBOARD_PERIOD_MONTH, lb.LEADERBOARD_PERIOD_WEEK, lb.LEADERBOARD_PERIOD_DAY):
        winner.select_option("#lb-period", str(period))
        request = lb.GetLeaderboardRequest(ruleset_id="classic", period=period)
        mine = lobby_call(site.lobby, "GetLeaderboard", request, token_of(winner)).caller_entry
        expect(winner.locator("#lb-me")).to_have_text(
            f"You: #{mine.rank}, rating {rating_text(mine.record)}, 1-0-0.")
        expect(winner.locator(f"#leaderboard tr[data-player='{mine.player.player_id}']")).to_have_count(1)
    shot(winner, "leaderboard")
    b.click("#nav a[href='#/leaderboard']")
    expect(b.locator(f"#leaderboard tr[data-player='{mine.player.player_id}']")).to_have_count(1)
    shot(b, "leaderboard-phone")
    # a name leads to that player's record
    loser_id = record_of(loser, site.lobby).player.player_id
    winner.locator(f"#leaderboard tr[data-player='{loser_id}'] a").click()
    expect(winner.locator("#record-name")).to_have_text(names[loser] + " (guest)")
    expect(winner.locator("#records tr[data-ruleset=classic] .wlt")).to_have_text("0-1-0")

    # the winner claims the guest account: a weak password refused with the server's words
    before = record_of(winner, site.lobby).records[0]
    winner.click("#nav a[href='#/account']")
    expect(winner.locator("#account-kind")).to_contain_text("A guest")
    winner.fill("#claim-password", "short")
    winner.press("#claim-password", "Enter")
    expect(winner.locator("#claim-error")).to_contain_text("password")
    password = "correct horse battery"
    winner.fill("#claim-password", password)
    winner.press("#claim-password", "Enter")
    expect(winner.locator("#account-kind")).to_contain_text("An account")
    expect(winner.locator("#account-notice")).to_contain_text(f"sign in as {names[winner]}")
    me = lobby_call(site.lobby, "GetMe", lb.GetMeRequest(), token_of(winner)).player
    assert not me.guest and me.display_name == names[winner]
    _open_record(winner)
    expect(winner.locator("#record-name")).to_have_text(names[winner])  # no longer "(guest)"
    expect(winner.locator("#records tr[data-ruleset=classic] .wlt")).to_have_text("1-0-0")
    expect(winner.locator("#records tr[data-ruleset=classic] .rating")).to_have_text(rating_text(before))

    # sign out, then in with the password: a wrong one refused, the right one the same player
    winner.click("#sign-out")
    expect(winner.locator("#account-name")).to_be_visible()
    expect(winner.locator("#me")).to_have_count(0)
    winner.fill("#account-name", names[winner].upper())
    winner.fill("#account-password", "not the password")
    winner.press("#account-password", "Enter")
    expect(winner.locator("#account-error")).not_to_be_empty()
    winner.fill("#account-password", password)
    winner.press("#account-password", "Enter")
    expect(winner.locator("#me")).to_have_text(names[winner])
    expect(winner.locator("#tables-state")).to_have_text("Live.")
    _open_record(winner)
    expect(winner.locator("#records tr[data-ruleset=classic] .wlt")).to_have_text("1-0-0")
    # ... and from another device
    other = pages.open()
    other.fill("#account-name", names[winner])
    other.fill("#account-password", password)
    other.click("#account-signin")
    expect(other.locator("#me")).to_have_text(names[winner])
    assert record_of(other, site.lobby).player.player_id == me.player_id
    shot(other, "signed-in")
