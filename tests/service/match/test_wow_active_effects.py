"""War of Words: the lasting tiles a board view lists (``BoardView.effects``) say what they cover
and how long they last, as common.proto promises for ``ActiveEffect``: ``area`` the squares the
tile acts on now, ``size`` a growing tile's size, ``turns_left`` the turns (a Whirlwind's: its
owner's turns) before it ends. Read over gRPC by a player, the expected values written from the
rules (docs/warofwords.md, *Persistent tiles*), not from the engine."""

from __future__ import annotations

from match_harness import Harness, pass_move

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m

FIELD = "warofwords/en/warofwords-field"
#: Alice is dealt a Black Hole, a Whirlwind and a Medic (the engine's deal of this seed; the
#: test checks the rack it is shown before playing them).
SEED = 1499


def _action(row: int, col: int, token: str) -> c.Placement:
    from wordarena.services.match.messages import action_kind

    kind, factor = action_kind(token)
    return c.Placement(square=c.Square(row=row, col=col), action=kind, action_factor=factor)  # type: ignore[arg-type]


def _square(row: int, col: int, size: int) -> list[tuple[int, int]]:
    """The size x size square centred on (row, col), clipped to the 15x15 board, in board order."""
    h = size // 2
    return [(r, q) for r in range(max(0, row - h), min(15, row + h + 1))
            for q in range(max(0, col - h), min(15, col + h + 1))]


def _effects(view: m.MatchView) -> dict[int, c.ActiveEffect]:
    return {eff.action: eff for eff in view.board.effects}


def _area(eff: c.ActiveEffect) -> list[tuple[int, int]]:
    return sorted((sq.row, sq.col) for sq in eff.area)


async def test_a_lasting_tiles_area_size_and_turns_left_follow_it_turn_by_turn(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset=FIELD, seed=SEED)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await alice.view(mid)
    held = {t.action for t in view.rack.tiles}
    assert {c.ACTION_KIND_BLACK_HOLE, c.ACTION_KIND_WHIRLWIND, c.ACTION_KIND_MEDIC} <= held
    play = c.Move(play=c.PlayMove(placements=[
        _action(2, 2, "@blackhole"), _action(12, 12, "@whirlwind"), _action(2, 12, "@medic")]))
    await alice.submit(mid, play, view.last_seq)

    # The end of the turn it was played: the Black Hole is 1x1 (it grows 1, 3, 5, 7, then
    # collapses the turn after: 4 turns left); the Whirlwind has lived 1 of its owner's 3
    # turns; a Medic acts on its 3x3 for good.
    hole, wind, medic = (lambda e: (e[c.ACTION_KIND_BLACK_HOLE], e[c.ACTION_KIND_WHIRLWIND],
                                    e[c.ACTION_KIND_MEDIC]))(_effects(await bob.view(mid)))
    assert (_area(hole), hole.size, hole.turns_left) == ([(2, 2)], 1, 4)
    assert (_area(wind), wind.size, wind.turns_left) == (_square(12, 12, 3), 0, 2)
    assert (_area(medic), medic.size, medic.turns_left) == (_square(2, 12, 3), 0, 0)

    # Bob's turn: the Black Hole grows to 3x3; the Whirlwind counts its owner's turns only.
    await bob.submit(mid, pass_move(), (await bob.view(mid)).last_seq)
    effects = _effects(await alice.view(mid))
    hole, wind = effects[c.ACTION_KIND_BLACK_HOLE], effects[c.ACTION_KIND_WHIRLWIND]
    assert (_area(hole), hole.size, hole.turns_left) == (_square(2, 2, 3), 3, 3)
    assert wind.turns_left == 2

    # Alice's next turn: 5x5 (clipped at the board's edge), and the Whirlwind's last turn is next.
    await alice.submit(mid, pass_move(), (await alice.view(mid)).last_seq)
    effects = _effects(await bob.view(mid))
    hole, wind = effects[c.ACTION_KIND_BLACK_HOLE], effects[c.ACTION_KIND_WHIRLWIND]
    assert (_area(hole), hole.size, hole.turns_left) == (_square(2, 2, 5), 5, 2)
    assert (wind.turns_left, _area(wind)) == (1, _square(12, 12, 3))
