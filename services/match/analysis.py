"""The analysis RPCs' engine work: Hindsight and Word Strength (``engine.analysis``) turned into
contract messages.

Everything here is blocking (move generation) and runs in the match manager's engine worker
threads (``MatchManager.run_blocking``), on immutable engine states, never on the event loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from wordarena.engine.analysis import best_by_simulation, hindsight, word_strength
from wordarena.engine.analysis.sight import visible_moves
from wordarena.engine.families import replay
from wordarena.engine.game import GameState, Play
from wordarena.engine.game.actions import Move as EffectShift
from wordarena.engine.game.actions import action_from_dict
from wordarena.engine.game.play import PlayVerdict, evaluate_play
from wordarena.engine.movegen import Move, describe_move
from wordarena.engine.movegen.api import board_ruleset
from wordarena.engine.placement import Placement
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.tiles import remove_tokens
from wordarena.engine.warofwords.arena import portal_links
from wordarena.engine.warofwords.clouds import hidden_squares, preview_allowed
from wordarena.engine.warofwords.foresight import foresee
from wordarena.services.match import messages, sight
from wordarena.services.match.store import StoredEvent
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m

# Stored event kinds that are a seat's own turn (the head engine event carries the action).
TURN_KINDS = frozenset({"turn-played", "play-pending", "turn-passed", "tiles-exchanged", "resigned"})
MAX_HINDSIGHT = 20


def turn_seat(ev: StoredEvent) -> int | None:
    """The seat whose turn ``ev`` is, or None when it is not a turn."""
    if ev.kind not in TURN_KINDS:
        return None
    head = ev.event.head
    if "action" not in head.data:
        return None
    return head.seat


def find_turn(events: Sequence[StoredEvent], seat: int, turn_seq: int) -> StoredEvent | None:
    """The stored turn to analyse: the event at ``turn_seq`` (any seat's turn), or with
    ``turn_seq`` 0 the latest turn of ``seat``; None when there is no such turn."""
    if turn_seq:
        if not 1 <= turn_seq <= len(events):
            return None
        ev = events[turn_seq - 1]
        return ev if turn_seat(ev) is not None else None
    for ev in reversed(events):
        if turn_seat(ev) == seat:
            return ev
    return None



def _play_pb(ruleset: Ruleset, placed: Sequence[Sequence[Any]]) -> c.PlayMove:
    return c.PlayMove(placements=messages.placements(ruleset, placed))


def analysed_move(state: GameState, seat: int, move: Move) -> m.AnalysedPlay:
    """An AnalysedPlay for a generated move in ``state``: placements, breakdown, notation, leave."""
    r = board_ruleset(state)  # War of Words: the board as action tiles left it
    info = describe_move(r, state.cells, move, effects=state.board_effects,
                         links=portal_links(state))
    placed = [[i, letter, blank] for i, letter, blank in move.tiles]
    return m.AnalysedPlay(
        play=_play_pb(r, placed),
        breakdown=messages.breakdown(r, info.breakdown.to_dict(), move.tile_count),
        notation=info.notation,
        leave=[messages.tile(r, t) for t in remove_tokens(state.racks[seat], move.tokens)],
    )


def state_before(events: Sequence[StoredEvent], seq: int,
                 lexicon_for: Callable[[str], Any]) -> GameState:
    """The engine state just before stored event ``seq``, replayed from the log."""
    return replay([ee for ev in events[: seq - 1] for ee in ev.event.engine], lexicon_for)


def hindsight_response(events: Sequence[StoredEvent], turn: StoredEvent, limit: int,
                       lexicon_for: Callable[[str], Any]) -> tuple[m.HindsightResponse, GameState]:
    """Hindsight for the stored turn ``turn``: the best plays from the rack held then, what was
    played, its rank among the legal plays and how many there were; and the state the turn was
    played in (for ``simulated_plays``, which "best by simulation" adds in a bot worker)."""
    head = turn.event.head
    assert head.seat is not None  # find_turn: a seat's turn
    seat = head.seat
    state = state_before(events, turn.seq, lexicon_for)
    action = action_from_dict(head.data["action"])
    verdict = hindsight(state, action, seat, top=limit)
    out = m.HindsightResponse(turn_seq=turn.seq, legal_play_count=verdict.total)
    for alt in verdict.best:
        out.best.append(analysed_move(state, seat, alt.move))
    if isinstance(action, Play) and verdict.rank == 0 and not preview_allowed(state, action.placements):
        # The play reached under a cloud: shown as its turn was (tiles, no words), never ranked.
        r = state.ruleset
        hidden = hidden_squares(state)
        out.played.CopyFrom(m.AnalysedPlay(play=c.PlayMove(placements=messages.placements(r, [
            [i, p.letter, p.blank] for p in action.placements
            if (i := r.board.index(p.row, p.col)) not in hidden]))))
    elif isinstance(action, Play):
        r = state.ruleset
        data = head.data
        placed = data.get("placed") or [[r.board.index(p.row, p.col), p.letter, p.blank]
                                         for p in action.placements]
        played = m.AnalysedPlay(
            play=_play_pb(r, placed),
            leave=[messages.tile(r, t) for t in
                   remove_tokens(state.racks[seat], [p.token for p in action.placements])],
        )
        if "breakdown" in data:
            played.breakdown.CopyFrom(messages.breakdown(r, data["breakdown"], len(placed)))
        played.notation = turn.event.notation  # as the log wrote it (core.events.play_notation)
        out.played.CopyFrom(played)
        out.played_rank = verdict.rank
    return out, state


def simulated_plays(state: GameState, seat: int, limit: int) -> list[m.SimulatedPlay]:
    """The SimulatedPlay messages of ``best_by_simulation`` (at least ``limit`` candidates)."""
    r = board_ruleset(state)
    out = []
    for alt in best_by_simulation(state, seat, limit):
        cand = alt.candidate
        sim = m.SimulatedPlay(equity=cand.equity, mean_spread=cand.mean,
                              spread_error=cand.stderr if cand.n > 1 else 0.0,
                              iterations=cand.n, win_chance=cand.win)
        if cand.move is not None:
            sim.play.CopyFrom(analysed_move(state, seat, cand.move))
        else:
            sim.exchange.extend(messages.tile(r, t) for t in cand.exchange)
        out.append(sim)
    return out


def _verdict_breakdown(verdict: PlayVerdict) -> c.ScoreBreakdown | None:
    if verdict.breakdown is None or verdict.ruleset is None:
        return None
    return messages.breakdown(verdict.ruleset, verdict.breakdown.to_dict(), len(verdict.tokens))


def _verdict_violation(verdict: PlayVerdict) -> e.RuleViolation | None:
    exc = verdict.error
    return None if exc is None else messages.rule_violation(exc.code, str(exc), exc.words)


def preview_response(state: GameState, seat: int, placements: Sequence[Placement],
                     shifts: Sequence[EffectShift] = ()) -> m.PreviewPlayResponse:
    """PreviewPlay: the engine's verdict on a tentative play of ``seat`` with the Rain /
    Whirlwind moves ``shifts`` (the one evaluator ``apply`` uses, so the rule and the score are
    what submitting the play would give), with the breakdown whenever the placement and the rack
    allow the play."""
    # "If you're playing any tile under a cloud, in-play scoring stops working" (War of Words);
    # so too for a word that runs on under one: asked before anything is evaluated.
    if not preview_allowed(state, placements):
        return m.PreviewPlayResponse(legal=False, score_hidden=True, violation=messages.violation(
            e.RULE_CODE_FEATURE_UNAVAILABLE,
            "in-play scoring stops working for a play that reaches under a cloud"))
    verdict = evaluate_play(state, placements, seat, shifts)
    out = m.PreviewPlayResponse(legal=verdict.legal)
    breakdown = _verdict_breakdown(verdict)
    if breakdown is not None:
        out.breakdown.CopyFrom(breakdown)
    violation = _verdict_violation(verdict)
    if violation is not None:
        out.violation.CopyFrom(violation)
    if verdict.legal and verdict.details is not None:  # War of Words: what the action tiles do
        foreseen = foresee(state, seat, verdict)
        out.effects.extend(sight.effect_pb(state.ruleset, s, data, set()) for s, data in foreseen.effects)
        out.reach_hidden = foreseen.reach_hidden
    return out


def tentative_breakdown(state: GameState, seat: int, placements: Sequence[Placement],
                        *, check_words: bool) -> tuple[c.ScoreBreakdown | None, e.RuleViolation | None,
                                                      tuple[str, ...]]:
    """(breakdown, violation, words not in the lexicon) of a tentative play from ``seat``'s rack.

    The breakdown is None when the geometry or the rack refuses the play (the violation says
    why); words are looked up only when ``check_words`` (a word the lexicon lacks is then in the
    third item, not a violation)."""
    verdict = evaluate_play(state, placements, seat)
    if verdict.breakdown is None:
        return None, _verdict_violation(verdict), ()
    return _verdict_breakdown(verdict), None, verdict.invalid_words if check_words else ()


def word_strength_response(state: GameState, seat: int,
                           placements: Sequence[Placement]) -> m.WordStrengthResponse:
    """Word Strength of a tentative play of ``seat`` on the current board: validity, the words
    that fail, breakdown, rank among every legal play of the rack, best score, percentile and the
    best alternative. Only plays the player can read off the board count (``visible_moves``); a
    tentative play that reaches under a cloud gets no verdict, as no preview."""
    moves = visible_moves(state, seat)
    if not preview_allowed(state, placements):
        out = m.WordStrengthResponse(
            valid=False, legal_play_count=len(moves), best_score=moves[0].score if moves else 0,
            violation=messages.violation(e.RULE_CODE_FEATURE_UNAVAILABLE,
                                      "Word Strength stops working for a play that reaches under a cloud"))
        if moves:
            out.best.CopyFrom(analysed_move(state, seat, moves[0]))
        return out
    verdict = word_strength(state, placements, seat, moves)
    breakdown, violation, _ = tentative_breakdown(state, seat, placements, check_words=False)
    out = m.WordStrengthResponse(valid=verdict.valid, invalid_words=list(verdict.invalid_words),
                                 legal_play_count=verdict.total,
                                 best_score=moves[0].score if moves else 0)
    if breakdown is not None:
        out.breakdown.CopyFrom(breakdown)
    if violation is not None:
        out.violation.CopyFrom(violation)
    if verdict.valid:
        out.rank = verdict.rank
        if moves:
            out.percentile = sum(1 for mv in moves if mv.score < verdict.score) / len(moves)
    if verdict.best is not None:
        out.best.CopyFrom(analysed_move(state, seat, verdict.best))
    return out
