"""The game page's tools, each shown as the match server answers it: Tile Bag, Hindsight, Word
Strength and Define (analysis.ts), and the record download (record.ts), a .gcg file during the game
and at its end. The oracle is the same RPC called over native gRPC with the token the page holds,
never the page's own arithmetic. Also: a resignation cancelled at its confirmation leaves the game
running; a watcher's chat goes to the watchers' channel, which the player does not see while the
game runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest
from match_harness import client_moves, expected_notation, play_move
from web_helpers import (
    ARTIFACTS,
    Pages,
    best_play,
    create_table,
    expect,
    match_id,
    shot,
    sign_in,
    unique,
    view_of,
)

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m
from wordarena.v1 import match_pb2_grpc

pytestmark = pytest.mark.slow


def _native(page: Any, address: str, method: str, request: Any) -> Any:
    """``MatchService.<method>(request)`` over native gRPC with the token the page keeps."""
    token = page.evaluate("localStorage.getItem('wordarena.token')")
    with grpc.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        return getattr(stub, method)(request, metadata=[("authorization", f"Bearer {token}")], timeout=60)


def _tile_name(t: c.Tile) -> str:
    """The tile as the page names it in the Tile Bag (the test's own table, not the page's code)."""
    if t.action:
        name = c.ActionKind.Name(t.action).removeprefix("ACTION_KIND_").lower().replace("_", " ")
        return f"{name} ×{t.action_factor}" if t.action_factor else name
    return "?" if t.is_blank else "*" if t.is_wildcard else t.letter


def _play_typed(page: Any, notation: str) -> None:
    page.fill("#typed", notation)
    page.press("#typed", "Enter")


def _bot_game(pages: Pages, name: str, width: int = 1100) -> tuple[Any, str]:
    page = pages.open(width=width, height=900)
    sign_in(page, unique(name))
    create_table(page, "classic", bots=1)
    mid = match_id(page)
    expect(page.locator("#status")).to_have_attribute("data-turn", "mine", timeout=60_000)
    _moves_shown(page, pages.site.match)
    return page, mid


def _moves_shown(page: Any, address: str) -> int:
    """Waits for the move list to show every turn the player's view counts (the bot may have
    moved first); their number."""
    turns = view_of(page, address).turn_number - 1
    expect(page.locator("#moves li")).to_have_count(turns)
    return turns


def test_tile_bag_hindsight_word_strength_and_define_show_the_servers_answers(pages: Pages) -> None:
    """At a phone's width, by keyboard: every tool's answer on the page is the RPC's answer."""
    site = pages.site
    a, mid = _bot_game(pages, "Tia", width=375)

    # Tile Bag, by keyboard (focus, Enter): every unseen kind and its count as TileBag gives them
    a.locator("#tool-bag").focus()
    a.keyboard.press("Enter")
    expect(a.locator("#tool-out")).to_have_attribute("data-state", "done")
    bag = _native(a, site.match, "TileBag", m.TileBagRequest(match_id=mid))
    summary = a.locator("#bag-summary")
    expect(summary).to_have_attribute("data-unseen", str(bag.unseen_count))
    expect(summary).to_have_text(f"Unseen {bag.unseen_count}: {bag.bag_count} in the bag, "
                                 f"{bag.opponent_rack_count} on other racks.")
    items = a.locator("#bag-tiles li")
    expect(items).to_have_count(len(bag.unseen))
    shown = [(items.nth(i).get_attribute("data-tile"), int(items.nth(i).get_attribute("data-count") or 0))
             for i in range(len(bag.unseen))]
    assert shown == [(_tile_name(tc.tile), tc.count) for tc in bag.unseen]

    # Hindsight before any turn of this player: the server's refusal, as text
    a.keyboard.press("Tab")
    expect(a.locator("#tool-hindsight")).to_be_focused()
    a.keyboard.press("Enter")
    expect(a.locator("#tool-out")).to_have_attribute("data-state", "error")
    try:
        _native(a, site.match, "Hindsight", m.HindsightRequest(match_id=mid, limit=10))
        raise AssertionError("Hindsight answered before the player's first turn")
    except grpc.RpcError as err:
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION  # type: ignore[attr-defined]
    expect(a.locator("#tool-error")).not_to_have_text("")

    # Word Strength of a play placed (typed) but not played: not the best one, so that it ranks
    view = view_of(a, site.match)
    moves = client_moves(view)
    assert len(moves) > 3, "the opening rack makes few plays"
    judged = next(mv for mv in moves if mv.score < moves[0].score)
    a.fill("#typed", expected_notation(view, judged.placements(), judged.across))
    expect(a.locator("#preview")).to_contain_text(f"{judged.score} points")
    a.locator("#tool-strength").focus()
    a.keyboard.press("Enter")
    expect(a.locator("#tool-out")).to_have_attribute("data-tool", "strength")
    expect(a.locator("#tool-out")).to_have_attribute("data-state", "done")
    placements = play_move(judged.to_play(view.viewer_seat)).play.placements
    strength = _native(a, site.match, "WordStrength",
                       m.WordStrengthRequest(match_id=mid, placements=placements))
    assert strength.valid and strength.rank > 1
    verdict = a.locator("#strength-verdict")
    expect(verdict).to_have_attribute("data-rank", str(strength.rank))
    expect(verdict).to_have_attribute("data-count", str(strength.legal_play_count))
    expect(verdict).to_have_attribute("data-best", str(strength.best_score))
    expect(verdict).to_contain_text(f"Valid: {strength.breakdown.total} points")
    expect(verdict).to_contain_text(f"rank {strength.rank} of {strength.legal_play_count}")
    expect(a.locator("#strength-best")).to_have_attribute("data-notation", strength.best.notation)
    expect(a.locator("#strength-best")).to_have_attribute("data-score", str(strength.best.breakdown.total))

    # the play played; after the bot's answer, Hindsight of it by mouse
    shown = a.locator("#moves li").count()
    a.locator("#typed").press("Enter")
    expect(a.locator("#moves li")).to_have_count(shown + 2, timeout=60_000)  # the play, the bot's answer
    expect(a.locator("#status")).to_have_attribute("data-turn", "mine")
    a.click("#tool-hindsight")
    expect(a.locator("#tool-out")).to_have_attribute("data-state", "done")
    hind = _native(a, site.match, "Hindsight", m.HindsightRequest(match_id=mid, limit=10))
    # the same word for the same score and leave at several squares is one row, in the server's order
    grouped: dict[tuple[str, int, tuple[str, ...]], list[str]] = {}
    for best in hind.best:
        square, _, word = best.notation.partition(" ")
        leave = tuple(_tile_name(t) for t in best.leave)
        grouped.setdefault((word, best.breakdown.total, leave), []).append(square)
    rows = a.locator("#hindsight-best li")
    expect(rows).to_have_count(len(grouped))
    (word, score, _), squares = next(iter(grouped.items()))
    expect(rows.first).to_have_attribute("data-notation", hind.best[0].notation)
    expect(rows.first).to_have_attribute("data-score", str(hind.best[0].breakdown.total))
    expect(rows.first).to_contain_text(f"{' / '.join(squares)} {word} {score}")
    assert hind.best[0].breakdown.total == moves[0].score  # the generator's best, the server's best
    expect(a.locator("#hindsight-played")).to_have_attribute("data-rank", str(hind.played_rank))
    expect(a.locator("#hindsight-played")).to_contain_text(
        f"You played {hind.played.notation} for {hind.played.breakdown.total}")
    expect(a.locator("#hindsight-count")).to_have_attribute("data-count", str(hind.legal_play_count))
    assert a.evaluate("document.documentElement.scrollWidth") <= 375, "the tools scroll sideways at 375 px"
    shot(a, "tools-hindsight-phone")

    # Define, typed and sent with Enter: the senses the Define RPC gives, in its order
    a.locator("#define-word").focus()
    a.keyboard.type("house")
    a.keyboard.press("Enter")
    expect(a.locator("#tool-out")).to_have_attribute("data-tool", "define")
    expect(a.locator("#tool-out")).to_have_attribute("data-state", "done")
    defined = _native(a, site.match, "Define", m.DefineRequest(word="house", language="en"))
    senses = a.locator("#define-list li")
    expect(senses).to_have_count(len(defined.definitions))
    first = defined.definitions[0]
    expect(senses.first).to_contain_text(f"{first.part_of_speech}: {first.text}")
    expect(a.locator("#define-head")).to_have_text(f"{defined.word} ({defined.source})")
    # a word the dictionary does not hold: the server's refusal
    a.fill("#define-word", "qzxvw")
    a.click("#define-go")
    expect(a.locator("#tool-out")).to_have_attribute("data-state", "error")
    try:
        _native(a, site.match, "Define", m.DefineRequest(word="qzxvw", language="en"))
        raise AssertionError("Define found qzxvw")
    except grpc.RpcError as err:
        assert err.code() == grpc.StatusCode.NOT_FOUND  # type: ignore[attr-defined]
        expect(a.locator("#tool-error")).to_have_text(err.details())  # type: ignore[attr-defined]
    assert a.evaluate("document.documentElement.scrollWidth") <= 375
    shot(a, "tools-define-phone")


def _download(page: Any, name: str) -> str:
    with page.expect_download() as info:
        page.click("#record")
    download = info.value
    assert download.suggested_filename.endswith(".gcg"), download.suggested_filename
    ARTIFACTS.mkdir(exist_ok=True)
    target = ARTIFACTS / name
    download.save_as(str(target))
    return Path(target).read_text(encoding="utf-8")


def test_the_record_downloads_as_the_servers_gcg_during_and_after_the_game(pages: Pages) -> None:
    """The .gcg file saved is GetMatchRecord's text: during the game (no racks) and once the game
    is over (every rack); a resignation cancelled at its confirmation changes nothing."""
    site = pages.site
    a, mid = _bot_game(pages, "Rex")
    shown = a.locator("#moves li").count()
    play = best_play(view_of(a, site.match))
    _play_typed(a, play[1] if play else "pass")
    expect(a.locator("#moves li")).to_have_count(shown + 2, timeout=60_000)  # the play, the bot's answer
    expect(a.locator("#status")).to_have_attribute("data-turn", "mine")

    running = _download(a, "record-running.gcg")
    record = _native(a, site.match, "GetMatchRecord", m.GetMatchRecordRequest(match_id=mid))
    assert record.status == m.MATCH_STATUS_IN_PROGRESS and not record.racks_shown
    assert running == record.gcg
    expect(a.locator("#record-note")).to_contain_text(f"to event {record.last_seq}")

    # Resign, cancelled at the confirmation: nothing is sent
    asked: list[str] = []

    def dismiss(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    a.once("dialog", dismiss)
    a.click("#resign")
    assert asked and "Resign" in asked[0]
    # a later answer from the server (the Tile Bag), then the game is seen to run on
    a.click("#tool-bag")
    expect(a.locator("#tool-out")).to_have_attribute("data-state", "done")
    view = view_of(a, site.match)
    assert view.status == m.MATCH_STATUS_IN_PROGRESS and not view.HasField("result")
    expect(a.locator("#moves li", has_text="resigned")).to_have_count(0)
    expect(a.locator("#status")).to_have_attribute("data-turn", "mine")
    expect(a.locator("#summary")).to_be_hidden()

    # Resign, confirmed: the game is over, and the record now has every rack
    a.once("dialog", lambda d: d.accept())
    a.click("#resign")
    expect(a.locator("#summary")).to_be_visible()
    expect(a.locator("#status")).to_have_text("Game over.")
    final = _download(a, "record-final.gcg")
    record = _native(a, site.match, "GetMatchRecord", m.GetMatchRecordRequest(match_id=mid))
    assert record.status == m.MATCH_STATUS_FINISHED and record.racks_shown
    assert final == record.gcg
    assert final != running
    expect(a.locator("#record-note")).to_contain_text("finished game")
    shot(a, "record-game-over")


def test_a_watchers_chat_reaches_players_only_once_the_game_is_over(pages: Pages) -> None:
    """A watcher writes in the watchers' channel: the watcher's page shows the line marked as
    such; the players' pages do not while the game runs, and the winner's page shows it, in its
    place, once the game is over (ListLog)."""
    site = pages.site
    ann, bob, watcher = unique("Ann"), unique("Bob"), unique("Wat")
    a, b, w = pages.open(), pages.open(), pages.open()
    for page, name in ((a, ann), (b, bob), (w, watcher)):
        sign_in(page, name)
    create_table(a, "classic")
    b.locator("li.table", has_text=ann).locator("button.join").click()
    mid = match_id(a)
    assert match_id(b) == mid
    w.goto(f"{site.url}#/match/{mid}")
    expect(w.locator("#board .sq")).to_have_count(225)
    expect(w.locator("#rack")).to_have_count(0)
    expect(w.locator("#tool-bag")).to_have_count(0)  # a player's tools: the server refuses watchers
    expect(w.locator("#define-word")).to_have_count(1)
    expect(w.locator("aside h2", has_text="Chat (watchers' channel)")).to_have_count(1)

    said = "watching <i>closely</i>"
    w.fill("#chat-input", said)
    w.press("#chat-input", "Enter")
    expect(w.locator("#chat li.obs")).to_have_text(f"{watcher} (watching): {said}")
    # a player writes after it: everyone sees the player's line; no player sees the watcher's
    a.fill("#chat-input", "hello")
    a.press("#chat-input", "Enter")
    for page in (a, b, w):
        expect(page.locator("#chat li").last).to_have_text(f"{ann}: hello")
    for page in (a, b):
        expect(page.locator("#chat li")).to_have_count(1)

    # Bob resigns: the game is over, and Ann's page shows the watchers' channel, in its place
    b.once("dialog", lambda d: d.accept())
    b.click("#resign")
    expect(a.locator("#summary")).to_be_visible()
    expect(a.locator("#chat li")).to_have_count(2)
    expect(a.locator("#chat li").first).to_have_text(f"{watcher} (watching): {said}")
    expect(a.locator("#chat li.obs")).to_have_count(1)
    for page in (a, w):
        expect(page.locator("#chat i")).to_have_count(0)
    # a reload shows it once
    a.reload()
    expect(a.locator("#notice")).to_contain_text("Reconnected")
    expect(a.locator("#chat li")).to_have_count(2)
