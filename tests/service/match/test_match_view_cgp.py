"""match.proto's MatchView.cgp, read as a client author would with only protos/README.md: the
board agrees with the view's squares, only the viewer's own rack is filled (the seat to move
first), a spectator sees no rack, and the scores follow the racks' order."""

from __future__ import annotations

import re

from match_harness import Harness, client_move

from wordarena.v1 import match_pb2 as m


def _rows(board: str) -> list[list[str]]:
    """The README's board field: '/'-separated rows, digits = runs of empty squares."""
    out = []
    for row in board.split("/"):
        squares: list[str] = []
        for run, tile in re.findall(r"(\d+)|(\[[^\]]+\]|.)", row):
            squares += [""] * int(run) if run else [tile.strip("[]")]
        out.append(squares)
    return out


async def test_getmatch_gives_each_viewer_their_own_position_as_cgp(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, spectators_allowed=True)
    alice, bob, carol = (harness.player(srv, p) for p in ("alice", "bob", "carol"))
    first = await alice.view(mid)
    mover = (alice, bob)[first.to_move_seat]
    # A legal play found on the mover's own view, to put tiles on the board.
    await mover.submit(mid, client_move(await mover.view(mid)), first.last_seq)
    for viewer in (alice, bob):
        view = await viewer.view(mid)
        board, racks, scores, zero, *_ = view.cgp.split(" ")
        rows = _rows(board)
        assert len(rows) == view.board.rows and all(len(r) == view.board.cols for r in rows)
        placed = {(sq.square.row, sq.square.col): sq.tile.letter.lower() if sq.tile.is_blank
                  else sq.tile.letter for sq in view.board.squares if sq.HasField("tile")}
        assert placed and {(r, c): t for r, row in enumerate(rows) for c, t in enumerate(row) if t} == placed
        order = [(view.to_move_seat + k) % 2 for k in range(2)]
        mine = "".join("?" if t.is_blank else t.letter for t in view.rack.tiles)
        assert racks.split("/") == [mine if s == view.viewer_seat else "" for s in order]
        assert [int(x) for x in scores.split("/")] == [view.seats[s].score for s in order]
        assert int(zero) == view.scoreless_turns
    spectator = await carol.stub.GetMatch(m.GetMatchRequest(match_id=mid), metadata=carol.md)
    assert spectator.match.cgp.split(" ")[1] == "/"
