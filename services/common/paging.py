"""Page tokens bound to the request that got them (AIP-158: a token is only good with the
request's other fields unchanged), for both servers: ``"<key>:<position>"``, the key a short hash
of the request's other fields. Each server refuses a token that is not for the request with its
own INVALID_ARGUMENT naming ``page_token``."""

from __future__ import annotations

import hashlib

__all__ = ["page_token", "request_key", "token_position"]


def request_key(*parts: object) -> str:
    """The key of a request: a hash of the fields a token must be used with."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:12]


def page_token(key: str, position: int) -> str:
    """The token of the page starting at ``position`` of the request keyed ``key``."""
    return f"{key}:{position}"


def token_position(token: str, key: str) -> int | None:
    """The position ``token`` stands for, or None when it is not a token of the request keyed
    ``key`` (another request, or not a token at all)."""
    k, _, position = token.rpartition(":")
    if k != key or not position.isdigit():
        return None
    return int(position)
