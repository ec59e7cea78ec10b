"""Who may chat in a match, and how much (SendChat).

Chat is closed in pass-and-play matches, to seats that are no longer active (resigned, left,
timed out, kicked) and once the match is over: FAILED_PRECONDITION CHAT_UNAVAILABLE. Each player
is limited per match by a token bucket (``ChatLimits.rate`` messages a second, up to
``ChatLimits.burst`` at once: RESOURCE_EXHAUSTED with ``google.rpc.RetryInfo``) and a cap on the
messages they may post in the match (``ChatLimits.per_match``: RESOURCE_EXHAUSTED with
``google.rpc.QuotaFailure``). The cap counts the stored chat events, so it survives restarts and
take-overs; the buckets live in memory (a restart refills them). Refused messages cost nothing.
Chat never changes the game (``Runtime.game_seq``).

Inactive players do not read the chat either: their streams skip chat events (``shown_to``) and
ListLog refuses them (``check_reader``). Spectators, where allowed, read it.

Spectators chat in the observers' channel (``seat`` None, ``observers`` in the stored payload),
under the same limits: while the match runs it is shown to spectators only, never to a seat (no
kibitzing); once the match is over the players may read it too.
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from google.rpc import error_details_pb2

from wordarena.services.common.errors import ServiceError, too_many
from wordarena.services.common.ratelimit import TokenBucket
from wordarena.services.match import views
from wordarena.services.match.runtime import Runtime
from wordarena.services.match.store import StoredEvent
from wordarena.v1 import errors_pb2 as e

#: Longest chat message, in characters after trimming.
MAX_CHAT = 500


@dataclass(frozen=True, slots=True)
class ChatLimits:
    """Per player and match: ``rate`` messages a second after a ``burst``; at most
    ``per_match`` messages in all; and the observers' channel of a match, all spectators
    together, at most ``observers_per_match`` (the ``--chat-*`` settings)."""

    rate: float = 1.0
    burst: int = 5
    per_match: int = 500
    observers_per_match: int = 2000


def unavailable(why: str) -> ServiceError:
    """FAILED_PRECONDITION CHAT_UNAVAILABLE."""
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, f"chat is not available: {why}",
                        views.violation(e.RULE_CODE_CHAT_UNAVAILABLE, f"chat unavailable: {why}"))


def admit(rt: Runtime, seat: int | None, player_id: str, limits: ChatLimits, now: float) -> None:
    """Let ``player_id`` (at ``seat``; None for a spectator) post one chat message now (``now``:
    monotonic seconds), or raise the refusal. Call with ``rt.lock`` held; a message admitted uses
    one token."""
    if rt.options.pass_and_play:
        raise unavailable("there is no chat in pass-and-play matches")
    if rt.state.over or rt.status != "in-progress":
        raise unavailable("the match is over")
    if seat is not None and rt.state.seats[seat].value != "active":
        raise unavailable("your seat is no longer active in this match")
    chats = [ev.payload["chat"] for ev in rt.events if ev.kind == "chat"]
    if sum(1 for ch in chats if ch["player_id"] == player_id) >= limits.per_match:
        raise _spent(f"player:{player_id}", f"at most {limits.per_match} chat messages per player in "
                     f"a match", f"you have posted the {limits.per_match} chat messages a player may "
                     "post in a match")
    if seat is None and sum(1 for ch in chats if ch.get("observers")) >= limits.observers_per_match:
        raise _spent(f"match:{rt.match_id}:observers", f"at most {limits.observers_per_match} "
                     "messages in a match's observers' channel", "the observers' channel of this "
                     f"match is full: it has its {limits.observers_per_match} messages")
    state, wait = TokenBucket(limits.rate, limits.burst).take(rt.chat_buckets.get(player_id), now)
    if wait is not None:
        raise too_many(f"too many chat messages: at most {limits.rate:g} a second after "
                       f"{limits.burst}; retry in {wait:.2f}s", wait)
    rt.chat_buckets[player_id] = state


def _spent(subject: str, description: str, message: str) -> ServiceError:
    """RESOURCE_EXHAUSTED with a QuotaFailure and no RetryInfo: no later message is accepted."""
    quota = error_details_pb2.QuotaFailure(violations=[error_details_pb2.QuotaFailure.Violation(
        subject=subject, description=description)])
    return ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, message, quota)


def _inactive(rt: Runtime, viewer: int | None) -> bool:
    return viewer is not None and rt.state.seats[viewer].value != "active"


def shown_to(rt: Runtime, ev: StoredEvent, viewer: int | None) -> bool:
    """Whether ``viewer`` (a seat, None for spectators) is shown ``ev`` (on a stream, in
    ListLog): chat is not shown to a seat that is inactive, nor the observers' channel to a seat
    while the match runs (the viewer sees a gap in seq)."""
    if ev.kind != "chat":
        return True
    if viewer is None:
        return True
    return not _inactive(rt, viewer) and (rt.state.over or not ev.payload["chat"].get("observers"))


def check_reader(rt: Runtime, viewer: int | None) -> None:
    """ListLog: inactive players may not read the chat or combat log (CHAT_UNAVAILABLE)."""
    if _inactive(rt, viewer):
        raise unavailable("your seat is no longer active in this match")
