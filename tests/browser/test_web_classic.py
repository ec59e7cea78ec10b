"""A whole classic game played through the page by two browser contexts, watched by a third: the
table opened and joined in the lobby's live list; the first play placed by clicking rack tiles and
squares, the second by dragging the tiles onto the squares, each with the server's preview of its
score, the rest typed (``8H WORD``); every play reaching the other two boards and move lists; chat
with markup shown as text; a reload mid-game resumes; the game-over summary on all three pages.
The plays are the engine's best for the rack each player's own view shows (fetched over native
gRPC with the page's token)."""

from __future__ import annotations

import re

import pytest
from web_helpers import (
    Pages,
    best_play,
    create_table,
    expect,
    match_id,
    shot,
    sign_in,
    square_name,
    unique,
    view_of,
)

from wordarena.v1 import match_pb2 as m

pytestmark = pytest.mark.slow


def test_two_guests_play_a_whole_classic_game_and_a_third_watches(pages: Pages) -> None:
    site = pages.site
    ann, bob, cy = unique("Ann"), unique("Bob"), unique("Cy")
    a, b, c = pages.open(), pages.open(), pages.open()
    answers: list[str] = []  # what the next prompt is answered (the letter of a blank)

    def on_dialog(dialog: object) -> None:
        if answers and dialog.type == "prompt":  # type: ignore[attr-defined]
            dialog.accept(answers.pop(0))  # type: ignore[attr-defined]
        else:
            pages.dialogs.append(dialog.message)  # type: ignore[attr-defined]
            dialog.dismiss()  # type: ignore[attr-defined]

    for page in (a, b, c):
        page.on("dialog", on_dialog)
    sign_in(a, ann)
    sign_in(b, bob)
    sign_in(c, cy)

    create_table(a, "classic")
    row = b.locator("li.table", has_text=ann)
    expect(row).to_contain_text("open, 1 free")
    row.locator("button.join").click()
    mid = match_id(a)
    assert match_id(b) == mid
    c.locator("li.table", has_text=ann).locator("button.watch").click()
    assert match_id(c) == mid
    for page in (a, b, c):
        expect(page.locator("#board .sq")).to_have_count(225)
    expect(c.locator("#rack")).to_have_count(0)  # a spectator has no rack

    players = {view_of(p, site.match).viewer_seat: (p, name) for p, name in ((a, ann), (b, bob))}
    turns = 0
    while True:
        view = view_of(a, site.match)
        if view.status == m.MATCH_STATUS_FINISHED:
            break
        mover, name = players[view.to_move_seat]
        others = [p for p in (a, b, c) if p is not mover]
        expect(mover.locator("#status")).to_have_attribute("data-turn", "mine")
        view = view_of(mover, site.match)
        play = best_play(view)
        if play is None:
            mover.fill("#typed", "pass")
            mover.press("#typed", "Enter")
            line = f"{name} passed"
        else:
            move, notation = play
            if turns in (0, 1):
                # by mouse: a rack tile clicked, then its square (first play), or dragged onto it
                # (second); the preview is the server's score
                for t in move.placements():
                    letter = "?" if t.blank else t.letter
                    tile = mover.locator(f"#rack button[data-letter='{letter}']:not([disabled])").first
                    square = mover.locator(f"#board [data-sq={square_name(t.row, t.col)}]")
                    if t.blank:
                        answers.append(t.letter)
                    if turns == 0:
                        tile.click()
                        square.click()
                    else:
                        tile.drag_to(square)
                    expect(square.locator(".tile.tentative")).to_have_count(1)
                expect(mover.locator("#preview")).to_contain_text(f"{move.score} points")
                mover.click("#play")
            else:
                mover.fill("#typed", notation)
                expect(mover.locator("#preview")).to_contain_text(f"{move.score} points")
                mover.press("#typed", "Enter")
            line = f"{name}: {notation} for {move.score}"
            for page in others:
                expect(page.locator("#moves li", has_text=line)).to_have_count(1)
                for t in move.placements():
                    expect(page.locator(f"#board [data-sq={square_name(t.row, t.col)}] .tile")).to_have_text(
                        re.compile("^" + (t.letter.lower() if t.blank else t.letter)))
        for page in others:
            expect(page.locator("#moves li", has_text=line)).not_to_have_count(0)
        turns += 1

        if turns == 2:
            markup = "<script>alert(1)</script> <b>bold</b>"
            a.fill("#chat-input", markup)
            a.press("#chat-input", "Enter")
            for page in (b, c):
                expect(page.locator("#chat li").last).to_have_text(f"{ann}: {markup}")
                expect(page.locator("#chat b, #chat script")).to_have_count(0)
        if turns == 4:
            shot(a, "classic")
            moves_before = b.locator("#moves li").count()
            b.reload()
            expect(b.locator("#notice")).to_contain_text("Reconnected")
            expect(b.locator("#moves li")).to_have_count(moves_before)
            on_board = sum(1 for sq in view_of(b, site.match).board.squares if sq.HasField("tile"))
            expect(b.locator("#board .tile")).to_have_count(on_board)
        assert turns < 80, "the game did not end"

    for page in (a, b, c):
        expect(page.locator("#summary")).to_be_visible()
        expect(page.locator("#status")).to_have_text("Game over.")
    final = view_of(a, site.match)
    winners = [players[s][1] for s in final.result.winner_seats]
    expect(c.locator("#winner")).to_contain_text(" and ".join(winners))
    shot(c, "classic-over")
    assert turns >= 6
    assert not pages.dialogs, f"a dialog opened: {pages.dialogs}"
