"""Reading requests: text fields, ids, pages, and idempotent replay of a repeated ``request_id``."""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import TypeVar

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from sqlalchemy.exc import IntegrityError

from wordarena.services.common import logs
from wordarena.services.common.db import Database
from wordarena.services.common.paging import page_token, request_key, token_position
from wordarena.services.common.request_ids import ID_RE, check_request_id
from wordarena.services.lobby import store
from wordarena.services.lobby.errors import LobbyError, Status
from wordarena.services.lobby.options import REQUEST_LEASE_S, REQUEST_WAIT_S
from wordarena.services.lobby.tournaments.config import MAX_DIVISIONS, MAX_ENTRANTS, MAX_ROUNDS

__all__ = ["CALL_DEADLINE", "MAX_ITEMS", "MAX_ITEMS_OF", "MAX_TEXT_CHARS", "Page", "Replay", "check_id",
           "check_text"]

M = TypeVar("M", bound=Message)
log = logs.get_logger(__name__)

#: No string field of a request is longer (names, ids, codes and tokens are far shorter).
MAX_TEXT_CHARS = 1024
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

#: When the current call's client stops waiting (``time.monotonic()``; None: no deadline), set
#: for each call by the ``rpc`` decorator: a repeat waiting for its first call answers ABORTED
#: before then, rather than letting the client's own deadline end it.
CALL_DEADLINE: ContextVar[float | None] = ContextVar("lobby_call_deadline", default=None)
#: How long before the client's deadline a waiting repeat answers ABORTED (the answer's way back).
ANSWER_MARGIN_S = 0.25


#: At most this many items in a repeated field of a request, counted before any item is read: a
#: request with more is refused at once (INVALID_ARGUMENT naming the field), whatever its size
#: in bytes. Fields not listed: ``MAX_ITEMS``.
MAX_ITEMS_OF = {
    "wordarena.v1.TableSettings.bots": 4,  # seats: at most 4
    "wordarena.v1.TableFilter.statuses": 8,  # four table states
    "wordarena.v1.TournamentSettings.divisions": MAX_DIVISIONS,
    "wordarena.v1.TournamentSettings.round_methods": MAX_ROUNDS,  # one per round
    "wordarena.v1.PairRoundRequest.pairings": MAX_ENTRANTS,
    "wordarena.v1.ReportResultRequest.seats": 4,
}
MAX_ITEMS = MAX_ENTRANTS


def check_text(msg: Message, prefix: str = "") -> None:
    """Every string field of a request, nested messages included: no control characters (NUL
    above all: PostgreSQL cannot store it), at most ``MAX_TEXT_CHARS``. INVALID_ARGUMENT
    TEXT_INVALID naming the field (dotted path, ``[i]`` for repeated fields) otherwise. A repeated
    field longer than its cap (``MAX_ITEMS_OF``) is INVALID_ARGUMENT naming the field before any
    of its items is read: the cost of a refusal does not grow with what the client sent."""
    for f, value in msg.ListFields():
        path = f"{prefix}{f.name}"
        repeated = f.is_repeated
        if repeated:
            cap = MAX_ITEMS_OF.get(f.full_name, MAX_ITEMS)
            if len(value) > cap:
                raise LobbyError.invalid(f"{path} has {len(value)} items; at most {cap}", path)
        if f.type not in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_MESSAGE):
            continue
        items = list(value) if repeated else [value]
        for i, item in enumerate(items):
            where = f"{path}[{i}]" if repeated else path
            if f.type == FieldDescriptor.TYPE_STRING:
                if _CONTROL.search(item):
                    raise LobbyError.invalid(f"{where} must not contain control characters", where,
                                             "TEXT_INVALID")
                if len(item) > MAX_TEXT_CHARS:
                    raise LobbyError.invalid(f"{where} is longer than {MAX_TEXT_CHARS} characters", where,
                                             "TEXT_INVALID")
            else:
                check_text(item, f"{where}.")


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
        self.key = request_key(*key_parts)
        self.offset = 0
        if token:
            offset = token_position(token, self.key)
            if offset is None:
                raise LobbyError.invalid("bad page_token (or the request changed since)", "page_token")
            self.offset = offset

    def next_token(self, more: bool) -> str:
        """The token of the next page ("" when this is the last)."""
        return page_token(self.key, self.offset + self.size) if more else ""


class Replay:
    """Idempotent requests: the first call with a (player, method, request_id) runs, every repeat
    (through any lobby) gets its stored answer; a repeat while the first still runs waits up to
    ``REQUEST_WAIT_S`` (or until just before its own deadline), then is ABORTED with RetryInfo:
    the same retryable answer for as long as the first runs, never a refusal the unfinished work
    causes (a table "starting"). The first call's work runs to its end even when its client goes
    away (a deadline, a cancelled call): its answer is stored for the repeats. The running call
    renews its claim every third of ``lease_s``; a claim not renewed for ``lease_s`` (its lobby
    died) is taken over by the next repeat, which runs the request (once: the take-over is a
    compare-and-set)."""

    def __init__(self, db: Database, lease_s: float = REQUEST_LEASE_S) -> None:
        self.db = db
        self.lease_s = lease_s
        #: First calls still running (their clients may have gone): kept referenced until done.
        self._running: set[asyncio.Task[Message]] = set()

    async def _claim(self, key: tuple[str, str, str], marker: bytes) -> bytes | None:
        """None once the request is ours to run; else its stored answer."""
        deadline = time.monotonic() + REQUEST_WAIT_S
        client_deadline = CALL_DEADLINE.get()
        if client_deadline is not None:
            deadline = min(deadline, client_deadline - ANSWER_MARGIN_S)
        while True:
            try:
                stored = await self.db.run(store.claim_request, *key, marker, time.time())
                if stored is None:
                    return None
            except IntegrityError:  # another lobby (or call) claimed it first
                stored = await self.db.run(store.get_request, *key)
                if stored is None:  # and gave it up since: claim again
                    continue
            response, at = stored
            if not store.is_pending(response):
                return response
            if time.time() - at > self.lease_s and await self.db.run(
                store.take_over_request, *key, stored, marker, time.time()
            ):
                log.warning("took over a request whose claim was not renewed", method=key[1])
                return None
            if time.monotonic() >= deadline:
                raise LobbyError(
                    Status.ABORTED, "the same request_id is still being handled; retry", retry_after_s=1.0
                )
            await asyncio.sleep(0.05)

    async def _renew(self, key: tuple[str, str, str], marker: bytes) -> None:
        while True:
            await asyncio.sleep(self.lease_s / 3)
            try:
                await self.db.run(store.renew_request, *key, marker, time.time())
            except Exception as exc:  # pragma: no cover - the next renewal tries again
                log.warning("could not renew a request claim", error=repr(exc))

    async def _run(self, key: tuple[str, str, str], marker: bytes, make: Callable[[], Awaitable[M]]) -> M:
        """Run a claimed request to its end and store its answer (or give the claim up)."""
        renewer = asyncio.create_task(self._renew(key, marker))
        try:
            resp = await make()
        except BaseException:
            renewer.cancel()
            await self.db.run(store.drop_request, *key, marker)
            raise
        renewer.cancel()
        await self.db.run(store.put_request, *key, marker, resp.SerializeToString(), time.time())
        return resp

    def _done(self, task: asyncio.Task[Message]) -> None:
        self._running.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: a refusal nobody waited for is the client's loss, not a log line

    async def __call__(
        self, player_id: str, method: str, request_id: str, cls: type[M], make: Callable[[], Awaitable[M]]
    ) -> M:
        check_request_id(request_id)
        key = (player_id, method, request_id)
        marker = store.PENDING + secrets.token_bytes(16)
        stored = await self._claim(key, marker)
        if stored is not None:
            return cls.FromString(stored)
        # Shielded from this call's cancellation: a client that stops waiting (its deadline, a
        # cancel) does not stop the work half-way (a table left STARTING, a match created but not
        # recorded); its repeats wait for the answer stored at the end.
        task = asyncio.create_task(self._run(key, marker, make))
        self._running.add(task)  # type: ignore[arg-type]
        task.add_done_callback(self._done)  # type: ignore[arg-type]
        return await asyncio.shield(task)
