"""StreamMatch subscriptions: each open stream is a ``Subscriber``, a bounded queue of stored events
that the match's commits feed (``publish``) and the servicer drains, projecting each event for the
stream's viewer.

A subscriber too slow to keep up overflows its queue; the servicer then cuts the stream off with
RESOURCE_EXHAUSTED and the client resumes from its last seq. ``close`` ends a stream on purpose
(the match moved, was aborted, or the server shuts down).

A client that stops reading does not stop the server: its connection's flow-control window and
socket buffers take what they can (from about 64 KiB to a few MiB), then gRPC holds the next write
back and the stream's events queue here; once ``size`` of them wait, the stream is cut off at
once, while the write is still held (``deliver`` returns False, ``cut_off``): its subscription and
queued events are dropped, and all that remains of it is the handler waiting for that one held
write; the status follows it, so the client reads what was sent, then RESOURCE_EXHAUSTED (two
sends at once on one call are not allowed). Nothing else waits for that client: publishing never
blocks.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Sequence
from typing import Any

import grpc

from wordarena.services.match import metrics
from wordarena.services.match.store import StoredEvent


class Subscriber:
    """A StreamMatch consumer: a bounded queue of stored events (``None`` ends the stream)."""

    def __init__(self, viewer: int | None, size: int) -> None:
        self.viewer = viewer
        self.queue: asyncio.Queue[StoredEvent | None] = asyncio.Queue(maxsize=size)
        self.overflowed = False
        #: What a ``deliver`` held back by its write waits on; set by the write's end or by the
        #: subscriber overflowing (a client that does not read).
        self.waiter: asyncio.Future[None] | None = None
        #: The write gRPC still held when the subscriber overflowed (``deliver``).
        self.held: asyncio.Future[None] | None = None
        self.closed_reason: str | None = None
        #: The status the stream ends with when closed (None: UNAVAILABLE + MatchMoved).
        self.closed_error: Any = None

    def push(self, item: StoredEvent) -> None:
        """Queue ``item``; a full queue marks the subscriber overflowed (it is then cut off)."""
        if self.overflowed:
            return
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            self._overflow()

    def _overflow(self) -> None:
        self.overflowed = True
        _wake(self.waiter)

    def close(self, reason: str, error: Any = None) -> None:
        """End the stream (drain / lost ownership: UNAVAILABLE; or ``error``, a ``ServiceError``,
        e.g. the match was aborted); wakes the consumer."""
        self.closed_reason = reason
        self.closed_error = error
        try:
            self.queue.put_nowait(None)
        except asyncio.QueueFull:
            self._overflow()


async def deliver(context: grpc.aio.ServicerContext, sub: Subscriber, message: Any) -> bool:
    """Writes ``message`` to the stream: True once gRPC has taken it, False when the subscriber
    overflowed while gRPC held the write back (the client stopped reading; the stream is to be
    cut off now). A write left held is sent, in order, before the stream's status if the client
    ever reads again."""
    write = asyncio.ensure_future(context.write(message))
    if not write.done():
        # One future woken by whichever comes first (the write's end, ``_overflow``): cheaper
        # than ``asyncio.wait`` over the write and a task waiting for an overflow event, which
        # every message of every stream paid.
        sub.waiter = waiter = write.get_loop().create_future()
        write.add_done_callback(lambda _: _wake(waiter))
        if sub.overflowed:
            _wake(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            write.cancel()
            raise
        finally:
            sub.waiter = None
        if not write.done():
            sub.held = write
            return False
    write.result()
    return True


def _wake(waiter: asyncio.Future[None] | None) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(None)


async def cut_off(subscribers: set[Subscriber], sub: Subscriber) -> bool:
    """Ends an overflowed subscription now (its queued events dropped), then waits for the write
    gRPC still holds, if any: it goes out when the client reads again, or fails with the call.
    Returns whether the client is still there to be told (False: the call is gone)."""
    unsubscribe(subscribers, sub)
    while not sub.queue.empty():
        sub.queue.get_nowait()
    if sub.held is None:
        return True
    with contextlib.suppress(Exception):
        await sub.held
    return not sub.held.cancelled() and sub.held.exception() is None


async def next_item(sub: Subscriber, timeout: float) -> StoredEvent | None:
    """The subscriber's next queued item, waiting up to ``timeout`` seconds (``TimeoutError``:
    time for a heartbeat). A queued item is taken at once; waiting uses ``asyncio.timeout``
    rather than ``wait_for``, which would run every ``get`` as a task of its own."""
    if not sub.queue.empty():
        return sub.queue.get_nowait()
    async with asyncio.timeout(timeout):
        return await sub.queue.get()


def subscribe(subscribers: set[Subscriber], events: Sequence[StoredEvent], viewer: int | None,
              after_seq: int, size: int) -> tuple[list[StoredEvent], Subscriber]:
    """The stored events after ``after_seq`` and a subscription for the ones to come. Taken in
    one step (no ``await`` between them), so nothing is missed and nothing is seen twice."""
    backlog = list(events[after_seq:])
    sub = Subscriber(viewer, size)
    subscribers.add(sub)
    metrics.SUBSCRIBERS.inc()
    return backlog, sub


def unsubscribe(subscribers: set[Subscriber], sub: Subscriber) -> None:
    """Forget a stream that ended."""
    if sub in subscribers:
        subscribers.discard(sub)
        metrics.SUBSCRIBERS.dec()


def publish(subscribers: Iterable[Subscriber], events: Sequence[StoredEvent]) -> None:
    """Feed newly stored events to every open stream of the match."""
    for sub in list(subscribers):
        for ev in events:
            sub.push(ev)


def close_all(subscribers: Iterable[Subscriber], why: str, error: Any = None) -> None:
    """End every open stream of the match (see ``Subscriber.close``)."""
    for sub in list(subscribers):
        sub.close(why, error)
