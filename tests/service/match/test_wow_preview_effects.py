"""War of Words: PreviewPlay tells what a play's action tiles will do (``effects``), the same
effects, points and squares that submitting the play answers with — a Bomb on the opponent's
word, Lightning on a letter, a Nuclear Bomb (every letter destroyed at no cost, the board
irradiated) — and after a Nuclear Bomb the rack's letters are worth 1, as common.proto's
``Tile.value`` says. Read over gRPC from what a client receives: the preview, the SubmitTurn
answer, GetMatch. (It previewed a Bomb as 0 points, then the Bomb cost its victim 17.)"""

from __future__ import annotations

from typing import Any

from match_harness import Harness, Player, engine_move

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m

FIELD = "warofwords/en/warofwords-field"
#: Alice is dealt E L S Z N U O and a Lightning, Bob a Bomb and a Nuclear Bomb (the engine's deal
#: of this seed; the test checks the racks it is shown).
SEED = 764


def _action(row: int, col: int, token: str) -> c.Placement:
    from wordarena.services.match.messages import action_kind

    kind, factor = action_kind(token)
    return c.Placement(square=c.Square(row=row, col=col), action=kind, action_factor=factor)  # type: ignore[arg-type]


def _told(effects: Any) -> list[tuple[Any, ...]]:
    """Effects as a client compares them: kind, source, owner, seat, points, squares."""
    return sorted((e.kind, e.source, e.by_seat, e.seat if e.HasField("seat") else None, e.points,
                   tuple(sorted((s.row, s.col) for s in e.squares))) for e in effects)


def _letters(view: m.MatchView, seat: int) -> list[tuple[int, int]]:
    return [(sq.square.row, sq.square.col) for sq in view.board.squares
            if sq.HasField("tile") and sq.tile.letter and sq.tile.owner_seat == seat]


async def _preview_then_play(p: Player, mid: str, placements: list[c.Placement],
                             sources: set[int]) -> tuple[m.PreviewPlayResponse, list[c.Effect]]:
    """The preview of a play, then the play: the Effect events of its answer (every one: no
    lasting tile lies on the board, so none acts at the end of the turn), which must all come
    from ``sources``, the play's own tiles."""
    view = await p.view(mid)
    preview = await p.stub.PreviewPlay(m.PreviewPlayRequest(match_id=mid, placements=placements),
                                       metadata=p.md)
    assert preview.legal, preview
    answer = await p.submit(mid, c.Move(play=c.PlayMove(placements=placements)), view.last_seq)
    played = [ev.effect for ev in answer.events if ev.HasField("effect")]
    assert {e.source for e in played} <= sources, played
    return preview, played


async def test_the_preview_tells_what_the_action_tiles_will_destroy_and_cost(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset=FIELD, seed=SEED)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    rt = srv.manager.matches[mid]
    view = await alice.view(mid)
    assert c.ACTION_KIND_LIGHTNING in {t.action for t in view.rack.tiles}
    bob_rack = (await bob.view(mid)).rack.tiles
    assert {c.ACTION_KIND_BOMB, c.ACTION_KIND_NUCLEAR_BOMB} <= {t.action for t in bob_rack}

    # Alice opens with a word (the engine's best: the driver, not the oracle).
    await alice.submit(mid, engine_move(rt.state, 0), view.last_seq)
    word = _letters(await bob.view(mid), 0)
    assert len(word) >= 3

    # Bob bombs the middle of Alice's word: the preview names each letter and what Alice loses.
    r, col = word[len(word) // 2]
    preview, played = await _preview_then_play(bob, mid, [_action(r, col, "@bomb")], {c.ACTION_KIND_BOMB})
    assert played and any(e.points < 0 for e in played)
    assert _told(preview.effects) == _told(played)
    assert all(e.kind == c.EFFECT_KIND_DESTROYED and e.seat == 0 for e in preview.effects)
    assert preview.breakdown.total == 0 and not preview.reach_hidden

    # Alice strikes one of her own letters left with Lightning: it costs her, as previewed.
    left = _letters(await alice.view(mid), 0)
    assert left
    preview, played = await _preview_then_play(alice, mid, [_action(*left[0], "@lightning")],
                                               {c.ACTION_KIND_LIGHTNING})
    assert played and _told(preview.effects) == _told(played)

    # Bob's Nuclear Bomb: every letter destroyed at no cost, the board irradiated.
    empty = next((sq.square.row, sq.square.col) for sq in (await bob.view(mid)).board.squares
                 if not sq.HasField("tile") and (sq.square.row, sq.square.col) not in left)
    preview, played = await _preview_then_play(bob, mid, [_action(*empty, "@nuke")],
                                               {c.ACTION_KIND_NUCLEAR_BOMB})
    assert _told(preview.effects) == _told(played)
    assert c.EFFECT_KIND_IRRADIATED in {e.kind for e in preview.effects}
    assert all(e.points == 0 for e in preview.effects)

    # Irradiated: every letter is worth 1, on Alice's rack too (Tile.value "then shows 1").
    after = await alice.view(mid)
    assert after.board.irradiated
    letters = [t for t in after.rack.tiles if t.letter and not t.is_blank and not t.is_wildcard]
    assert letters and all(t.value == 1 for t in letters), [(t.letter, t.value) for t in letters]
    bag = await alice.stub.TileBag(m.TileBagRequest(match_id=mid), metadata=alice.md)
    assert {tc.tile.value for tc in bag.unseen if tc.tile.letter and not tc.tile.is_blank
            and not tc.tile.is_wildcard} == {1}


async def test_what_a_lasting_tile_does_at_the_end_of_the_turn_is_not_previewed(harness: Harness) -> None:
    """A Medic put beside letters heals them at the end of every turn, the one it is played in
    too: that is not part of the play's preview (its effects are empty), though the turn's
    answer then carries it. And in a family without action tiles a preview has no effects."""
    srv = await harness.start()
    mid = await harness.create(srv, ruleset=FIELD, seed=1499)  # Alice holds a Medic (checked)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    rt = srv.manager.matches[mid]
    view = await alice.view(mid)
    assert c.ACTION_KIND_MEDIC in {t.action for t in view.rack.tiles}
    await alice.submit(mid, engine_move(rt.state, 0), view.last_seq)
    await bob.submit(mid, c.Move(pass_turn=c.PassMove()), (await bob.view(mid)).last_seq)
    word = _letters(await alice.view(mid), 0)
    r, col = word[0]
    spot = next((rr, cc) for rr, cc in ((r - 1, col), (r + 1, col), (r, col - 1))
                if 0 <= rr < 15 and 0 <= cc < 15 and (rr, cc) not in word)
    preview, played = await _preview_then_play(alice, mid, [_action(*spot, "@medic")], {c.ACTION_KIND_MEDIC})
    assert not preview.effects and not preview.reach_hidden, preview
    assert [e.kind for e in played] == [c.EFFECT_KIND_HEALED] and played[0].points > 0, played

    mid, = [await harness.create(srv, seed=3)]
    view = await alice.view(mid)
    letters = [t.letter for t in view.rack.tiles if t.letter and not t.is_blank][:2]
    classic = await alice.stub.PreviewPlay(m.PreviewPlayRequest(match_id=mid, placements=[
        c.Placement(square=c.Square(row=7, col=7 + k), letter=x) for k, x in enumerate(letters)]),
        metadata=alice.md)
    assert classic.HasField("breakdown") and not classic.effects and not classic.reach_hidden, classic
