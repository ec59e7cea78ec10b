"""The game screen's counts in the right number: ``1 tile`` on a seat's line and in the bag
(issue 41, item 9; drawn from a MatchView as a server sends it)."""

from __future__ import annotations

import pytest

from wordarena.clients.cli import render
from wordarena.v1 import common_pb2, match_pb2


@pytest.mark.parametrize("count", [1, 2])
def test_seat_and_bag_counts_agree_with_their_number(count: int) -> None:
    view = match_pb2.MatchView(bag_count=count, turn_number=3)
    view.seats.add(index=0, rack_count=count, player=common_pb2.Player(display_name="Ann"))
    text = render.seats_renderable(view).plain + render.status_line(view).plain
    noun = "tile" if count == 1 else "tiles"
    assert f"{count} {noun} " in text and f"{count} {noun} in the bag" in text, text
    assert "1 tiles" not in text
