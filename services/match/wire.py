"""The match server's answers and stream messages as bytes, and the caches behind them: what
memory and CPU tricks the server plays live here alone (``projection`` builds the messages,
``sight`` decides what each viewer may see).

A match keeps the projections of its latest events (``KEEP_PROJECTED``); a stream message or a
SubmitTurn answer is joined from the events' serialized bytes, shared by every viewer who sees
the same thing, rather than built and serialized per viewer.
"""

from __future__ import annotations

from typing import Any

from wordarena.services.match import messages
from wordarena.services.match.projection import public_event, seat_event
from wordarena.services.match.runtime import Runtime
from wordarena.services.match.sight import private_to
from wordarena.services.match.store import StoredEvent
from wordarena.v1 import common_pb2 as c

#: Events per match whose projections are kept (``Runtime.projected``): its latest ones, which
#: every open stream and the caller's answer need at about the same time.
KEEP_PROJECTED = 4


def _shown(rt: Runtime, ev: StoredEvent) -> dict[Any, Any]:
    """The projections kept on ``ev``; only the match's latest ``KEEP_PROJECTED`` events keep
    theirs (an older one's are dropped as a new one starts keeping)."""
    if not ev.shown:
        recent = rt.projected
        recent.append(ev)
        if len(recent) > KEEP_PROJECTED:
            recent.popleft().shown.clear()
    return ev.shown


def project(rt: Runtime, ev: StoredEvent, viewer: int | None) -> c.Event:
    """A stored event as ``viewer`` (a seat, or None for spectators) may see it. Built once per
    event and kind of viewer (``private_to``) for the match's latest events: the message
    returned may be shared, so callers copy it (into a response) and never change it."""
    key = viewer if private_to(ev, viewer) else None
    got = ev.shown.get(key)
    if got is None:
        got = public_event(rt, ev) if key is None else seat_event(rt, ev, key, project(rt, ev, None))
        _shown(rt, ev)[key] = got
    return got  # type: ignore[no-any-return]


def event_bytes(rt: Runtime, ev: StoredEvent, viewer: int | None) -> bytes:
    """``project(rt, ev, viewer)`` serialized. Only the public bytes are kept (for the match's
    latest events, ``_shown``): a seat's own view of an event that changed its rack is those
    bytes followed by its ``viewer_rack`` field, joined on each call. Protobuf parsers merge
    fields in any order, so this parses to exactly ``project(rt, ev, viewer)`` (tested),
    without copying the public message to build it. An exchange (the exchanger's returned tiles,
    inside the event's ``oneof``) is built whole."""
    if not private_to(ev, viewer):
        return _public_bytes(rt, ev)
    if ev.kind == "tiles-exchanged":
        return project(rt, ev, viewer).SerializeToString()
    assert viewer is not None  # private_to: a seat
    after = ev.event.after
    assert after is not None  # private_to: an event with its summary
    rack = messages.rack(rt.ruleset, list(after.racks[viewer]), after.irradiated)
    return _public_bytes(rt, ev) + _len_field(_EVENT_VIEWER_RACK, rack.SerializeToString())


def _public_bytes(rt: Runtime, ev: StoredEvent) -> bytes:
    """The public projection of ``ev`` serialized, kept for the match's latest events. The
    message is not kept for it (a call that wants the message, ``project``, keeps its own):
    memory per match is what bounds a server's matches, and the bytes are what streams send."""
    got = ev.shown.get("bytes")
    if got is None:
        message = ev.shown.get(None) or public_event(rt, ev)
        got = message.SerializeToString()
        _shown(rt, ev)["bytes"] = got
    return got  # type: ignore[no-any-return]


def stream_message(rt: Runtime, ev: StoredEvent, viewer: int | None) -> bytes:
    """``StreamMatchResponse{event: project(rt, ev, viewer)}`` serialized: the event's bytes
    (``event_bytes``, shared by every viewer who sees the same thing) behind the field's key.
    Joined per write rather than kept: a copy a stream costs microseconds, a kept copy per kind
    of viewer cost a match kilobytes."""
    return _len_field(_STREAM_EVENT, event_bytes(rt, ev, viewer))


def turn_answer(rt: Runtime, events: list[StoredEvent], viewer: int, last_seq: int, rack: c.Rack) -> bytes:
    """``SubmitTurnResponse(events=[project(rt, ev, viewer)...], last_seq, rack)`` serialized,
    from the events' bytes (``event_bytes``, shared with the viewer's own stream)."""
    out = [_len_field(_ANSWER_EVENTS, event_bytes(rt, ev, viewer)) for ev in events]
    if last_seq:
        out.append(_ANSWER_LAST_SEQ + _varint(last_seq))
    out.append(_len_field(_ANSWER_RACK, rack.SerializeToString()))
    return b"".join(out)


# Wire-format keys (field number << 3 | wire type; 2: length-delimited, 0: varint) of the
# fields written as bytes above; ``test_event_bytes`` checks them against the messages.
_STREAM_EVENT = 1 << 3 | 2  # StreamMatchResponse.event
_EVENT_VIEWER_RACK = 6 << 3 | 2  # Event.viewer_rack
_ANSWER_EVENTS = 1 << 3 | 2  # SubmitTurnResponse.events
_ANSWER_LAST_SEQ = bytes((2 << 3 | 0,))  # SubmitTurnResponse.last_seq
_ANSWER_RACK = 3 << 3 | 2  # SubmitTurnResponse.rack


def _varint(n: int) -> bytes:
    """A non-negative integer in protobuf's base-128 varint."""
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _len_field(key: int, data: bytes) -> bytes:
    """A length-delimited field (``key`` < 128: one byte) holding ``data``."""
    return bytes((key,)) + _varint(len(data)) + data
