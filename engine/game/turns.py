"""The one game loop: ``start_game`` and ``apply(state, action) -> (state, events)``.

Family differences come from the ruleset's policies (word check, exchange rule, zero-turn rule,
out rule …) and its hooks (``engine.game.play``: how a play is placed and carried out, what acts
between turns); nothing here branches on the family's name. A refused action raises ``RuleError``
and the caller keeps its old state (states are immutable, so nothing is half-applied).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from wordarena.engine.board import without_tiles
from wordarena.engine.errors import InputError, Rule, RuleError
from wordarena.engine.game.actions import (
    Action,
    Decide,
    Exchange,
    Kick,
    Leave,
    Pass,
    Play,
    Resign,
    TimeOut,
    action_to_dict,
)
from wordarena.engine.game.endgame import after_turn, end_by_departure
from wordarena.engine.game.events import Event
from wordarena.engine.game.play import commit_play, evaluate_play, replace_at
from wordarena.engine.game.rng import rng_for
from wordarena.engine.game.state import RULES, GameState, Lexicon, PendingPlay, Seat, initial_cells
from wordarena.engine.placement import check_tokens_on_rack, word_text
from wordarena.engine.rulesets.model import Ruleset, WordCheck
from wordarena.engine.tiles import is_action, remove_tokens
from wordarena.engine.words import invalid_words, resolve_words

Events = list[Event]


def start_game(
    ruleset: Ruleset,
    players: int,
    seed: int,
    lexicon: Lexicon | None = None,
    check_words: bool = True,
    word_check: WordCheck | None = None,
    *,
    rules: int = RULES,
    pass_and_play: bool = False,
) -> tuple[GameState, Events]:
    """A new match: the bag shuffled from ``seed``, racks dealt in seat order, seat 0 to move.

    ``word_check`` overrides when the ruleset checks words (a table's challenge mode: Word Tiles
    played with instant checks); ``rules`` is the rules version (``state.RULES``; older ones
    only to replay old logs); ``pass_and_play``: one device plays every seat ("Resigning in a
    Pass and Play always ends the game immediately"). The game-started event records all three,
    so a replay plays the same."""
    override = word_check is not None and word_check is not ruleset.word_check
    if word_check is not None and override:
        ruleset = replace(ruleset, word_check=word_check)
    if not ruleset.min_players <= players <= ruleset.max_players:
        raise InputError(
            f"{ruleset.name} is played by {ruleset.min_players}-{ruleset.max_players} players, "
            f"not {players}", "players",
        )
    if check_words and lexicon is None:
        raise InputError("a lexicon is needed to check words (or pass check_words=False)",
                         "lexicon")
    rng = rng_for(seed, 0)
    bag = list(ruleset.tiles.initial_bag(rules))
    rng.shuffle(bag)
    bonus = rng.choice(ruleset.tiles.letters) if ruleset.bonus_letter else None
    racks = []
    for _ in range(players):
        racks.append(tuple(bag[: ruleset.rack_size]))
        del bag[: ruleset.rack_size]
    patches = max(ruleset.board.water_patch, default=-1) + 1
    state = GameState(
        ruleset=ruleset, seed=seed, cells=initial_cells(ruleset), racks=tuple(racks),
        bag=tuple(bag), scores=(0,) * players, to_move=0, seats=(Seat.ACTIVE,) * players,
        exchanges=(0,) * players, bonus_letter=bonus, electrification=(1,) * patches,
        check_words=check_words, lexicon=lexicon, effects=ruleset.hooks.initial_effects(ruleset),
        rules=rules, pass_and_play=pass_and_play,
    )
    started = Event("game-started", None, {
        "ruleset": ruleset.id, "players": players, "seed": seed, "check_words": check_words,
        "bonus_letter": bonus,
        **({"word_check": ruleset.word_check.value} if override else {}),
        **({"rules": rules} if rules != 1 else {}),
        **({"pass_and_play": True} if pass_and_play else {}),
        "private": {"racks": [list(r) for r in racks]},
    })
    return state, [started]


def apply(state: GameState, action: Action, *,
          overtime: Sequence[float] | None = None) -> tuple[GameState, Events]:
    """Apply one action. Returns the new state and the events it caused; raises ``RuleError``
    (state unchanged) when the action breaks a rule.

    ``overtime``: in a game with an overtime penalty (scrabble), the seconds each seat's game
    clock has run past zero when the action is taken, as measured by the match server. Time
    enters the engine only as this data, logged with the action (``overtime``), so a replay
    ends the game with the same penalties (``outcome.overtime_penalties``)."""
    if state.over:
        raise RuleError(Rule.GAME_OVER, "the game is over")
    if not 0 <= action.seat < state.players:
        raise RuleError(Rule.NOT_ALLOWED, f"there is no seat {action.seat}")
    if overtime is not None:
        state = state.evolve(overtime=_overtime(overtime, state.players))
    handler = _HANDLERS[type(action)]
    new_state, events = handler(state, action)
    events[0].data["action"] = action_to_dict(action)
    if overtime is not None:
        events[0].data["overtime"] = list(new_state.overtime)
    if not new_state.over and new_state.to_move < state.to_move:
        # The turn came back round to the first seat: a round of turns is complete.
        new_state = new_state.evolve(rounds=new_state.rounds + 1)
    return new_state, events


# --- checks shared by the turn actions ---------------------------------------------------


def _require_active(state: GameState, seat: int) -> None:
    if state.seats[seat] is not Seat.ACTIVE:
        raise RuleError(Rule.PLAYER_NOT_ACTIVE, f"seat {seat} is no longer in the game")


def _require_turn(state: GameState, seat: int) -> None:
    _require_active(state, seat)
    if seat != state.to_move:
        raise RuleError(Rule.NOT_YOUR_TURN, f"it is seat {state.to_move}'s turn, not seat {seat}'s")


def _require_no_pending(state: GameState) -> None:
    if state.pending is not None:
        raise RuleError(Rule.PENDING_DECISION, "accept or check the pending play first")


# --- play ----------------------------------------------------------------------------------


def _play(state: GameState, action: Play) -> tuple[GameState, Events]:
    _require_turn(state, action.seat)
    _require_no_pending(state)
    verdict = evaluate_play(state, action.placements, action.seat, action.moves)
    if verdict.error is not None:
        raise verdict.error
    return state.ruleset.hooks.apply_play(state, action, verdict)


# --- wordtiles: accept or check ------------------------------------------------------------


def _decide(state: GameState, action: Decide) -> tuple[GameState, Events]:
    # Only the decider (the seat to move while a play is pending) has something to decide: to
    # any other seat there is no pending play, whose turn it is aside (match.proto's promise).
    _require_active(state, action.seat)
    pending = state.pending
    if pending is None:
        raise RuleError(Rule.NOTHING_PENDING, "there is no pending play to accept or check")
    if action.seat != state.to_move:
        raise RuleError(Rule.NOTHING_PENDING,
                        f"seat {state.to_move} decides the pending play, not seat {action.seat}")
    if action.accept:
        state, events = commit_play(state, pending.seat, pending.geometry, pending.words,
                                     pending.breakdown, "play-accepted", advance=False)
        events[0] = Event("play-accepted", action.seat, events[0].data | {"by": pending.seat})
        return state, events
    if state.lexicon is None:
        raise RuleError(Rule.NOT_ALLOWED, "no lexicon is loaded to check words against")
    texts = [word_text(state.cells, w) for w in pending.geometry.words]
    resolved = resolve_words(texts, state.lexicon, state.ruleset.tiles.letters)
    bad = invalid_words(texts, resolved)
    if not bad:
        # The play holds: it stands and the checker loses the turn.
        state, events = commit_play(state, pending.seat, pending.geometry, pending.words,
                                     pending.breakdown, "play-checked", advance=False)
        events[0] = Event("play-checked", action.seat,
                          events[0].data | {"by": pending.seat, "held": True})
        if not state.over:
            state, more = after_turn(state, action.seat, "lost", [], advance=True)
            events += more
        return state, events
    # The play fails: taken back (a pass for its player) and the checker plays.
    state = _take_back(state, pending)
    event = Event("play-checked", action.seat, {
        "by": pending.seat, "held": False, "invalid_words": list(bad),
        "returned": [[i, t.letter, t.blank] for i, t in pending.geometry.placed],
    })
    return after_turn(state, pending.seat, "failed", [event], advance=False, turn_taken=False)


def _take_back(state: GameState, pending: PendingPlay) -> GameState:
    """Lift a pending play off the board and give its tiles back to its player."""
    indexes = [i for i, _ in pending.geometry.placed]
    racks = replace_at(state.racks, pending.seat, state.racks[pending.seat] + pending.tokens)
    return state.evolve(cells=without_tiles(state.cells, indexes), racks=racks, pending=None,
                        last_play=())


# --- pass and exchange ---------------------------------------------------------------------


def _pass(state: GameState, action: Pass) -> tuple[GameState, Events]:
    _require_turn(state, action.seat)
    _require_no_pending(state)
    return after_turn(state, action.seat, "pass", [Event("passed", action.seat)])


def _exchange(state: GameState, action: Exchange) -> tuple[GameState, Events]:
    _require_turn(state, action.seat)
    _require_no_pending(state)
    rule = state.ruleset.exchange
    if not action.tiles:
        raise RuleError(Rule.NO_TILES, "name the tiles to exchange")
    unknown = [t for t in action.tiles
               if not isinstance(t, str) or (t not in state.ruleset.tiles.counts and not is_action(t))]
    if unknown:
        raise RuleError(Rule.LETTER_NOT_IN_SET,
                        f"not tiles of the {state.ruleset.tiles.id} set: {', '.join(map(repr, unknown))}")
    check_tokens_on_rack(state.racks[action.seat], action.tiles)
    used = state.exchanges[action.seat]
    if rule.per_player is not None and used >= rule.per_player:
        raise RuleError(Rule.EXCHANGE_LIMIT,
                        f"each player may exchange {rule.per_player} times a game; you have")
    need = max(rule.min_bag, len(action.tiles))
    if len(state.bag) < need:
        raise RuleError(Rule.EXCHANGE_BAG_TOO_SMALL,
                        f"exchanging needs at least {need} tiles in the bag; it has {len(state.bag)}")
    k = len(action.tiles)
    drawn = state.bag[:k]
    bag = list(state.bag[k:]) + list(action.tiles)
    rng_for(state.seed, state.rng_counter).shuffle(bag)
    rack = remove_tokens(state.racks[action.seat], action.tiles) + drawn
    exchanges = replace_at(state.exchanges, action.seat, used + 1)
    state = state.evolve(racks=replace_at(state.racks, action.seat, rack), bag=tuple(bag),
                         exchanges=exchanges, rng_counter=state.rng_counter + 1)
    event = Event("exchanged", action.seat, {
        "count": k, "private": {"returned": list(action.tiles), "drawn": list(drawn)},
    })
    return after_turn(state, action.seat, "exchange", [event])


# --- leaving the game ----------------------------------------------------------------------


def _depart(state: GameState, seat: int, status: Seat, event_type: str,
            extra: dict[str, Any] | None = None) -> tuple[GameState, Events]:
    _require_active(state, seat)
    seats = replace_at(state.seats, seat, status)
    was_to_move = state.to_move == seat
    data: dict[str, Any] = {"first_round": state.rounds == 0} | (extra or {})
    pending = state.pending
    if pending is not None and pending.seat == seat:
        # A play still waiting for a decision leaves with its player: only confirmed letters
        # stay on the board, and nobody is asked to judge the play of someone who has gone.
        state = _take_back(state, pending)
        data["returned"] = [[i, t.letter, t.blank] for i, t in pending.geometry.placed]
    state = state.evolve(seats=seats)
    events = [Event(event_type, seat, data)]
    if len(state.active_seats) < 2:
        return end_by_departure(state, event_type, events)
    if was_to_move:
        state = state.evolve(to_move=state.next_active(seat))
    return state, events


def _resign(state: GameState, action: Resign) -> tuple[GameState, Events]:
    """"Resigning in a Pass and Play always ends the game immediately": however many players
    remain, the best score among them wins, and no rack is deducted."""
    state, events = _depart(state, action.seat, Seat.RESIGNED, "resigned")
    if state.pass_and_play and state.result is None:
        return end_by_departure(state, "resigned", events)
    return state, events


def _timeout(state: GameState, action: TimeOut) -> tuple[GameState, Events]:
    return _depart(state, action.seat, Seat.TIMED_OUT, "timed-out")


def _leave(state: GameState, action: Leave) -> tuple[GameState, Events]:
    return _depart(state, action.seat, Seat.LEFT, "left")


def _kick(state: GameState, action: Kick) -> tuple[GameState, Events]:
    if not state.ruleset.idle_kick:
        raise RuleError(Rule.NOT_ALLOWED, f"{state.ruleset.name} has no Kick Idle Player")
    if not 0 <= action.by < state.players or action.by == action.seat \
            or state.seats[action.by] is not Seat.ACTIVE:
        raise RuleError(Rule.NOT_ALLOWED, "only another active player can kick an idle player")
    if state.seats[action.seat] is Seat.ACTIVE and action.seat != state.to_move:
        raise RuleError(Rule.NOT_ALLOWED,
                        f"seat {action.seat} is not idle: it is seat {state.to_move}'s turn")
    return _depart(state, action.seat, Seat.KICKED, "kicked", {"by": action.by})


_HANDLERS: dict[type, Any] = {
    Play: _play, Decide: _decide, Pass: _pass, Exchange: _exchange, Resign: _resign,
    TimeOut: _timeout, Leave: _leave, Kick: _kick,
}


# --- small helpers -------------------------------------------------------------------------


def _overtime(values: Sequence[float], players: int) -> tuple[float, ...]:
    """Each seat's time over, checked: one non-negative number of seconds per seat."""
    try:
        out = tuple(float(v) for v in values)
    except (TypeError, ValueError) as exc:
        raise InputError(f"overtime must be seconds per seat: {exc}", "overtime") from exc
    if len(out) != players or any(not v >= 0 for v in out):
        raise InputError(f"overtime must be {players} non-negative seconds", "overtime")
    return out
