"""A tournament in the page: a director (over native gRPC) creates a two-round event and invites
one player, who accepts in the page's list of invitations; another finds it in the tournament list,
registers, unregisters and registers again (by keyboard, at 375 px). Once the director starts it,
each page is led into its game on the tournament's page; the player to move resigns; the standings
update on both pages as the lobby computes them; the second round's game opens from the same page,
and after it the tournament is over with the lobby's final standings on both pages."""

from __future__ import annotations

from typing import Any

import pytest
from lobby_helpers import guest, resign_whoever_moves, token_of, tournament_call
from web_helpers import Pages, expect, shot, sign_in, unique

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import lobby_pb2 as lb
from wordarena.v1 import tournament_pb2 as t

pytestmark = pytest.mark.slow


def _standings_shown(page: Any, state: t.TournamentState) -> None:
    rows = page.locator("#standings tbody tr")
    lines = state.standings[0].standings
    expect(rows).to_have_count(len(lines))
    for i, s in enumerate(lines):
        row = rows.nth(i)
        expect(row.locator(".name")).to_have_text(s.display_name)
        expect(row.locator(".wlt")).to_have_text(f"{s.wins}-{s.losses}-{s.ties}")


def _game_of(page: Any) -> str:
    expect(page.locator("#t-game #board .sq")).to_have_count(225)
    return str(page.locator("#t-game").get_attribute("data-match"))


def test_two_players_play_a_tournament_in_the_page(pages: Pages) -> None:
    site = pages.site
    ann, bob = unique("Ann"), unique("Bob")
    a, b = pages.open(), pages.open(width=375, height=900)
    sign_in(a, ann)
    sign_in(b, bob)
    director, _ = guest(site.lobby, "Dir")
    name = unique("Cup ")
    settings = t.TournamentSettings(
        name=name, game=lb.TableSettings(ruleset=c.RulesetRef(ruleset_id="classic", language="en")),
        rounds=2, round_methods=[t.PAIRING_METHOD_DOUBLE_ROUND_ROBIN])
    tid = tournament_call(site.lobby, "CreateTournament", t.CreateTournamentRequest(settings=settings),
                          director).tournament.tournament_id
    ann_id = a.evaluate("JSON.parse(localStorage.getItem('wordarena.me')).playerId")
    tournament_call(site.lobby, "AddEntrant", t.AddEntrantRequest(tournament_id=tid, player_id=ann_id),
                    director)

    # Ann's invitation, accepted from the list
    a.click("#nav a[href='#/tournaments']")
    invite = a.locator(f"#invitations li[data-tournament='{tid}']")
    expect(invite).to_contain_text(name)
    invite.locator(".t-accept").click()
    expect(a.locator("#t-name")).to_have_text(name)
    expect(a.locator("#t-registered")).to_be_visible()

    # Bob finds it in the list (names are text), registers, unregisters, registers again: by keyboard
    b.click("#nav a[href='#/tournaments']")
    row = b.locator(f"#tournaments li[data-tournament='{tid}']")
    expect(row).to_contain_text("registration open")
    row.locator("a.t-open").click()
    expect(b.locator("#t-status")).to_have_text("registration open.")
    b.focus("#t-register")
    b.keyboard.press("Enter")
    expect(b.locator("#t-registered")).to_be_visible()
    expect(b.locator("#t-unregister")).to_be_focused()
    b.keyboard.press("Enter")
    expect(b.locator("#t-register")).to_be_focused()
    b.keyboard.press("Enter")
    expect(b.locator("#t-registered")).to_be_visible()
    for page in (a, b):
        expect(page.locator("#entrants li", has_text=ann)).not_to_contain_text("invited")
        expect(page.locator("#entrants li", has_text=bob)).not_to_contain_text("withdrawn")

    # started: each page is led into its game, on the tournament's page
    tournament_call(site.lobby, "StartTournament", t.StartTournamentRequest(tournament_id=tid), director)
    mid = _game_of(a)
    assert _game_of(b) == mid
    for page, other in ((a, bob), (b, ann)):
        expect(page.locator("#t-pairing")).to_contain_text(f"Round 1: you play {other}")
        expect(page.locator("#t-status")).to_have_text("running, round 1 of 2.")
    shot(b, "tournament-game-phone")
    resign_whoever_moves({a: ann, b: bob}, site.match, mid)

    # the standings move; round 2 is a button away, on the same page
    state = tournament_call(site.lobby, "GetTournament", t.GetTournamentRequest(tournament_id=tid),
                            token_of(a)).state
    for page in (a, b):
        _standings_shown(page, state)
        expect(page.locator("#t-next")).to_contain_text("Round 2: play your game against")
    a.click("#t-next")
    b.focus("#t-next")
    b.keyboard.press("Enter")
    mid2 = _game_of(a)
    assert mid2 != mid and _game_of(b) == mid2
    for page in (a, b):
        expect(page.locator("#t-status")).to_have_text("running, round 2 of 2.")
    assert a.url.endswith(f"#/tournament/{tid}") and b.url.endswith(f"#/tournament/{tid}")
    shot(a, "tournament-round-2")
    resign_whoever_moves({a: ann, b: bob}, site.match, mid2)

    # over: the lobby's final standings on both pages
    for page in (a, b):
        expect(page.locator("#t-status")).to_have_text("finished, round 2 of 2.")
        expect(page.locator("#t-pairing")).to_contain_text("The tournament is over.")
    state = tournament_call(site.lobby, "GetTournament", t.GetTournamentRequest(tournament_id=tid),
                            token_of(a)).state
    assert state.tournament.status == t.TOURNAMENT_STATUS_FINISHED
    for page in (a, b):
        _standings_shown(page, state)
        expect(page.locator("#t-games [data-round]")).to_have_count(2)
    shot(a, "tournament-over")
