"""War of Words rules that departed from ``shared/rules/war-of-words-2.txt``, each driven the way
a player meets it — a client over real gRPC on loopback — with the expected numbers worked out
by hand from what that client was shown. The engine deals from a seed; each test picks a seed
whose deal gives the player what the sentence needs (the search reads the engine's own deal,
never the outcome)."""

from __future__ import annotations

import uuid
from typing import Any

from match_harness import Harness, Player, pass_move

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m

FIELD = "warofwords/en/warofwords-field"
DESERT = "warofwords/en/warofwords-desert"


def _deal(ruleset_id: str, want: Any, players: int = 2) -> tuple[int, Any]:
    """The first seed whose deal ``want(state, first_plays)`` accepts, with what it returned."""
    from wordarena.engine.families import parse_ruleset_id
    from wordarena.engine.game import start_game
    from wordarena.engine.lexicon import load_lexicon
    from wordarena.engine.movegen import generate_moves

    ruleset = parse_ruleset_id(ruleset_id)
    lexicon = load_lexicon(ruleset.lexicon)
    for seed in range(1, 3000):
        state, _ = start_game(ruleset, players, seed, lexicon)
        found = want(state, generate_moves(state, 0))
        if found:
            return seed, found
    raise AssertionError("no seed deals what the test needs")


def _pb_play(placements: Any) -> list[c.Placement]:
    return [c.Placement(square=c.Square(row=p.row, col=p.col), letter=p.letter, is_blank=p.blank,
                        is_wildcard=p.letter == "*") for p in placements]


def _action(row: int, col: int, token: str) -> c.Placement:
    from wordarena.services.match.messages import action_kind

    kind, factor = action_kind(token)
    return c.Placement(square=c.Square(row=row, col=col), action=kind, action_factor=factor)  # type: ignore[arg-type]


async def _preview(p: Player, mid: str, placements: list[c.Placement]) -> m.PreviewPlayResponse:
    return await p.stub.PreviewPlay(m.PreviewPlayRequest(match_id=mid, placements=placements),
                                    metadata=p.md)


def _rack_tokens(view: m.MatchView) -> list[str]:
    from wordarena.clients.cli import actions

    return [actions.token(t.action, t.action_factor) for t in view.rack.tiles if t.action]


def _played(r: m.SubmitTurnResponse) -> c.TurnPlayed:
    return next(ev.turn_played for ev in r.events if ev.HasField("turn_played"))


# --- "L Multipliers under letters played this turn" -----------------------------------------


def _word_and_multiplier(state: Any, plays: Any) -> Any:
    """A first word of 2..5 letters and a multiplier tile on the first player's rack."""
    tiles = [t for t in state.racks[0] if t[:1] == "@" and t[1:2].isdigit()]
    for mv in plays:
        play = mv.to_play(0)
        # a plain square: a multiplier tile put down on a square that has one replaces it
        # (docs/warofwords.md), and the expected score below assumes nothing was there
        board = state.ruleset.board
        under = [p for p in play.placements if p.letter not in ("*", "?") and not p.blank
                 and board.squares[p.row * board.cols + p.col].letter_mult == 1
                 and board.squares[p.row * board.cols + p.col].word_mult == 1]
        if tiles and 2 <= len(play.placements) <= 5 and under:
            return tiles[0], play, under[0]
    return None


async def test_a_multiplier_tile_put_down_under_a_letter_of_the_same_play_scores(harness: Harness) -> None:
    """"For any letters played during this turn, multiply the score listed on each letter by
    the value listed on any L Multipliers under it" / "For each W Multiplier under letters that
    were played during this turn, multiply the entire word's score": a multiplier tile laid with
    a letter on it in one play counts for that letter."""
    seed, (token, play, under) = _deal(FIELD, _word_and_multiplier)
    srv = await harness.start()
    mid = await harness.create(srv, ruleset=FIELD, seed=seed)
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    word = _pb_play(play.placements)
    base = await _preview(alice, mid, word)
    assert base.legal
    value = next(t.value for t in view.rack.tiles if t.letter == under.letter and not t.is_blank)
    factor = int(token[1:-1])
    # The multiplier goes on a plain square: it adds (n-1) x the letter (nL) or multiplies the
    # whole word (nW) of what the word scores without it.
    expected = base.breakdown.total + (factor - 1) * value if token.endswith("L") \
        else base.breakdown.total * factor
    both = [*word, _action(under.row, under.col, token)]
    preview = await _preview(alice, mid, both)
    assert preview.legal, preview.violation
    assert preview.breakdown.total == expected
    r = await alice.submit(mid, c.Move(play=c.PlayMove(placements=both)), view.last_seq)
    assert _played(r).points == expected
    square = next(sq for sq in (await alice.view(mid)).board.squares
                  if (sq.square.row, sq.square.col) == (under.row, under.col))
    assert square.tile.letter == under.letter and square.HasField("premium")


async def test_two_tiles_on_one_square_are_still_refused_unless_a_letter_tops_a_square_tile(
        harness: Harness) -> None:
    seed, (token, play, under) = _deal(FIELD, _word_and_multiplier)
    srv = await harness.start()
    mid = await harness.create(srv, ruleset=FIELD, seed=seed)
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    word = _pb_play(play.placements)
    twice = [*word, _action(under.row, under.col, token), _action(under.row, under.col, token)]
    preview = await _preview(alice, mid, twice)
    assert not preview.legal and preview.violation.code == e.RULE_CODE_DUPLICATE_SQUARE
    assert (await alice.view(mid)).last_seq == view.last_seq


# --- Quicksand "exactly as if all those tiles had been played" -------------------------------


def _word_on_plain_sand(state: Any, plays: Any) -> Any:
    """The Quicksand on the first rack and a first word lying on squares without premiums,
    with a Sand square under a letter worth less than the word."""
    from wordarena.engine.rulesets.layout import SAND

    if "@quicksand" not in state.racks[0]:
        return None
    board = state.ruleset.board
    for mv in plays:
        play = mv.to_play(0)
        squares = [board.square(p.row, p.col) for p in play.placements]
        if any(sq.letter_mult > 1 or sq.word_mult > 1 for sq in squares):
            continue
        values = [state.ruleset.tiles.value(p.letter) for p in play.placements]
        for p, sq, v in zip(play.placements, squares, values, strict=True):
            if sq.terrain == SAND and 0 < v < sum(values):
                return play, p
    return None


async def test_quicksand_rescores_the_words_as_played_not_each_letter(harness: Harness) -> None:
    """"As Quicksand expands, it re-scores every tile within its area of effect, exactly as if
    all those tiles had been played by their owners during that turn": Quicksand put on a
    letter of Alice's word (1x1 at the end of that turn) credits her the word again — the word,
    not the letter alone."""
    seed, (play, centre) = _deal(DESERT, _word_on_plain_sand)
    srv = await harness.start()
    mid = await harness.create(srv, ruleset=DESERT, seed=seed)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await alice.view(mid)
    r = await alice.submit(mid, c.Move(play=c.PlayMove(placements=_pb_play(play.placements))),
                           view.last_seq)
    played = _played(r)
    assert len(played.breakdown.words) == 1
    word = played.breakdown.words[0]
    await bob.submit(mid, pass_move(), (await bob.view(mid)).last_seq)
    sand = [_action(centre.row, centre.col, "@quicksand")]
    r = await alice.submit(mid, c.Move(play=c.PlayMove(placements=sand)), (await alice.view(mid)).last_seq)
    rescored = [ev.effect for ev in r.events
                if ev.HasField("effect") and ev.effect.kind == c.EFFECT_KIND_RESCORED]
    assert [(ef.seat, ef.points) for ef in rescored] == [(0, word.score)]
    letter = next(t.value for t in view.rack.tiles if t.letter == centre.letter and not t.is_blank)
    assert word.score > letter  # what re-scoring the letter alone gave


# --- "up to a maximum of 512 (which requires 9 Lightning tiles to achieve)" ------------------


async def test_the_supply_holds_the_nine_lightning_tiles_512_requires(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset=FIELD, seed=7)
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    bag = await alice.stub.TileBag(m.TileBagRequest(match_id=mid), metadata=alice.md)
    unseen = sum(tc.count for tc in bag.unseen if tc.tile.action == c.ACTION_KIND_LIGHTNING)
    mine = sum(1 for t in view.rack.tiles if t.action == c.ACTION_KIND_LIGHTNING)
    assert unseen + mine == 9  # 1 -> 2 -> 4 ... -> 512 is nine doublings


# --- "any letters remaining in each player's rack will be deducted" --------------------------


async def test_a_player_who_left_has_their_letters_deducted_at_the_end(harness: Harness) -> None:
    """"When the game ends, any letters remaining in each player's rack will be deducted from
    the player's score. This deduction occurs even if the game ended due to three consecutive
    passes" — the rack of a player who left included."""
    srv = await harness.start()
    mid = await harness.create(srv, ruleset=FIELD, players=("alice", "bob", "carol"), seed=5)
    alice, bob, carol = (harness.player(srv, p) for p in ("alice", "bob", "carol"))
    await alice.submit(mid, pass_move(), (await alice.view(mid)).last_seq)
    bob_view = await bob.view(mid)
    letters = sum(t.value for t in bob_view.rack.tiles if not t.action)
    assert letters > 0
    await bob.stub.LeaveMatch(m.LeaveMatchRequest(match_id=mid, request_id=uuid.uuid4().hex),
                              metadata=bob.md)
    await carol.submit(mid, pass_move(), (await carol.view(mid)).last_seq)
    r = await alice.submit(mid, pass_move(), (await alice.view(mid)).last_seq)
    over = next(ev.game_over for ev in r.events if ev.HasField("game_over"))
    assert over.reason == c.GAME_OVER_REASON_SCORELESS_TURNS
    final = {fs.seat: fs for fs in over.final_scores}
    assert final[1].rack_penalty == -letters and final[1].final_score == -letters
    assert 1 not in over.winner_seats


# --- "Resigning in a Pass and Play always ends the game immediately" -------------------------


async def test_a_resignation_ends_a_three_seat_pass_and_play_game(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset=FIELD, players=("alice", "alice", "alice"), seed=3,
                               pass_and_play=True)
    alice = harness.player(srv, "alice")
    await alice.submit(mid, pass_move(), (await alice.view(mid)).last_seq)
    view = await alice.view(mid)
    assert view.to_move_seat == 1
    r = await alice.stub.SubmitTurn(m.SubmitTurnRequest(
        match_id=mid, move=c.Move(resign=c.ResignMove()), expected_seq=view.last_seq,
        request_id=uuid.uuid4().hex, seat=1), metadata=alice.md)
    over = [ev.game_over for ev in r.events if ev.HasField("game_over")]
    assert len(over) == 1 and over[0].reason == c.GAME_OVER_REASON_PLAYERS_LEFT
    # No rack is deducted after a resignation; the two still playing tie on 0.
    assert all(fs.rack_penalty == 0 for fs in over[0].final_scores)
    assert sorted(over[0].winner_seats) == [0, 2]
    assert (await alice.view(mid)).status == m.MATCH_STATUS_FINISHED


async def test_leaving_in_the_first_round_is_no_loss_and_a_restart_keeps_it(harness: Harness) -> None:
    """"During the first round of turns, any player may choose to Leave Game without incurring
    a loss on their record": Alice resigns at her first turn, and her result is no result,
    before and after the server restarts from its log (the stored game-over keeps who left in
    the first round; a commit-path mutant that dropped it survived every test); Bob, after the
    first round, loses when he resigns."""
    srv = await harness.start()
    mid = await harness.create(srv, ruleset=FIELD, players=("alice", "bob", "carol"))
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await alice.view(mid)
    await alice.submit(mid, c.Move(resign=c.ResignMove()), view.last_seq)
    view = await bob.view(mid)
    assert not view.HasField("result")  # two players remain: the game goes on
    await bob.submit(mid, pass_move(), view.last_seq)
    carol = harness.player(srv, "carol")
    view = await carol.view(mid)
    await carol.submit(mid, pass_move(), view.last_seq)  # the first round is over
    view = await bob.view(mid)
    await bob.submit(mid, c.Move(resign=c.ResignMove()), view.last_seq)
    outcomes = [fs.outcome for fs in (await carol.view(mid)).result.final_scores]
    assert outcomes == [c.OUTCOME_NO_RESULT, c.OUTCOME_LOSS, c.OUTCOME_WIN]
    await srv.stop(0.5)
    srv2 = await harness.start()
    again = await harness.player(srv2, "carol").view(mid)
    assert [fs.outcome for fs in again.result.final_scores] == outcomes
