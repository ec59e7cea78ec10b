"""Idempotent requests: the first answer of each (player, method, request id), kept for repeats.

While a request runs, its row holds a claim marker instead of an answer: ``PENDING`` followed by
the claiming call's own token, with ``created_at`` the time the claim was last renewed (its
lease). A claim whose lease ran out (its lobby died mid-request) can be taken over by a retry,
compare-and-set on (marker, renewal time), so exactly one retry wins it.
"""

from __future__ import annotations

from sqlalchemy import delete, update
from sqlmodel import Session, col

from wordarena.services.lobby.models import RequestRow

__all__ = ["PENDING", "Stored", "claim_request", "drop_request", "get_request", "is_pending", "put_request",
           "renew_request", "take_over_request"]


# First byte of a claim marker. Tag 0 is illegal in protobuf, so no serialised answer can start
# with a zero byte: a marker never collides with an answer.
PENDING = b"\x00"

#: A stored row: (answer or claim marker, when it was stored or its claim last renewed).
Stored = tuple[bytes, float]


def is_pending(response: bytes) -> bool:
    """True for a claim marker (the request still runs, or its lobby died)."""
    return response[:1] == PENDING


def _key(player_id: str, method: str, request_id: str) -> list[object]:
    return [
        col(RequestRow.player_id) == player_id,
        col(RequestRow.method) == method,
        col(RequestRow.request_id) == request_id,
    ]


def get_request(s: Session, player_id: str, method: str, request_id: str) -> Stored | None:
    """The stored first answer (or claim marker) of a request and its time, or None."""
    row = s.get(RequestRow, (player_id, method, request_id))
    return (row.response, row.created_at) if row is not None else None


def claim_request(
    s: Session, player_id: str, method: str, request_id: str, marker: bytes, now: float
) -> Stored | None:
    """Claim a request id before running it. None: the claim is ours (run the request); else what
    is stored. Two lobbies claiming at once: the second commit raises ``IntegrityError`` (primary
    key), and the caller reads the winner's row."""
    stored = get_request(s, player_id, method, request_id)
    if stored is not None:
        return stored
    s.add(RequestRow(player_id=player_id, method=method, request_id=request_id, response=marker,
                     created_at=now))
    return None


def take_over_request(
    s: Session, player_id: str, method: str, request_id: str, seen: Stored, marker: bytes, now: float
) -> bool:
    """Take over a claim whose lease ran out: True when ``seen`` (marker and renewal time) was
    still the row's, which is now claimed by ``marker``."""
    old_marker, old_at = seen
    result = s.exec(  # type: ignore[call-overload]
        update(RequestRow)
        .where(*_key(player_id, method, request_id))
        .where(col(RequestRow.response) == old_marker, col(RequestRow.created_at) == old_at)
        .values(response=marker, created_at=now)
    )
    return bool(result.rowcount == 1)


def renew_request(
    s: Session, player_id: str, method: str, request_id: str, marker: bytes, now: float
) -> None:
    """Renew the lease of our claim (nothing when it is no longer ours)."""
    s.exec(  # type: ignore[call-overload]
        update(RequestRow)
        .where(*_key(player_id, method, request_id))
        .where(col(RequestRow.response) == marker)
        .values(created_at=now)
    )


def put_request(
    s: Session, player_id: str, method: str, request_id: str, marker: bytes, response: bytes, now: float
) -> None:
    """Store the answer of a request claimed with ``marker`` (nothing when the claim was lost)."""
    s.exec(  # type: ignore[call-overload]
        update(RequestRow)
        .where(*_key(player_id, method, request_id))
        .where(col(RequestRow.response) == marker)
        .values(response=response, created_at=now)
    )


def drop_request(s: Session, player_id: str, method: str, request_id: str, marker: bytes) -> None:
    """Give our claim up (the request failed: a retry runs it afresh)."""
    s.exec(  # type: ignore[call-overload]
        delete(RequestRow)
        .where(*_key(player_id, method, request_id))
        .where(col(RequestRow.response) == marker)
    )
