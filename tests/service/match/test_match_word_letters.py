"""``WordScore.letters`` through gRPC: every word of a breakdown lists its letters, a blank's in
lower case (common.proto), in PreviewPlay, in the TurnPlayed event and in Hindsight."""

from __future__ import annotations

from match_harness import Harness, client_moves, play_move

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m


def at(sq: c.Square) -> tuple[int, int]:
    return sq.row, sq.col


def spelled(w: c.WordScore) -> str:
    return "".join(ls.letter for ls in w.letters)


async def test_a_blank_reads_in_lower_case_in_the_letters_of_every_breakdown(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=3)  # Alice's first rack holds a blank
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    move = next(mv for mv in client_moves(view) if any(blank for _, _, blank in mv.tiles))
    placements = play_move(move.to_play(0)).play.placements
    blank = next(p for p in placements if p.is_blank)
    preview = await alice.stub.PreviewPlay(
        m.PreviewPlayRequest(match_id=mid, placements=placements), metadata=alice.md)
    main = preview.breakdown.words[0]
    assert spelled(main).upper() == main.word and len(main.letters) == len(main.word)
    on_blank = next(ls for ls in main.letters if at(ls.square) == at(blank.square))
    assert on_blank.letter == blank.letter.lower() and on_blank.base_value == 0
    assert all(ls.letter.isupper() for ls in main.letters if at(ls.square) != at(blank.square))
    assert sum(ls.points for ls in main.letters) == main.letter_total

    played = await alice.submit(mid, c.Move(play=c.PlayMove(placements=placements)), view.last_seq)
    turn = next(ev.turn_played for ev in played.events if ev.HasField("turn_played"))
    assert [spelled(w) for w in turn.breakdown.words] == [spelled(w) for w in preview.breakdown.words]

    hindsight = await alice.stub.Hindsight(
        m.HindsightRequest(match_id=mid, turn_seq=played.events[0].seq), metadata=alice.md)
    assert spelled(hindsight.played.breakdown.words[0]) == spelled(main)
    assert all(len(w.letters) == len(w.word) for p in hindsight.best for w in p.breakdown.words)
