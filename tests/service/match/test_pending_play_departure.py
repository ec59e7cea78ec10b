"""common.proto's Event.board_changes: "Applying them keeps a client's board in sync without
calling GetMatch." A Word Tiles player who resigns while its play waits for a decision takes the
play back off the board; the resignation event must say so for the squares the play covered, or a
client following the stream keeps showing letters that are no longer there."""

from __future__ import annotations

from match_harness import Harness

from wordarena.v1 import common_pb2 as c


async def test_resigning_with_a_pending_play_empties_its_squares_in_the_event(harness: Harness) -> None:
    srv = await harness.start()
    names = ("alice", "bob", "carol")
    mid = await harness.create(srv, ruleset="wordtiles", players=names, seed=7)
    players = [harness.player(srv, n) for n in names]
    view = await players[0].view(mid)
    mover = players[view.to_move_seat]
    mine = await mover.view(mid)
    letters = [t.letter for t in mine.rack.tiles if not t.is_blank][:2]
    centre = mine.board.rows // 2
    squares = [(centre, centre + i) for i in range(2)]
    played = await mover.submit(mid, c.Move(play=c.PlayMove(placements=[
        c.Placement(square=c.Square(row=r, col=col), letter=ch) for (r, col), ch in zip(squares, letters,
                                                                                       strict=True)])),
        mine.last_seq)
    pending = {(b.square.row, b.square.col) for ev in played.events for b in ev.board_changes
               if b.HasField("tile") and b.pending}
    assert pending == set(squares)  # the client saw the play land, pending

    left = await mover.submit(mid, c.Move(resign=c.ResignMove()), max(ev.seq for ev in played.events))
    resigned = [ev for ev in left.events if ev.WhichOneof("kind") == "player_left"]
    assert resigned, [ev.WhichOneof("kind") for ev in left.events]
    cleared = {(b.square.row, b.square.col) for ev in left.events for b in ev.board_changes
               if not b.HasField("tile")}
    assert cleared >= set(squares), "the resignation's board changes leave the pending play on the board"
    # And the board the others get from GetMatch agrees.
    other = await players[(view.to_move_seat + 1) % 3].view(mid)
    held = {(s.square.row, s.square.col) for s in other.board.squares if s.HasField("tile")}
    assert not held & set(squares)
