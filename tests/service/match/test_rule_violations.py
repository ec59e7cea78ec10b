"""Every RuleCode the match server can send, driven through real gRPC on loopback: the status
code, and every RuleViolation field errors.proto says the code carries (code, code_name, message;
words, squares, tiles, retry_after for the codes that list them, empty for the others).

Codes no request can produce today (each says why):

* MATCH_NOT_STARTED: a match starts when CreateMatch stores it (MatchStarted is seq 1), so no
  request ever meets a match that has not started.
* ACTION_NOT_ALLOWED_HERE, ACTION_NEEDS_FACING: the engine refuses a misplaced or unfaced War of
  Words action tile with its rule ``not-allowed`` (sent as NOT_ALLOWED, tested below); the engine
  has no rule ids of their own to map to these codes.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import grpc
import pytest
from grpc_helpers import refused
from match_harness import SERVICE_TOKEN, Harness, Player, engine_move, pass_move

from wordarena.services.common.errors import detail
from wordarena.services.match.main import MatchServer
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m

SVC = [("authorization", f"Bearer {SERVICE_TOKEN}")]
WOW = "warofwords/en/warofwords-park"
Scenario = Callable[[Harness, MatchServer], Awaitable[grpc.aio.AioRpcError]]


@dataclass(frozen=True)
class Expect:
    """What the refusal must carry."""

    status: grpc.StatusCode
    words: bool = False
    squares: bool = False
    tiles: bool = False
    retry_after: bool = False


def _play(*placed: tuple[int, int, str], blank: bool = False) -> c.Move:
    return c.Move(
        play=c.PlayMove(
            placements=[
                c.Placement(square=c.Square(row=r, col=col), letter=letter, is_blank=blank)
                for r, col, letter in placed
            ]
        )
    )


def _letters(view: m.MatchView) -> list[str]:
    return [t.letter for t in view.rack.tiles if not t.is_blank and t.letter]


async def _two(h: Harness, srv: MatchServer, **kw: object) -> tuple[str, Player, Player, m.MatchView]:
    mid = await h.create(srv, **kw)  # type: ignore[arg-type]
    alice, bob = h.player(srv, "alice"), h.player(srv, "bob")
    return mid, alice, bob, await alice.view(mid)


def _center(view: m.MatchView) -> tuple[int, int]:
    sq = next(s for s in view.board.squares if s.is_start)
    return sq.square.row, sq.square.col


async def _first_play(h: Harness, srv: MatchServer, mid: str, alice: Player) -> m.MatchView:
    """Alice makes a legal first play (picked by the engine, as a client's own generator would)."""
    view = await alice.view(mid)
    await alice.submit(mid, engine_move(srv.manager.matches[mid].state, 0), view.last_seq)
    return await alice.view(mid)


# --- one scenario per code ----------------------------------------------------------------------


async def not_your_turn(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, _, bob, view = await _two(h, srv)
    return await refused(bob.submit(mid, pass_move(), view.last_seq))


async def not_your_seat(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv)
    return await refused(
        alice.stub.SubmitTurn(
            m.SubmitTurnRequest(
                match_id=mid, expected_seq=view.last_seq, request_id="r", move=pass_move(), seat=1
            ),
            metadata=alice.md,
        )
    )


async def game_over(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, bob, view = await _two(h, srv)
    await alice.submit(mid, c.Move(resign=c.ResignMove()), view.last_seq)
    return await refused(bob.submit(mid, pass_move(), (await bob.view(mid)).last_seq))


async def seat_inactive(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid = await h.create(srv, ruleset="wordtiles", players=("alice", "bob", "carol"))
    bob = h.player(srv, "bob")
    await bob.stub.LeaveMatch(m.LeaveMatchRequest(match_id=mid, request_id="l1"), metadata=bob.md)
    return await refused(
        bob.stub.LeaveMatch(m.LeaveMatchRequest(match_id=mid, request_id="l2"), metadata=bob.md)
    )


async def decision_pending(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, bob, _ = await _two(h, srv, ruleset="wordtiles")
    view = await _first_play(h, srv, mid, alice)
    assert view.HasField("pending")
    return await refused(bob.submit(mid, pass_move(), view.last_seq))


async def no_pending_play(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv, ruleset="wordtiles")
    return await refused(
        alice.stub.DecidePending(
            m.DecidePendingRequest(
                match_id=mid, expected_seq=view.last_seq, request_id="d", decision=m.DECISION_ACCEPT
            ),
            metadata=alice.md,
        )
    )


async def no_tiles(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv)
    return await refused(alice.submit(mid, c.Move(play=c.PlayMove()), view.last_seq))


async def too_many_tiles(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv)
    return await refused(alice.submit(mid, _play(*((7, k, "A") for k in range(8))), view.last_seq))


async def tiles_not_on_rack(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv)
    missing = next(x for x in "QZXJKVWYBCFHMP" if x not in _letters(view))
    r, col = _center(view)
    err = await refused(alice.submit(mid, _play((r, col, missing), (r, col + 1, missing)), view.last_seq))
    assert [(t.letter, t.is_blank) for t in detail(err, e.RuleViolation).tiles] == [(missing, False)] * 2
    return err


async def off_board(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv)
    err = await refused(alice.submit(mid, _play((99, 0, _letters(view)[0])), view.last_seq))
    assert [(s.row, s.col) for s in detail(err, e.RuleViolation).squares] == [(99, 0)]
    return err


async def square_occupied(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, bob, _ = await _two(h, srv)
    await _first_play(h, srv, mid, alice)
    view = await bob.view(mid)
    taken = next(s.square for s in view.board.squares if s.HasField("tile"))
    err = await refused(bob.submit(mid, _play((taken.row, taken.col, _letters(view)[0])), view.last_seq))
    assert [(s.row, s.col) for s in detail(err, e.RuleViolation).squares] == [(taken.row, taken.col)]
    return err


async def duplicate_square(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv)
    r, col = _center(view)
    a, b = _letters(view)[:2]
    err = await refused(alice.submit(mid, _play((r, col, a), (r, col, b)), view.last_seq))
    assert [(s.row, s.col) for s in detail(err, e.RuleViolation).squares] == [(r, col)]
    return err


async def not_in_line(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv)
    r, col = _center(view)
    a, b = _letters(view)[:2]
    return await refused(alice.submit(mid, _play((r, col, a), (r + 1, col + 1, b)), view.last_seq))


async def gap(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv)
    r, col = _center(view)
    a, b = _letters(view)[:2]
    return await refused(alice.submit(mid, _play((r, col, a), (r, col + 2, b)), view.last_seq))


async def not_connected(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, bob, _ = await _two(h, srv)
    await _first_play(h, srv, mid, alice)
    view = await bob.view(mid)
    a, b = _letters(view)[:2]
    return await refused(bob.submit(mid, _play((0, 0, a), (0, 1, b)), view.last_seq))


async def first_move_off_start(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv)
    a, b = _letters(view)[:2]
    return await refused(alice.submit(mid, _play((0, 0, a), (0, 1, b)), view.last_seq))


async def word_too_short(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv, ruleset="wordtiles")  # the first word needs two letters
    r, col = _center(view)
    return await refused(alice.submit(mid, _play((r, col, _letters(view)[0])), view.last_seq))


async def word_not_in_lexicon(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv)
    r, col = _center(view)
    for a, b, x in itertools.permutations(_letters(view), 3):  # a non-word, found as a client would
        move = _play((r, col, a), (r, col + 1, b), (r, col + 2, x))
        pv = await alice.stub.PreviewPlay(
            m.PreviewPlayRequest(match_id=mid, placements=move.play.placements), metadata=alice.md
        )
        if pv.violation.code == e.RULE_CODE_WORD_NOT_IN_LEXICON:
            err = await refused(alice.submit(mid, move, view.last_seq))
            assert list(detail(err, e.RuleViolation).words) == [a + b + x]
            return err
    raise AssertionError("every three letters of the rack make a word")


async def invalid_blank_letter(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv)
    r, col = _center(view)
    return await refused(alice.submit(mid, _play((r, col, "1"), blank=True), view.last_seq))


async def letter_not_in_set(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv)
    r, col = _center(view)
    return await refused(alice.submit(mid, _play((r, col, "1")), view.last_seq))


async def exchange_limit(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, bob, _ = await _two(h, srv, ruleset=WOW, seed=3)  # 5 exchanges each, not scoreless turns
    for _ in range(5):
        for p in (alice, bob):
            view = await p.view(mid)
            await p.submit(mid, c.Move(exchange=c.ExchangeMove(tiles=[view.rack.tiles[0]])), view.last_seq)
    view = await alice.view(mid)
    assert view.seats[0].exchanges_left == 0
    return await refused(
        alice.submit(mid, c.Move(exchange=c.ExchangeMove(tiles=[view.rack.tiles[0]])), view.last_seq)
    )


async def exchange_bag_too_small(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, bob, view = await _two(h, srv, ruleset="scrabble", seed=5)  # needs 7 in the bag
    rt = srv.manager.matches[mid]  # only to pick legal moves
    while view.bag_count >= 7:
        p = (alice, bob)[view.to_move_seat]
        await p.submit(mid, engine_move(rt.state, view.to_move_seat), view.last_seq)
        view = await alice.view(mid)
        assert view.status == m.MATCH_STATUS_IN_PROGRESS
    p = (alice, bob)[view.to_move_seat]
    view = await p.view(mid)
    return await refused(
        p.submit(mid, c.Move(exchange=c.ExchangeMove(tiles=[view.rack.tiles[0]])), view.last_seq)
    )


async def chat_unavailable(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid = await h.create(srv, players=("alice", "alice"), pass_and_play=True)
    alice = h.player(srv, "alice")
    return await refused(
        alice.stub.SendChat(m.SendChatRequest(match_id=mid, request_id="c", text="hi"), metadata=alice.md)
    )


async def kick_too_early(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, _, bob, _ = await _two(h, srv)
    return await refused(
        bob.stub.KickIdlePlayer(
            m.KickIdlePlayerRequest(match_id=mid, request_id="k", seat=0), metadata=bob.md
        )
    )


async def kick_not_allowed(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, _ = await _two(h, srv)
    return await refused(
        alice.stub.KickIdlePlayer(
            m.KickIdlePlayerRequest(match_id=mid, request_id="k", seat=0), metadata=alice.md
        )
    )


async def feature_unavailable(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv, ruleset="wordtiles")
    r, col = _center(view)
    a, b = _letters(view)[:2]
    return await refused(
        alice.stub.WordStrength(
            m.WordStrengthRequest(
                match_id=mid, placements=_play((r, col, a), (r, col + 1, b)).play.placements
            ),
            metadata=alice.md,
        )
    )


async def dictionary_unavailable(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    alice = h.player(srv, "alice")
    return await refused(alice.stub.Define(m.DefineRequest(word="chat", language="fr"), metadata=alice.md))


async def no_turn_to_analyse(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, _ = await _two(h, srv)
    return await refused(alice.stub.Hindsight(m.HindsightRequest(match_id=mid), metadata=alice.md))


async def square_blocked(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid = await h.create(srv, ruleset=WOW, seed=11)
    alice = h.player(srv, "alice")
    view = await alice.view(mid)
    blocked = next(s.square for s in view.board.squares if s.scenery and not s.hidden)
    return await refused(
        alice.submit(mid, _play((blocked.row, blocked.col, _letters(view)[0])), view.last_seq)
    )


async def no_word(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid = await h.create(srv, ruleset=WOW, seed=11)
    alice = h.player(srv, "alice")
    view = await alice.view(mid)
    star = next(s.square for s in view.board.squares if s.is_star and not s.hidden and not s.HasField("tile"))
    return await refused(alice.submit(mid, _play((star.row, star.col, _letters(view)[0])), view.last_seq))


async def not_allowed(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    """An action tile with a facing it does not take, or a Blaster without one: each try on a
    fresh match of the same seed (same racks), in case the other is a legal play."""
    alice = h.player(srv, "alice")
    for seed in range(1, 40):  # a match whose first rack holds an action tile
        for facing in (c.FACING_UP, c.FACING_UNSPECIFIED):
            mid = await h.create(srv, ruleset=WOW, seed=seed)
            view = await alice.view(mid)
            action = next((t for t in view.rack.tiles if t.action), None)
            if action is None:
                break
            plain = next(
                s.square
                for s in view.board.squares
                if not s.terrain
                and not s.scenery
                and not s.is_star
                and not s.hidden
                and not s.HasField("tile")
            )
            pl = c.Placement(
                square=plain, action=action.action, action_factor=action.action_factor, facing=facing
            )
            try:
                await alice.submit(mid, c.Move(play=c.PlayMove(placements=[pl])), view.last_seq)
            except grpc.aio.AioRpcError as err:
                if detail(err, e.RuleViolation).code == e.RULE_CODE_NOT_ALLOWED:
                    return err
    raise AssertionError("no seed gave an action tile that could be misplaced")


async def effect_not_movable(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    """Bob moves Alice's Rain (with a tile of his own played, so that the play is not moves
    alone)."""
    from test_wow_effect_moves import FIELD, SIMPLE, _action, _rack_tokens, _seed

    mid = await h.create(srv, ruleset=FIELD, seed=_seed())
    alice, bob = h.player(srv, "alice"), h.player(srv, "bob")
    view = await alice.view(mid)
    await alice.submit(mid, c.Move(play=c.PlayMove(placements=[_action(2, 2, "@rain")])), view.last_seq)
    view = await bob.view(mid)
    rain = next(eff for eff in view.board.effects if eff.action == c.ACTION_KIND_RAIN)
    tile = next(t for t in _rack_tokens(view) if t in SIMPLE)
    move = c.EffectMove(effect_id=rain.effect_id, to=c.Square(row=4, col=3))
    return await refused(bob.submit(mid, c.Move(play=c.PlayMove(
        placements=[_action(12, 12, tile)], effect_moves=[move])), view.last_seq))


async def match_aborted(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid = await h.create(srv)
    await h.control(srv).AbortMatch(ctl.AbortMatchRequest(match_id=mid, reason="test"), metadata=SVC)
    alice = h.player(srv, "alice")
    return await refused(alice.view(mid))


async def match_started(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv)
    await alice.submit(mid, pass_move(), view.last_seq)
    return await refused(
        h.control(srv).AbortMatch(ctl.AbortMatchRequest(match_id=mid, reason="t"), metadata=SVC)
    )


async def request_id_reused(h: Harness, srv: MatchServer) -> grpc.aio.AioRpcError:
    mid, alice, _, view = await _two(h, srv)
    await alice.stub.SendChat(
        m.SendChatRequest(match_id=mid, request_id="same", text="hi"), metadata=alice.md
    )
    return await refused(alice.submit(mid, pass_move(), view.last_seq, request_id="same"))


FP, IA, PD = (
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.PERMISSION_DENIED,
)
CASES: dict[int, tuple[Scenario, Expect]] = {
    e.RULE_CODE_NOT_YOUR_TURN: (not_your_turn, Expect(FP)),
    e.RULE_CODE_NOT_YOUR_SEAT: (not_your_seat, Expect(PD)),
    e.RULE_CODE_GAME_OVER: (game_over, Expect(FP)),
    e.RULE_CODE_SEAT_INACTIVE: (seat_inactive, Expect(FP)),
    e.RULE_CODE_DECISION_PENDING: (decision_pending, Expect(FP)),
    e.RULE_CODE_NO_PENDING_PLAY: (no_pending_play, Expect(FP)),
    e.RULE_CODE_NO_TILES: (no_tiles, Expect(IA)),
    e.RULE_CODE_TOO_MANY_TILES: (too_many_tiles, Expect(IA)),
    e.RULE_CODE_TILES_NOT_ON_RACK: (tiles_not_on_rack, Expect(FP, tiles=True)),
    e.RULE_CODE_OFF_BOARD: (off_board, Expect(IA, squares=True)),
    e.RULE_CODE_SQUARE_OCCUPIED: (square_occupied, Expect(FP, squares=True)),
    e.RULE_CODE_DUPLICATE_SQUARE: (duplicate_square, Expect(FP, squares=True)),
    e.RULE_CODE_NOT_IN_LINE: (not_in_line, Expect(FP)),
    e.RULE_CODE_GAP: (gap, Expect(FP)),
    e.RULE_CODE_NOT_CONNECTED: (not_connected, Expect(FP)),
    e.RULE_CODE_FIRST_MOVE_OFF_START: (first_move_off_start, Expect(FP)),
    e.RULE_CODE_WORD_TOO_SHORT: (word_too_short, Expect(FP)),
    e.RULE_CODE_WORD_NOT_IN_LEXICON: (word_not_in_lexicon, Expect(FP, words=True)),
    e.RULE_CODE_INVALID_BLANK_LETTER: (invalid_blank_letter, Expect(IA)),
    e.RULE_CODE_EXCHANGE_LIMIT: (exchange_limit, Expect(FP)),
    e.RULE_CODE_EXCHANGE_BAG_TOO_SMALL: (exchange_bag_too_small, Expect(FP)),
    e.RULE_CODE_CHAT_UNAVAILABLE: (chat_unavailable, Expect(FP)),
    e.RULE_CODE_KICK_TOO_EARLY: (kick_too_early, Expect(FP, retry_after=True)),
    e.RULE_CODE_KICK_NOT_ALLOWED: (kick_not_allowed, Expect(FP)),
    e.RULE_CODE_FEATURE_UNAVAILABLE: (feature_unavailable, Expect(FP)),
    e.RULE_CODE_DICTIONARY_UNAVAILABLE: (dictionary_unavailable, Expect(FP)),
    e.RULE_CODE_NO_TURN_TO_ANALYSE: (no_turn_to_analyse, Expect(FP)),
    e.RULE_CODE_SQUARE_BLOCKED: (square_blocked, Expect(FP)),
    e.RULE_CODE_NO_WORD: (no_word, Expect(FP)),
    e.RULE_CODE_LETTER_NOT_IN_SET: (letter_not_in_set, Expect(IA)),
    e.RULE_CODE_NOT_ALLOWED: (not_allowed, Expect(FP)),
    e.RULE_CODE_EFFECT_NOT_MOVABLE: (effect_not_movable, Expect(FP)),
    e.RULE_CODE_MATCH_ABORTED: (match_aborted, Expect(FP)),
    e.RULE_CODE_MATCH_STARTED: (match_started, Expect(FP)),
    e.RULE_CODE_REQUEST_ID_REUSED: (request_id_reused, Expect(FP)),
}
NOT_PRODUCIBLE = {
    e.RULE_CODE_UNSPECIFIED,
    e.RULE_CODE_MATCH_NOT_STARTED,
    e.RULE_CODE_ACTION_NOT_ALLOWED_HERE,
    e.RULE_CODE_ACTION_NEEDS_FACING,
}


def test_every_rule_code_is_tested_or_said_to_be_unproducible() -> None:
    assert set(e.RuleCode.values()) == set(CASES) | NOT_PRODUCIBLE


@pytest.mark.parametrize(
    "code", list(CASES), ids=[e.RuleCode.Name(k).removeprefix("RULE_CODE_") for k in CASES]
)
async def test_rule_violation_carries_its_fields(harness: Harness, code: int) -> None:
    scenario, expect = CASES[code]
    srv = await harness.start()
    err = await scenario(harness, srv)
    assert err.code() == expect.status, err.details()
    v = detail(err, e.RuleViolation)
    assert v is not None, err.details()
    assert v.code == code, (e.RuleCode.Name(v.code), v.code_name, v.message)
    assert v.code_name == e.RuleCode.Name(code).removeprefix("RULE_CODE_")
    assert v.message
    assert bool(v.words) == expect.words, v
    assert bool(v.squares) == expect.squares, v
    assert bool(v.tiles) == expect.tiles, v
    assert v.HasField("retry_after") == expect.retry_after, v
    if expect.retry_after:
        assert v.retry_after.seconds > 0
