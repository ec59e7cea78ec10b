"""War of Words: a player moves their Rain over gRPC (``PlayMove.effect_moves``, and the same
moves in ``PreviewPlayRequest.effect_moves``), as a client does it: the effect id comes from the
board view the client received, the answer and the stream show the Rain on its new square, and
the refusals — moving alone, an unknown id, a square off the board, someone else's Rain, a square
holding another action tile — name the rule and change nothing."""

from __future__ import annotations

from typing import Any

import grpc
from grpc_helpers import refused
from match_harness import Harness, Player, pass_move, violation_of

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m

FIELD = "warofwords/en/warofwords-field"
SIMPLE = ("@shield", "@medic", "@poison", "@2L", "@3L", "@2W", "@3W")  # lie anywhere empty, harmless


def _seed() -> int:
    """A seed whose deal gives Alice a Rain and a harmless action tile and Bob a harmless action
    tile (each move needs a tile played with it): chosen from the engine's own deal."""
    from wordarena.engine.families import parse_ruleset_id
    from wordarena.engine.game import start_game

    ruleset = parse_ruleset_id(FIELD)
    for seed in range(1, 5000):
        state, _ = start_game(ruleset, 2, seed, check_words=False)
        alice, bob = state.racks
        if "@rain" in alice and any(t in SIMPLE for t in alice) and any(t in SIMPLE for t in bob):
            return seed
    raise AssertionError("no seed deals a Rain and harmless action tiles")


def _action(row: int, col: int, token: str) -> c.Placement:
    from wordarena.services.match.messages import action_kind

    kind, factor = action_kind(token)
    return c.Placement(square=c.Square(row=row, col=col), action=kind, action_factor=factor)  # type: ignore[arg-type]


def _rack_tokens(view: m.MatchView) -> list[str]:
    from wordarena.clients.cli import actions

    return [actions.token(t.action, t.action_factor) for t in view.rack.tiles if t.action]


def _play(placements: list[c.Placement], shifts: list[c.EffectMove]) -> c.Move:
    return c.Move(play=c.PlayMove(placements=placements, effect_moves=shifts))


def _preview(p: Player, mid: str, placements: list[c.Placement], shifts: list[c.EffectMove]) -> Any:
    return p.stub.PreviewPlay(m.PreviewPlayRequest(match_id=mid, placements=placements,
                                                   effect_moves=shifts), metadata=p.md)


async def test_a_player_moves_their_rain_with_a_play_but_never_alone(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset=FIELD, seed=_seed())
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")

    view = await alice.view(mid)
    first = next(t for t in _rack_tokens(view) if t in SIMPLE)
    await alice.submit(mid, _play([_action(2, 2, "@rain")], []), view.last_seq)
    view = await bob.view(mid)
    rain = next(eff for eff in view.board.effects if eff.action == c.ACTION_KIND_RAIN)
    assert rain.movable and rain.owner_seat == 0 and (rain.origin.row, rain.origin.col) == (2, 2)
    to_d5 = c.EffectMove(effect_id=rain.effect_id, to=c.Square(row=4, col=3))

    # Bob may not move Alice's Rain (he plays a tile with it): NOT_ALLOWED, nothing changes.
    bob_tile = next(t for t in _rack_tokens(view) if t in SIMPLE)
    err = await refused(bob.submit(mid, _play([_action(12, 12, bob_tile)], [to_d5]), view.last_seq))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert violation_of(err).code == e.RULE_CODE_EFFECT_NOT_MOVABLE  # type: ignore[union-attr]
    assert "Rain or Whirlwind of yours" in err.details()
    await bob.submit(mid, pass_move(), view.last_seq)

    view = await alice.view(mid)
    seq = view.last_seq
    # Moving alone is not a turn: refused with NO_TILES, by SubmitTurn and by PreviewPlay alike.
    for call in (alice.submit(mid, _play([], [to_d5]), seq), _preview(alice, mid, [], [to_d5])):
        err = await refused(call)
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "alone is not a turn" in err.details()
        assert violation_of(err).code == e.RULE_CODE_NO_TILES  # type: ignore[union-attr]
    # An id the view never showed, a square off the board: INVALID_ARGUMENT naming the field.
    tile = [_action(14, 0, first)]
    err = await refused(alice.submit(mid, _play(tile, [c.EffectMove(effect_id="rain@Z99",
                                                                      to=c.Square(row=4, col=3))]), seq))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "effect_moves[0].effect_id" in err.details()
    err = await refused(alice.submit(mid, _play(tile, [c.EffectMove(effect_id=rain.effect_id,
                                                                      to=c.Square(row=15, col=3))]), seq))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "effect_moves[0].to" in err.details()
    # Onto the square of the tile she lays in the same play: another action tile lies there.
    onto = [_action(4, 3, first)]
    preview = await _preview(alice, mid, onto, [to_d5])
    assert not preview.legal and preview.violation.code == e.RULE_CODE_SQUARE_OCCUPIED
    assert (await alice.view(mid)).last_seq == seq  # nothing changed

    # A tile and the move: the preview says legal, the turn moves the Rain.
    preview = await _preview(alice, mid, tile, [to_d5])
    assert preview.legal, preview
    r = await alice.submit(mid, _play(tile, [to_d5]), seq)
    played = next(ev.turn_played for ev in r.events if ev.HasField("turn_played"))
    assert [(mv.effect_id, mv.to.row, mv.to.col) for mv in played.effect_moves] == [(rain.effect_id, 4, 3)]
    after = await bob.view(mid)
    rains = [eff for eff in after.board.effects if eff.action == c.ACTION_KIND_RAIN]
    assert [(eff.origin.row, eff.origin.col) for eff in rains] == [(4, 3)]
    assert rains[0].effect_id != rain.effect_id  # the id of the view names the square


async def test_other_families_refuse_action_tiles_and_effect_moves(harness: Harness) -> None:
    """Classic has no action tiles: a placement naming one, or a Rain moved with a play, is
    INVALID_ARGUMENT naming the field, and the match is as it was."""
    srv = await harness.start()
    mid = await harness.create(srv, seed=7)
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    letter = view.rack.tiles[0].letter
    tile = c.Placement(square=c.Square(row=7, col=7), letter=letter)
    err = await refused(alice.submit(mid, _play([_action(7, 7, "@bomb")], []), view.last_seq))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "placements[0].action" in err.details() and "War of Words" in err.details()
    shift = c.EffectMove(effect_id="rain@H8", to=c.Square(row=3, col=3))
    err = await refused(alice.submit(mid, _play([tile], [shift]), view.last_seq))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "effect_moves" in err.details() and "only War of Words" in err.details()
    assert (await alice.view(mid)).last_seq == view.last_seq  # nothing changed
