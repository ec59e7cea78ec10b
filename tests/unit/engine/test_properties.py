"""Properties of the state machine over random games on every family (hypothesis):

- tiles are conserved: bag + racks + board = the set dealt at the start, after any sequence of
  accepted actions (a pending wordtiles play lies on the board);
- a refused action (``RuleError`` / ``InputError``) leaves the state exactly as it was;
- replaying the event log from the seed rebuilds the state exactly;
- events and actions survive a JSON round trip.

Games are driven by random "legal-ish" actions: mostly plays laid next to tiles already on the
board (or over the start square / a Star / Water), some passes, exchanges, wordtiles decisions,
departures, out-of-turn and malformed actions. The lexicon accepts every word without a Z, so
classic/scrabble/warofwords refuse some plays and wordtiles checks sometimes fail.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wordarena.engine.errors import EngineError, RuleError
from wordarena.engine.families import get_ruleset, replay
from wordarena.engine.game import (
    Decide,
    Exchange,
    GameState,
    Kick,
    Leave,
    Pass,
    Play,
    Resign,
    TimeOut,
    action_from_dict,
    action_to_dict,
    apply,
    start_game,
)
from wordarena.engine.game.events import Event
from wordarena.engine.placement import Placement
from wordarena.engine.rulesets.layout import STAR, WATER
from wordarena.engine.tiles import BLANK, WILDCARD, is_letter_token


class NoZ:
    """Every word is valid unless it holds a Z."""

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and "Z" not in word


LEXICON = NoZ()

RULESETS = [("classic", "en", None, 2), ("wordtiles", "en", None, 4), ("wordtiles", "pl", None, 3),
            ("scrabble", "en", None, 4), ("warofwords", "en", None, 3),
            ("warofwords", "en", "warofwords-oasis", 2)]


def tiles_everywhere(state: GameState) -> Counter[str]:
    """Every letter tile of the game, wherever it lies."""
    counter = Counter(t for t in state.bag if is_letter_token(t))
    for rack in state.racks:
        counter.update(t for t in rack if is_letter_token(t))
    counter.update(c.token for c in state.cells if c is not None)
    return counter


def _start_squares(state: GameState) -> list[int]:
    layout = state.ruleset.board
    if layout.start is not None:
        return [layout.start]
    return [i for i, sq in enumerate(layout.squares) if sq.terrain in (STAR, WATER)]


def draw_play(data: st.DataObject, state: GameState, seat: int) -> Play:
    layout = state.ruleset.board
    rack = [t for t in state.racks[seat] if is_letter_token(t)] or ["A"]
    n = data.draw(st.integers(1, len(rack)), label="tiles")
    tokens = data.draw(st.permutations(rack), label="order")[:n]
    occupied = [i for i, c in enumerate(state.cells) if c is not None]
    anchor = data.draw(st.sampled_from(occupied or _start_squares(state)), label="anchor")
    across = data.draw(st.booleans(), label="across")
    row, col = divmod(anchor, layout.cols)
    back = data.draw(st.integers(0, n), label="back")
    if across:
        col -= back
    else:
        row -= back
    squares: list[tuple[int, int]] = []
    while len(squares) < n and layout.in_bounds(row, col):
        if state.cells[layout.index(row, col)] is None:
            squares.append((row, col))
        row, col = (row, col + 1) if across else (row + 1, col)
    letters = state.ruleset.tiles.letters
    placements = []
    for (r, c), token in zip(squares, tokens, strict=False):
        if token == BLANK:
            placements.append(Placement(r, c, data.draw(st.sampled_from(letters)), True))
        elif token == WILDCARD:
            placements.append(Placement(r, c, WILDCARD))
        else:
            placements.append(Placement(r, c, token))
    mischief = data.draw(st.integers(0, 19), label="mischief")
    if mischief == 19 and placements:  # off the board
        p = placements[-1]
        placements[-1] = Placement(p.row + layout.rows, p.col, p.letter, p.blank)
    elif mischief == 18 and placements:  # a letter the set lacks
        p = placements[0]
        placements[0] = Placement(p.row, p.col, "1", p.blank)
    elif mischief == 17:  # a tile not on the rack
        placements.append(Placement(0, 0, "Q"))
    return Play(seat, tuple(placements))


def draw_action(data: st.DataObject, state: GameState):
    seat = state.to_move
    if data.draw(st.integers(0, 9), label="wrong seat") == 9:
        seat = data.draw(st.integers(0, state.players - 1), label="seat")
    roll = data.draw(st.integers(0, 99), label="kind")
    if state.pending is not None and roll < 50:
        return Decide(seat, data.draw(st.booleans(), label="accept"))
    if roll < 60:
        return draw_play(data, state, seat)
    if roll < 75:
        return Pass(seat)
    if roll < 90:
        rack = list(state.racks[seat]) or ["E"]
        k = data.draw(st.integers(1, len(rack)), label="swap")
        tiles = tuple(data.draw(st.permutations(rack), label="swapped")[:k])
        if data.draw(st.integers(0, 9), label="bad swap") == 9:
            tiles = (*tiles, data.draw(st.sampled_from(["1", "é", "@nothing", "Q"])))
        return Exchange(seat, tiles)
    if roll < 92:
        return Decide(seat, data.draw(st.booleans(), label="accept"))
    if roll < 94:
        return Resign(seat)
    if roll < 96:
        return TimeOut(seat)
    if roll < 98:
        return Leave(seat)
    return Kick(seat, data.draw(st.integers(0, state.players - 1), label="by"))


def json_round_trip(events: list[Event]) -> None:
    for event in events:
        assert Event.from_dict(json.loads(json.dumps(event.to_dict()))) == event
        if "action" in event.data:
            assert action_to_dict(action_from_dict(event.data["action"])) == event.data["action"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.sampled_from(RULESETS), seed=st.integers(0, 2**32), data=st.data())
def test_random_games_conserve_tiles_refuse_cleanly_and_replay_exactly(which, seed, data):
    family, language, board, max_players = which
    ruleset = get_ruleset(family, language, board)
    players = data.draw(st.integers(2, max_players), label="players")
    check = data.draw(st.booleans(), label="check words")
    state, log = start_game(ruleset, players, seed, LEXICON if check else None, check)
    initial = tiles_everywhere(state)
    steps = data.draw(st.integers(1, 40), label="steps")
    accepted = 0
    for _ in range(steps):
        if state.over:
            break
        action = draw_action(data, state)
        before = state
        try:
            state, events = apply(state, action)
        except RuleError as err:
            assert err.rule.value == err.code
            assert state == before  # refused: nothing changed
            continue
        except EngineError:
            assert state == before
            continue
        accepted += 1
        assert events and "action" in events[0].data
        json_round_trip(events)
        log += events
        assert tiles_everywhere(state) == initial
        assert all(len([t for t in r if is_letter_token(t)]) <= ruleset.rack_size for r in state.racks)
    rebuilt = replay(log, lambda name: LEXICON)
    assert rebuilt == state
    if state.over:
        assert state.result is not None
        assert set(state.result.winners) <= set(state.active_seats)  # () when nobody wins


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), data=st.data())
def test_refused_actions_change_nothing_even_mid_game(seed, data):
    """Drive a classic game a few accepted steps, then hurl out-of-turn and malformed actions."""
    state, _ = start_game(get_ruleset("classic"), 2, seed, None, False)
    for _ in range(data.draw(st.integers(0, 6), label="warm-up")):
        if state.over:
            return
        with contextlib.suppress(EngineError):
            state, _ = apply(state, draw_action(data, state))
    if state.over:
        return
    wrong = 1 - state.to_move
    for action in (Pass(wrong), Exchange(wrong, state.racks[wrong][:1]),
                   Play(state.to_move, (Placement(99, 0, "A"),)), Decide(state.to_move, True),
                   Exchange(state.to_move, ("1",)), Play(state.to_move, ())):
        before = state
        try:
            apply(state, action)
        except EngineError:
            assert state == before
        else:  # pragma: no cover - every one of these breaks a rule
            raise AssertionError(f"{action} was accepted")


actions = st.one_of(
    st.builds(Pass, st.integers(0, 3)),
    st.builds(Resign, st.integers(0, 3)),
    st.builds(TimeOut, st.integers(0, 3)),
    st.builds(Leave, st.integers(0, 3)),
    st.builds(Kick, st.integers(0, 3), st.integers(0, 3)),
    st.builds(Decide, st.integers(0, 3), st.booleans()),
    st.builds(Exchange, st.integers(0, 3), st.lists(st.sampled_from("AB?*Ñ"), max_size=8).map(tuple)),
    st.builds(Play, st.integers(0, 3), st.lists(st.builds(
        Placement, st.integers(0, 20), st.integers(0, 20), st.sampled_from("ABCŻ*"), st.booleans()),
        max_size=8).map(tuple)),
)


@given(actions)
def test_actions_round_trip_through_json(action):
    data = json.loads(json.dumps(action_to_dict(action)))
    assert action_from_dict(data) == action


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.sampled_from(RULESETS), seed=st.integers(0, 2**32), data=st.data())
def test_endgames_conserve_tiles_and_settle_racks_by_the_family_rule(which, seed, data):
    """Games started with a nearly empty bag, so that they run out: tiles stay conserved and the
    end-of-game adjustments follow the family's out rule."""
    family, language, board, max_players = which
    ruleset = get_ruleset(family, language, board)
    players = data.draw(st.integers(2, max_players), label="players")
    state, _ = start_game(ruleset, players, seed, LEXICON, True)
    keep = data.draw(st.integers(0, 6), label="bag left")
    state = state.evolve(bag=state.bag[:keep])
    initial = tiles_everywhere(state)
    for _ in range(80):
        if state.over:
            break
        try:
            state, _ = apply(state, draw_action(data, state))
        except EngineError:
            continue
        assert tiles_everywhere(state) == initial
    if not state.over or state.result.reason not in ("out", "zero-turns"):
        return
    result = state.result
    assert result.scores == tuple(s for s in state.scores)
    racks = [sum(ruleset.tiles.value(t) for t in r if is_letter_token(t)) for r in state.racks]
    active = set(state.active_seats)
    rule = ruleset.out_rule.value
    # War of Words from rules version 2 deducts the letters of players who have left as well
    # ("any letters remaining in each player's rack"); other families leave them alone.
    inactive_deducted = rule == "deduct" and state.rules >= 2
    for seat in range(players):
        if seat not in active:
            assert result.adjustments[seat] == (-racks[seat] if inactive_deducted else 0)
        elif result.reason == "zero-turns" or rule == "deduct":
            assert result.adjustments[seat] == -racks[seat]
    if result.reason == "out" and rule == "transfer":
        assert sum(result.adjustments) == 0
    if result.reason == "out" and rule == "double":
        assert sum(result.adjustments) == 2 * sum(racks[s] for s in active)
    best = max(result.scores[s] for s in active)
    assert result.winners == tuple(s for s in sorted(active) if result.scores[s] == best)
