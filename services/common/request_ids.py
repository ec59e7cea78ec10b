"""The one check of client request ids (and of the other ids clients send, by the same rule).

A ``request_id`` makes a submission idempotent: a repeat with the same id answers the first
answer. Ids are 1..64 characters of ``[A-Za-z0-9_-]``, so they are safe in keys, logs and URLs.
"""

from __future__ import annotations

import re

from wordarena.services.common.errors import invalid_argument

__all__ = ["ID_RE", "check_request_id"]

#: What a request id (and a match id) may be (``\Z``, not ``$``: no trailing newline slips through).
ID_RE = re.compile(r"\A[A-Za-z0-9_-]{1,64}\Z")


def check_request_id(request_id: str, field: str = "request_id") -> None:
    """Refuse a missing or malformed request id (INVALID_ARGUMENT naming ``field``)."""
    if not ID_RE.match(request_id or ""):
        raise invalid_argument(field, "required: 1..64 characters of [A-Za-z0-9_-]")
