"""``decide(match, command)``: what a match does with a command, or why it will not.

One function owns what the shell used to check in several places: a request about an aborted
match, a repeated request id (its first answer again, or REQUEST_ID_REUSED for another method),
``expected_seq`` (stale or ahead of the match), the game clocks charged to the seat to move,
who may kick an idle seat and when, who may chat and how much, and the game itself through the
engine (``apply``). A ``Decision`` says what to store; the shell stores it, and only once it is
durable installs it and answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from wordarena.engine.errors import EngineError, RuleError
from wordarena.engine.game import Action, GameState, Kick, TimeOut, apply
from wordarena.engine.game.events import Event
from wordarena.services.common.ratelimit import TokenBucket
from wordarena.services.match.core import timing
from wordarena.services.match.core.commands import Act, Chat, Command, Expire
from wordarena.services.match.core.match import Match
from wordarena.services.match.core.refusals import Refusal, Status, of_rule_error

__all__ = ["ChatLimits", "Decision", "Repeat", "aborted", "chat_closed", "decide", "expire_due"]

#: A clock this close to its limit has run out (timers wake a little early or late).
SLACK = 0.01


@dataclass(frozen=True, slots=True)
class ChatLimits:
    """Per player and match: ``rate`` messages a second after a ``burst``; at most ``per_match``
    messages in all; and the observers' channel of a match, all spectators together, at most
    ``observers_per_match`` (the ``--chat-*`` settings)."""

    rate: float = 1.0
    burst: int = 5
    per_match: int = 500
    observers_per_match: int = 2000


@dataclass(frozen=True, slots=True)
class Decision:
    """What to store: the game's next ``state`` and its engine ``events`` (none for chat), the
    clocks charged at ``now``, the ``action`` applied, the seat whose own move it was (None for
    a time-out, a kick or chat), whether it ended the game; for a kick how long the seat had been
    idle; for chat the sender's token bucket after it."""

    state: GameState
    events: tuple[Event, ...]
    clocks: tuple[float, ...] | None
    now: float
    action: Action | None = None
    mover: int | None = None
    over: bool = False
    idle_for: float | None = None
    chat_bucket: tuple[float, float] | None = None


@dataclass(frozen=True, slots=True)
class Repeat:
    """A request id answered before, for the same method: answer with the stored answer."""

    player_id: str
    request_id: str


def decide(
    match: Match, command: Command, limits: ChatLimits = ChatLimits()
) -> Decision | Repeat | Refusal | None:
    """The decision on ``command`` (None: an ``Expire`` with no time-out due)."""
    if isinstance(command, Expire):
        return _expire(match, command.now, 0.0)
    if match.status == "aborted":
        return aborted(match.match_id)
    if match.answered(command.player_id, command.request_id):
        first = match.requests[(command.player_id, command.request_id)]
        method = command.method if isinstance(command, Act) else "SendChat"
        if first != method:
            return Refusal(Status.FAILED_PRECONDITION,
                           f"request_id {command.request_id!r} was already used for {first}",
                           "REQUEST_ID_REUSED", violation=f"request_id already used for {first}")
        return Repeat(command.player_id, command.request_id)
    if isinstance(command, Chat):
        return _chat(match, command, limits)
    return _act(match, command)


def expire_due(match: Match, now: float, slack: float = SLACK) -> Decision | None:
    """The time-out of the seat to move if its time is up at ``now`` within ``slack`` (the clock
    timer's check); None while it is not."""
    return _expire(match, now, slack)


def aborted(match_id: str) -> Refusal:
    """What every request about an aborted match gets."""
    return Refusal(Status.FAILED_PRECONDITION,
                   f"match {match_id!r} was aborted by the service; it has no result", "MATCH_ABORTED",
                   violation="the match was aborted")


def _expire(match: Match, now: float, slack: float) -> Decision | None:
    due = timing.time_out_at(match)
    if due is None or due - now > slack:
        return None
    out = _apply(match, TimeOut(match.state.to_move), now)
    return out if isinstance(out, Decision) else None


def _act(match: Match, cmd: Act) -> Decision | Refusal:
    if cmd.expected_seq is not None:
        stale = _check_seq(match, cmd.expected_seq)
        if stale is not None:
            return stale
    if match.status != "in-progress" and not match.state.over:
        return Refusal(Status.FAILED_PRECONDITION, "the match is not in progress")
    if isinstance(cmd.action, Kick):
        refused = _check_kick(match, cmd.action, cmd.now)
        if refused is not None:
            return refused
    out = _apply(match, cmd.action, cmd.now)
    if isinstance(out, Decision) and isinstance(cmd.action, Kick):
        return replace(out, idle_for=cmd.now - timing.idle_since(match, cmd.action.seat))
    return out


def _check_seq(match: Match, expected_seq: int) -> Refusal | None:
    """A turn's ``expected_seq`` must lie in ``game_seq..seq``: older is stale (the game moved on
    since), newer is a seq the match never had."""
    if expected_seq > match.seq:
        return Refusal(Status.INVALID_ARGUMENT,
                       f"{expected_seq} is ahead of the match: its latest seq is {match.seq}; send a seq "
                       "you have received", field="expected_seq")
    if expected_seq < match.game_seq:
        return Refusal(Status.FAILED_PRECONDITION,
                       f"expected_seq {expected_seq} is stale: the game moved on at seq {match.game_seq} "
                       f"(latest seq {match.seq})",
                       stale=(match.seq, expected_seq, match.game_seq))
    return None


def _check_kick(match: Match, kick: Kick, now: float) -> Refusal | None:
    """Kick Idle Player: only the seat to move can be idle, and only once it has been idle for
    the match's ``idle_kick_seconds`` (the engine checks the rest: the family has the kick, the
    kicker is another active player)."""
    if match.options.pass_and_play or kick.seat == kick.by:
        return Refusal(Status.FAILED_PRECONDITION, "kicking is not possible here", "KICK_NOT_ALLOWED",
                       violation="kick not allowed")
    if match.state.over or match.state.to_move != kick.seat:
        return Refusal(Status.FAILED_PRECONDITION, "only the seat to move can be idle", "KICK_NOT_ALLOWED",
                       violation="kick not allowed")
    idle = now - timing.idle_since(match, kick.seat)
    if idle < match.options.idle_kick_seconds:
        message = f"seat {kick.seat} has been idle {idle:.0f}s"
        return Refusal(Status.FAILED_PRECONDITION, message, "KICK_TOO_EARLY",
                       retry_at=now + match.options.idle_kick_seconds - idle)
    return None


def _apply(match: Match, action: Action, now: float) -> Decision | Refusal:
    """The game's answer to ``action`` at ``now``, the seat to move charged for its time (its time
    over goes to the engine as data: scrabble's penalty)."""
    charged = timing.charged_clocks(match, now)
    try:
        state, events = apply(match.state, action, overtime=timing.overtime(match, charged))
    except RuleError as exc:
        return of_rule_error(exc, match.state, action)
    except EngineError as exc:
        return Refusal(Status.INVALID_ARGUMENT, str(exc), field="move")
    mover = None if isinstance(action, TimeOut | Kick) else action.seat
    return Decision(state, tuple(events), _tuple(charged), now, action, mover,
                    state.over and not match.state.over)


def _chat(match: Match, cmd: Chat, limits: ChatLimits) -> Decision | Refusal:
    """Chat is closed in pass-and-play, once the match is over and to inactive seats; each player
    is limited by a token bucket and a cap per match, the observers' channel by a cap."""
    if match.options.pass_and_play:
        return chat_closed("there is no chat in pass-and-play matches")
    if match.state.over or match.status != "in-progress":
        return chat_closed("the match is over")
    if cmd.seat is not None and match.state.seats[cmd.seat].value != "active":
        return chat_closed("your seat is no longer active in this match")
    if match.chats.get(cmd.player_id, 0) >= limits.per_match:
        return Refusal(Status.RESOURCE_EXHAUSTED,
                       f"you have posted the {limits.per_match} chat messages a player may post in a match",
                       quota=(f"player:{cmd.player_id}",
                              f"at most {limits.per_match} chat messages per player in a match"))
    if cmd.seat is None and match.observer_chats >= limits.observers_per_match:
        return Refusal(Status.RESOURCE_EXHAUSTED,
                       f"the observers' channel of this match is full: it has its "
                       f"{limits.observers_per_match} messages",
                       quota=(f"match:{match.match_id}:observers", f"at most {limits.observers_per_match} "
                              "messages in a match's observers' channel"))
    policy = TokenBucket(limits.rate, limits.burst)
    bucket, wait = policy.take(match.chat_buckets.get(cmd.player_id), cmd.now)
    if wait is not None:
        return Refusal(Status.RESOURCE_EXHAUSTED,
                       f"too many chat messages: at most {limits.rate:g} a second after {limits.burst}; "
                       f"retry in {wait:.2f}s", retry_in=wait)
    return Decision(match.state, (), _tuple(match.clocks), cmd.now, chat_bucket=bucket)


def chat_closed(why: str) -> Refusal:
    """FAILED_PRECONDITION CHAT_UNAVAILABLE (posting, and reading for inactive seats)."""
    return Refusal(Status.FAILED_PRECONDITION, f"chat is not available: {why}", "CHAT_UNAVAILABLE",
                   violation=f"chat unavailable: {why}")


def _tuple(clocks: Sequence[float] | None) -> tuple[float, ...] | None:
    return None if clocks is None else tuple(clocks)
