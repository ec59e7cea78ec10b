"""War of Words in the page after a Nuclear Bomb: the board irradiated as the view says (every
letter worth 1: no face value shown on the rack or the board), a play's preview as the server
gives it (the page scores nothing itself). A known
deal: this module starts its own ``wordarena serve`` with ``--deal-seed`` (every match of that
server is dealt from the seed), one that gives the table's first seat a Nuclear Bomb and the first
turn."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from match_harness import client_moves, expected_notation, play_move
from web_helpers import (
    Pages,
    Site,
    create_table,
    expect,
    match_id,
    serving,
    shot,
    sign_in,
    square_name,
    unique,
    view_of,
)

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m
from wordarena.v1 import match_pb2_grpc

pytestmark = pytest.mark.slow

#: warofwords/en, two seats: the first seat moves first holding A I O E Q E T and a Nuclear Bomb
DEAL_SEED = 119


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A ``wordarena serve`` of its own dealing every match from DEAL_SEED (as conftest's ``site``)."""
    with serving(tmp_path_factory.mktemp("serve-seeded"), "--deal-seed", str(DEAL_SEED)) as running:
        yield running


def _preview(page: Any, address: str, mid: str, placements: Any) -> m.PreviewPlayResponse:
    token = page.evaluate("localStorage.getItem('wordarena.token')")
    with grpc.insecure_channel(address) as channel:
        return match_pb2_grpc.MatchServiceStub(channel).PreviewPlay(
            m.PreviewPlayRequest(match_id=mid, placements=placements),
            metadata=[("authorization", f"Bearer {token}")], timeout=30)


def _shown_as_the_view_says(page: Any, view: m.MatchView) -> None:
    expect(page.locator("#rack button")).to_have_count(len(view.rack.tiles))
    for i, t in enumerate(view.rack.tiles):
        sub = page.locator(f"#rack button[data-rack='{i}'] sub")
        if t.action or t.is_blank or t.is_wildcard:
            expect(sub).to_have_count(0)
        else:
            expect(sub).to_have_text(str(t.value))


def test_an_irradiated_board_is_said_and_shows_no_face_values(browser: Any, seeded: Site) -> None:
    pages = Pages(browser, seeded)
    try:
        a = pages.open()
        sign_in(a, unique("Nia"))
        create_table(a, "warofwords", bots=1)
        mid = match_id(a)
        expect(a.locator("#status")).to_have_attribute("data-turn", "mine", timeout=60_000)
        view = view_of(a, seeded.match)
        bomb = c.ACTION_KIND_NUCLEAR_BOMB
        nuke = next((i for i, t in enumerate(view.rack.tiles) if t.action == bomb), None)
        assert nuke is not None, f"the deal of seed {DEAL_SEED} changed: {view.rack}"
        expect(a.locator("#irradiated")).to_be_hidden()
        _shown_as_the_view_says(a, view)

        # the bomb, on a plain empty square; the preview is PreviewPlay's answer
        target = next(s for s in view.board.squares if not s.HasField("tile") and not s.hidden
                      and s.scenery == c.SCENERY_KIND_UNSPECIFIED and not s.HasField("premium")
                      and s.terrain == c.TERRAIN_KIND_UNSPECIFIED and not s.is_star)
        where = square_name(target.square.row, target.square.col)
        a.locator(f"#rack button[data-rack='{nuke}']").click()
        a.locator(f"#board [data-sq={where}]").click()
        said = _preview(a, seeded.match, mid, [c.Placement(square=target.square, action=bomb)])
        if said.legal:
            expect(a.locator("#preview")).to_have_text(re.compile(rf"^{said.breakdown.total} points"))
        shown = a.locator("#moves li").count()
        a.click("#play")
        expect(a.locator("#error")).to_have_text("")
        expect(a.locator("#moves li")).not_to_have_count(shown, timeout=60_000)
        expect(a.locator("#status")).to_have_attribute("data-turn", "mine", timeout=60_000)

        view = view_of(a, seeded.match)
        assert view.board.irradiated, "the Nuclear Bomb did not irradiate the board"
        expect(a.locator("#irradiated")).to_be_visible()
        expect(a.locator("#irradiated")).to_have_text(
            "The board is irradiated (Nuclear Bomb): every letter is worth 1 point.")
        # every letter is worth 1 now: no face value on the rack nor on the board's tiles (the
        # view's rack still gives face values: it is the board's flag the page follows)
        expect(a.locator("#rack button")).to_have_count(len(view.rack.tiles))
        expect(a.locator("#rack button sub")).to_have_count(0)
        on_board = a.locator("#board .tile sub")
        expect(on_board).not_to_have_count(0)  # the bot's answer
        assert a.evaluate("[...document.querySelectorAll('#board .tile sub')]"
                          ".every((e) => e.offsetParent === null)"), "a face value shows on the board"
        q = next(i for i, t in enumerate(view.rack.tiles) if t.letter == "Q")
        expect(a.locator(f"#rack button[data-rack='{q}']")).to_have_attribute("aria-label", "Q")

        # a word's preview on the irradiated board: the server's points
        moves = client_moves(view)
        assert moves, "no word to play after the bomb"
        move = moves[0]
        a.fill("#typed", expected_notation(view, move.placements(), move.across))
        said = _preview(a, seeded.match, mid, play_move(move.to_play(view.viewer_seat)).play.placements)
        assert said.legal, said
        expect(a.locator("#preview")).to_have_text(re.compile(rf"^{said.breakdown.total} points"))
        shot(a, "warofwords-irradiated")
    finally:
        for ctx in pages.contexts:
            ctx.close()
    assert not pages.errors, f"console errors: {pages.errors}"
