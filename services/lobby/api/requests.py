"""Reading requests: ids, pages, and idempotent replay of a repeated ``request_id``."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from google.protobuf.message import Message
from sqlalchemy.exc import IntegrityError
from wordarena.services.common.db import Database
from wordarena.services.common.request_ids import ID_RE, check_request_id
from wordarena.services.lobby import store
from wordarena.services.lobby.errors import LobbyError, Status
from wordarena.services.lobby.options import REQUEST_WAIT_S

__all__ = ["Page", "Replay", "check_id"]

M = TypeVar("M", bound=Message)


def check_id(value: str, what: str, field: str) -> None:
    """An id the caller names (table, ticket, match, player): required; one that cannot exist
    (too long, odd characters; ``:`` allowed, as in bot ids) is NOT_FOUND."""
    if not value:
        raise LobbyError.invalid(f"{what} is required", field)
    if not ID_RE.match(value.replace(":", "_")):
        raise LobbyError.not_found(f"unknown {what}", field)


class Page:
    """A page of a listing: ``size`` items from ``offset``, with an opaque page token
    "<key>:<offset>" bound (by ``key``) to the request's other fields."""

    def __init__(self, size: int, token: str, default: int, maximum: int, *key_parts: object) -> None:
        if size < 0:
            raise LobbyError.invalid("page_size must not be negative", "page_size")
        self.size = min(size or default, maximum)
        self.key = hashlib.sha256(repr(key_parts).encode()).hexdigest()[:12]
        self.offset = 0
        if token:
            k, _, off = token.rpartition(":")
            if k != self.key or not off.isdigit():
                raise LobbyError.invalid("bad page_token (or the request changed since)", "page_token")
            self.offset = int(off)

    def next_token(self, more: bool) -> str:
        """The token of the next page ("" when this is the last)."""
        return f"{self.key}:{self.offset + self.size}" if more else ""


class Replay:
    """Idempotent requests: the first call with a (player, method, request_id) runs, every repeat
    (through any lobby) gets its stored answer; a repeat while the first still runs waits up to
    ``REQUEST_WAIT_S``, then is ABORTED (retry)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def __call__(
        self, player_id: str, method: str, request_id: str, cls: type[M], make: Callable[[], Awaitable[M]]
    ) -> M:
        check_request_id(request_id)
        key = (player_id, method, request_id)
        deadline = time.monotonic() + REQUEST_WAIT_S
        while True:
            try:
                stored = await self.db.run(store.claim_request, *key, time.time())
            except IntegrityError:  # another lobby (or call) claimed it first
                stored = await self.db.run(store.get_request, *key)
            if stored is None:
                break
            if stored != store.PENDING:
                return cls.FromString(stored)
            if time.monotonic() > deadline:
                raise LobbyError(
                    Status.ABORTED, "the same request_id is still being handled; retry", retry_after_s=1.0
                )
            await asyncio.sleep(0.05)
        try:
            resp = await make()
        except BaseException:
            await self.db.run(store.drop_request, *key)
            raise
        await self.db.run(store.put_request, *key, resp.SerializeToString())
        return resp
