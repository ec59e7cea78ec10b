"""Idempotent requests: the first answer of each (player, method, request id), kept for repeats."""

from __future__ import annotations

from sqlmodel import Session
from wordarena.services.lobby.models import RequestRow

__all__ = ["PENDING", "claim_request", "drop_request", "get_request", "put_request"]


# A claimed request whose answer is not stored yet. Tag 0 is illegal in protobuf, so no
# serialised answer can start with a zero byte: the marker never collides with an answer.
PENDING = b"\x00"


def get_request(s: Session, player_id: str, method: str, request_id: str) -> bytes | None:
    """The stored first answer of a request, ``PENDING`` while it runs, or None."""
    row = s.get(RequestRow, (player_id, method, request_id))
    return row.response if row is not None else None


def claim_request(s: Session, player_id: str, method: str, request_id: str, now: float) -> bytes | None:
    """Claim a request id before running it. None: the claim is ours (run the request); else the
    stored answer or ``PENDING``. Two lobbies claiming at once: the second commit raises
    ``IntegrityError`` (primary key), and the caller reads the winner's row."""
    stored = get_request(s, player_id, method, request_id)
    if stored is not None:
        return stored
    s.add(
        RequestRow(
            player_id=player_id, method=method, request_id=request_id, response=PENDING, created_at=now
        )
    )
    return None


def put_request(s: Session, player_id: str, method: str, request_id: str, response: bytes) -> None:
    """Store the answer of a request claimed with ``claim_request``."""
    row = s.get(RequestRow, (player_id, method, request_id))
    if row is not None and row.response == PENDING:
        row.response = response
        s.add(row)


def drop_request(s: Session, player_id: str, method: str, request_id: str) -> None:
    """Give a claim up (the request failed: a retry runs it afresh, as before)."""
    row = s.get(RequestRow, (player_id, method, request_id))
    if row is not None and row.response == PENDING:
        s.delete(row)
