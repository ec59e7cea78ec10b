"""StreamMatch subscriptions: each open stream is a ``Subscriber``, a bounded queue of stored events
that the match's commits feed (``publish``) and the servicer drains, projecting each event for the
stream's viewer.

A subscriber too slow to keep up overflows its queue; the servicer then cuts the stream off with
RESOURCE_EXHAUSTED and the client resumes from its last seq. ``close`` ends a stream on purpose
(the match moved, was aborted, or the server shuts down).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import Any

from wordarena.services.match import metrics
from wordarena.services.match.store import StoredEvent


class Subscriber:
    """A StreamMatch consumer: a bounded queue of stored events (``None`` ends the stream)."""

    def __init__(self, viewer: int | None, size: int) -> None:
        self.viewer = viewer
        self.queue: asyncio.Queue[StoredEvent | None] = asyncio.Queue(maxsize=size)
        self.overflowed = False
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
            self.overflowed = True

    def close(self, reason: str, error: Any = None) -> None:
        """End the stream (drain / lost ownership: UNAVAILABLE; or ``error``, a ``ServiceError``,
        e.g. the match was aborted); wakes the consumer."""
        self.closed_reason = reason
        self.closed_error = error
        try:
            self.queue.put_nowait(None)
        except asyncio.QueueFull:
            self.overflowed = True


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
