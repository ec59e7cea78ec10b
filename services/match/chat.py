"""Who reads a match's chat (streams and ListLog); who may post and how much is the core's
(``core.decide``), as set out here.

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

from wordarena.services.match import admission
from wordarena.services.match.core.decide import chat_closed
from wordarena.services.match.runtime import Runtime
from wordarena.services.match.store import StoredEvent

#: Longest chat message, in characters after trimming.
MAX_CHAT = 500


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
    line = ev.event.chat
    return not _inactive(rt, viewer) and (rt.state.over or line is None or not line.observers)


def check_reader(rt: Runtime, viewer: int | None) -> None:
    """ListLog: inactive players may not read the chat or combat log (CHAT_UNAVAILABLE)."""
    if _inactive(rt, viewer):
        raise admission.refused(chat_closed("your seat is no longer active in this match"))
