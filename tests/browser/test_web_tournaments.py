"""A tournament in the page: a director (over native gRPC) creates a two-round event and invites
one player, who accepts in the page's list of invitations; another finds it in the tournament list
(its second page, More: every tournament the lobby lists, in its order), registers, unregisters and
registers again (by keyboard, at 375 px). Once the director starts it, each page is led into its
game on the tournament's page; the player to move resigns; the standings update on both pages as
the lobby computes them; the second round's game opens from the same page, and after it the
tournament is over with the lobby's final standings on both pages."""

from __future__ import annotations

import time
from typing import Any

import grpc
import pytest
from google.protobuf import duration_pb2, timestamp_pb2
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


def _fill_the_first_page(lobby: str) -> None:
    """Enough tournaments for the list to need a second page (ListTournaments gives 50 a page):
    11 directors with 5 each (a player may hold 5 unfinished)."""
    for _ in range(11):
        director, _ = guest(lobby, "Dir")
        for _ in range(5):
            settings = t.TournamentSettings(
                name=unique("Filler "), rounds=1,
                game=lb.TableSettings(ruleset=c.RulesetRef(ruleset_id="classic", language="en")))
            tournament_call(lobby, "CreateTournament", t.CreateTournamentRequest(settings=settings), director)


def _all_tournaments(lobby: str, token: str) -> list[str]:
    ids: list[str] = []
    page = ""
    while True:
        res = tournament_call(lobby, "ListTournaments", t.ListTournamentsRequest(page_token=page), token)
        ids += [x.tournament_id for x in res.tournaments]
        page = res.next_page_token
        if not page:
            return ids


def test_two_players_play_a_tournament_in_the_page(pages: Pages) -> None:
    site = pages.site
    ann, bob = unique("Ann"), unique("Bob")
    a, b = pages.open(), pages.open(width=375, height=900)
    sign_in(a, ann)
    sign_in(b, bob)
    director, _ = guest(site.lobby, "Dir")
    name = unique("<b>Cup</b> ")  # markup in a name is shown as text
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
    expect(a.locator("#app b")).to_have_count(0)
    expect(a.locator("#t-registered")).to_be_visible()

    # Bob declines an invitation to another event: gone from his list and from the lobby's
    other_settings = t.TournamentSettings(name=unique("Other "), rounds=1, game=settings.game)
    create = t.CreateTournamentRequest(settings=other_settings)
    other = tournament_call(site.lobby, "CreateTournament", create, director).tournament.tournament_id
    bob_id = b.evaluate("JSON.parse(localStorage.getItem('wordarena.me')).playerId")
    tournament_call(site.lobby, "AddEntrant", t.AddEntrantRequest(tournament_id=other, player_id=bob_id),
                    director)
    b.click("#nav a[href='#/tournaments']")
    b.locator(f"#invitations li[data-tournament='{other}'] .t-decline").click()
    expect(b.locator(f"#invitations li[data-tournament='{other}']")).to_have_count(0)
    request = t.ListTournamentsRequest(invited=True)
    assert not tournament_call(site.lobby, "ListTournaments", request, token_of(b)).tournaments

    # Bob finds it in the list, page after page (More) until every tournament the lobby lists is
    # there; then registers, unregisters, registers again: by keyboard
    _fill_the_first_page(site.lobby)
    everyone = _all_tournaments(site.lobby, director)
    assert len(everyone) > 50
    b.click("#nav a[href='#/']")
    b.click("#nav a[href='#/tournaments']")
    rows = b.locator("#tournaments li[data-tournament]")
    expect(rows).to_have_count(50)
    b.click("#t-more")
    expect(rows).to_have_count(len(everyone))
    expect(b.locator("#t-more")).to_be_hidden()
    assert rows.evaluate_all("rs => rs.map(r => r.dataset.tournament)") == everyone
    row = b.locator(f"#tournaments li[data-tournament='{tid}']")
    expect(row.locator("a.t-open")).to_have_text(name)
    expect(b.locator("#tournaments b")).to_have_count(0)
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
    names = {e.entrant_id: e.player.display_name for e in state.entrants}
    for page in (a, b):
        _standings_shown(page, state)
        expect(page.locator("#t-games [data-round]")).to_have_count(2)
        for g in state.games:
            first, second = names[g.first_entrant_id], names[g.second_entrant_id]
            won = first if g.first_result == t.GAME_SIDE_WIN else second
            assert g.first_result in (t.GAME_SIDE_WIN, t.GAME_SIDE_LOSS)
            expect(page.locator(f"#t-games [data-round='{g.round}'] li")).to_have_text(
                f"{first} {g.first_score} – {g.second_score} {second}: {won} won")
    shot(a, "tournament-over")


def test_a_player_checks_in_when_the_window_is_open_and_is_told_when_it_is_not(pages: Pages) -> None:
    """Check-in: the button on a tournament with a check-in window; the server says whether the
    window is open (its refusal shown as it words it), and the entrant is checked in."""
    site = pages.site
    cy = unique("Cy")
    page = pages.open(width=375, height=800)
    sign_in(page, cy)
    director, _ = guest(site.lobby, "Dir")
    now = int(time.time())
    ids = {}
    for when, starts_in in (("open", 30 * 60), ("later", 3 * 3600)):
        settings = t.TournamentSettings(
            name=unique(f"Check {when} "), rounds=1,
            game=lb.TableSettings(ruleset=c.RulesetRef(ruleset_id="classic", language="en")),
            start_time=timestamp_pb2.Timestamp(seconds=now + starts_in),
            check_in_window=duration_pb2.Duration(seconds=3600))
        create = t.CreateTournamentRequest(settings=settings)
        ids[when] = tournament_call(site.lobby, "CreateTournament", create, director).tournament.tournament_id

    def open_and_register(when: str) -> None:
        page.click("#nav a[href='#/tournaments']")
        page.locator(f"#tournaments li[data-tournament='{ids[when]}'] a.t-open").click()
        page.click("#t-register")
        expect(page.locator("#t-registered")).to_be_visible()

    # not open yet: the server's refusal, as it words it
    open_and_register("later")
    try:
        tournament_call(site.lobby, "CheckIn", t.CheckInRequest(tournament_id=ids["later"]), token_of(page))
    except grpc.RpcError as exc:
        refusal = exc.details()
    else:
        raise AssertionError("the lobby checked in outside the window")
    page.click("#t-checkin")
    expect(page.locator("#t-error")).to_have_text(refusal)
    expect(page.locator("#t-checkin")).to_be_visible()

    # open: checked in, as the lobby says
    open_and_register("open")
    page.focus("#t-checkin")
    page.keyboard.press("Enter")
    expect(page.locator("#t-checked-in")).to_have_text("Checked in.")
    request = t.GetTournamentRequest(tournament_id=ids["open"])
    state = tournament_call(site.lobby, "GetTournament", request, token_of(page)).state
    assert [e.checked_in for e in state.entrants] == [True]
    shot(page, "tournament-checked-in-phone")
