"""GetMatchRecord: a match's game record as GCG, written by the engine's one writer
(``engine.interchange.record_from_events``) from the match's stored log.

What the caller may see decides what goes in: a finished match's record shows every rack (they
were all revealed by the end) and the seed; a running match's record is written from the
events' public part only (``Event.public``: no dealt racks, drawn tiles or exchanged letters
reach the writer) and without racks, whoever asks. A running match on a board with clouds (War
of Words' Cloudy Day in the Park) has no record yet: its plays may lie under clouds, which no
viewer may see through; once it is over its record shows every play, as it shows every rack.
"""

from __future__ import annotations

import re

import grpc

from wordarena.engine.interchange import record_from_events, write_gcg
from wordarena.engine.warofwords.clouds import hidden_squares
from wordarena.services.common.errors import ServiceError
from wordarena.services.match import messages
from wordarena.services.match.runtime import Runtime, SeatInfo
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m

_NOT_NICK = re.compile(r"[\s:]+")


def nicks(seats: list[SeatInfo]) -> list[tuple[str, str]]:
    """(GCG nick, full name) per seat: the display name made one word without ``:``, made
    distinct by the seat number where two seats would share it."""
    words = [_NOT_NICK.sub("_", s.display_name.strip()) or f"seat{i + 1}" for i, s in enumerate(seats)]
    out = []
    for i, (word, seat) in enumerate(zip(words, seats, strict=True)):
        nick = word if words.count(word) == 1 else f"{word}_{i + 1}"
        out.append((nick, seat.display_name or nick))
    return out


def record_response(rt: Runtime) -> m.GetMatchRecordResponse:
    """The record of ``rt`` as it stands (see the module docstring)."""
    over = rt.state.over
    if not over and hidden_squares(rt.state):
        why = ("this board has clouds and a running match's plays may lie under them: its record is "
               "available once the match is over")
        raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION, why,
                           messages.violation(e.RULE_CODE_FEATURE_UNAVAILABLE, why))
    events = [ee for ev in rt.events for ee in ev.event.engine]
    if not over:
        events = [ev.public() for ev in events]
    record = record_from_events(events, nicks(rt.seats), racks=over, record_id=f"wordarena {rt.match_id}")
    return m.GetMatchRecordResponse(
        gcg=write_gcg(record), racks_shown=over, last_seq=rt.seq,
        status=m.MATCH_STATUS_FINISHED if over else m.MATCH_STATUS_IN_PROGRESS)
