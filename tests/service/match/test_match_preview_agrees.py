"""PreviewPlay agrees with SubmitTurn over real gRPC on loopback: for about fifty plays, legal and
illegal, the preview's verdict, rule and score are what submitting the same play gives — read
only from what a client receives (the SubmitTurn answer, its error details, GetMatch)."""

from __future__ import annotations

import random

import grpc
from match_harness import Harness, Player, violation_of

from wordarena.engine.movegen import generate_moves
from wordarena.engine.placement import Placement
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m

PLAYS = 50


def _pbs(placements: list[Placement]) -> list[c.Placement]:
    return [c.Placement(square=c.Square(row=p.row, col=p.col), letter=p.letter, is_blank=p.blank)
            for p in placements]


def _candidate(rng: random.Random, rack: list[str], board_size: int, moves: list) -> list[Placement]:
    """A generated move, or one bent to break a rule (off the line, a gap, a tile not on the
    rack, letters shuffled into a non-word, rack tiles scattered somewhere)."""
    base = list(rng.choice(moves).placements()) if moves else []
    kind = rng.choice(["legal", "legal", "legal", "shift", "gap", "not-on-rack", "shuffle",
                       "scatter"])
    if kind == "shift" and len(base) > 1:
        p = base[-1]
        base[-1] = Placement(min(board_size - 1, p.row + 1), min(board_size - 1, p.col + 1),
                             p.letter, p.blank)
    elif kind == "gap" and len(base) > 2:
        del base[1]
    elif kind == "not-on-rack" and base:
        missing = [ch for ch in "QZXJKVWY" if ch not in rack] or ["Q"]
        base[0] = Placement(base[0].row, base[0].col, rng.choice(missing))
    elif kind == "shuffle" and base:
        letters = [p.letter for p in base]
        rng.shuffle(letters)
        base = [Placement(p.row, p.col, ch, p.blank) for p, ch in zip(base, letters, strict=True)]
    elif kind == "scatter":
        tiles = [t for t in rack if t != "?"]
        rng.shuffle(tiles)
        r, col = rng.randrange(board_size), rng.randrange(board_size - 3)
        base = [Placement(r, col + k, t) for k, t in enumerate(tiles[: rng.randint(1, 4)])]
    return base


async def _submit(player: Player, mid: str, placements: list[Placement],
                  seq: int) -> tuple[bool, str, int]:
    """(accepted, rule code name, points) of submitting the play, as the client sees it."""
    try:
        r = await player.submit(mid, c.Move(play=c.PlayMove(placements=_pbs(placements))), seq)
    except grpc.aio.AioRpcError as err:
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION, err.details()
        v = violation_of(err)
        assert v is not None
        return False, v.code_name, 0
    played = [ev.turn_played for ev in r.events if ev.HasField("turn_played")]
    assert len(played) == 1
    return True, "", played[0].points


async def test_preview_names_the_rule_and_score_that_submitting_gives(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=3)
    players = {0: harness.player(srv, "alice"), 1: harness.player(srv, "bob")}
    rt = srv.manager.matches[mid]
    rng = random.Random("preview-agrees")
    outcomes: set[tuple[bool, str]] = set()
    for _ in range(PLAYS):
        view = await players[0].view(mid)
        if view.HasField("result"):
            break
        seat = view.to_move_seat
        player = players[seat]
        mine = await player.view(mid)
        rack = ["?" if t.is_blank else t.letter for t in mine.rack.tiles]
        # the candidate plays come from the move generator; the expected answers do not
        placements = _candidate(rng, rack, 15, generate_moves(rt.state, seat))
        if not placements:
            break
        preview = await player.stub.PreviewPlay(
            m.PreviewPlayRequest(match_id=mid, placements=_pbs(placements)), metadata=player.md)
        submitted = await _submit(player, mid, placements, mine.last_seq)
        where = f"seq {mine.last_seq}: {placements}"
        assert preview.legal == submitted[0], where
        assert preview.violation.code_name == submitted[1], where
        if submitted[0]:
            assert preview.breakdown.total == submitted[2], where
            # common.proto: WordScore.letters, one per letter of the word, adding up to its total.
            for w in preview.breakdown.words:
                assert "".join(ls.letter for ls in w.letters).upper() == w.word, where
                assert sum(ls.points for ls in w.letters) == w.letter_total, where
        outcomes.add(submitted[:2])
    assert (True, "") in outcomes and len(outcomes) >= 3, outcomes
