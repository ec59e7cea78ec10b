"""Turn bookkeeping and the end of the game: zero-turn runs, going out, final adjustments and
winners — each family's rule taken from its ruleset's policies."""

from __future__ import annotations

from wordarena.engine.game.events import Event
from wordarena.engine.game.outcome import outcomes, overtime_penalties, winners
from wordarena.engine.game.state import GameResult, GameState, Seat
from wordarena.engine.rulesets.model import OutRule
from wordarena.engine.tiles import is_letter_token

Events = list[Event]


def after_turn(
    state: GameState, seat: int, kind: str, events: Events, *, advance: bool = True,
    turn_taken: bool = True,
) -> tuple[GameState, Events]:
    """Book a finished turn of ``kind`` (word, scoreless, pass, exchange, failed, lost), end the
    game if a rule says so, else hand the turn on (when ``advance``)."""
    state = state.ruleset.hooks.end_of_turn(state, seat, events)  # War of Words: effects, clouds
    rule = state.ruleset.zero_turns
    zero_run = state.zero_run + 1 if kind in rule.counts else 0
    state = state.evolve(zero_run=zero_run, turn=state.turn + (1 if turn_taken else 0))
    if kind in ("word", "scoreless") and _went_out(state, seat):
        return end_game(state, "out", events, out_seat=seat)
    if zero_run >= zero_turn_limit(state):
        return end_game(state, "zero-turns", events)
    if advance:
        state = state.evolve(to_move=state.next_active(seat))
    return state, events


def zero_turn_limit(state: GameState) -> int:
    """How long a run of zero turns ends this game now."""
    rule = state.ruleset.zero_turns
    if rule.zero_zero_limit is not None and not any(state.scores):
        return rule.zero_zero_limit
    return rule.limit * (len(state.active_seats) if rule.per_active_player else 1)


def _went_out(state: GameState, seat: int) -> bool:
    # The rack first: it is short, the bag is not.
    return not any(is_letter_token(t) for t in state.racks[seat]) and state.bag_letters() == 0


def end_game(
    state: GameState, reason: str, events: Events, out_seat: int | None = None
) -> tuple[GameState, Events]:
    """Apply the end-of-game rack rule and overtime penalties, and decide the winners."""
    adjustments = _adjustments(state, reason, out_seat)
    penalties = overtime_penalties(state.ruleset.clock, state.overtime, state.players)
    scores = tuple(s + a + p for s, a, p in zip(state.scores, adjustments, penalties, strict=True))
    won = winners(outcomes(state.ruleset.family, state.seats, scores, reason))
    return _finish(state, GameResult(reason, scores, adjustments, won, penalties), events)


def end_by_departure(state: GameState, how: str, events: Events) -> tuple[GameState, Events]:
    """Fewer than two players remain: no rack deductions; the one left wins — except after a
    warofwords kick, where the one left wins only with the higher score (``outcome``)."""
    penalties = overtime_penalties(state.ruleset.clock, state.overtime, state.players)
    scores = tuple(s + p for s, p in zip(state.scores, penalties, strict=True))
    won = winners(outcomes(state.ruleset.family, state.seats, scores, how))
    result = GameResult(how, scores, (0,) * state.players, won, penalties)
    return _finish(state, result, events)


def _adjustments(state: GameState, reason: str, out_seat: int | None) -> tuple[int, ...]:
    adj = [0] * state.players
    active = [i for i, s in enumerate(state.seats) if s is Seat.ACTIVE]
    if reason == "out" and out_seat is not None and state.ruleset.out_rule is not OutRule.DEDUCT:
        others = sum(state.rack_value(i) for i in active if i != out_seat)
        if state.ruleset.out_rule is OutRule.TRANSFER:
            for i in active:
                if i != out_seat:
                    adj[i] = -state.rack_value(i)
            adj[out_seat] = others
        else:  # DOUBLE
            adj[out_seat] = 2 * others
        return tuple(adj)
    # War of Words (DEDUCT): "any letters remaining in each player's rack will be deducted",
    # inactive players' too (since rules version 2).
    everyone = state.ruleset.out_rule is OutRule.DEDUCT and state.rules >= 2
    for i in range(state.players) if everyone else active:
        adj[i] = -state.rack_value(i)
    return tuple(adj)


def _finish(state: GameState, result: GameResult, events: Events) -> tuple[GameState, Events]:
    data = {
        "reason": result.reason,
        "scores": list(result.scores),
        "adjustments": list(result.adjustments),
        "winners": list(result.winners),
        "racks": [list(r) for r in state.racks],
    }
    if any(result.overtime_penalties):
        data["overtime_penalties"] = list(result.overtime_penalties)
    events.append(Event("game-over", None, data))
    return state.evolve(result=result, scores=result.scores, pending=None), events
