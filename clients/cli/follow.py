"""A match's events as a client follows them: the stream consumer that reconnects and resumes
with ``after_seq`` (nothing missed, nothing twice), following a match that moved."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import grpc

from wordarena.clients.cli.errors import EXIT_UNREACHABLE, EXIT_USAGE, ClientError, explain_rpc_error
from wordarena.v1 import common_pb2, match_pb2

if TYPE_CHECKING:
    from wordarena.clients.cli.client import Client

Notice = Callable[[str], None]

#: Tries before giving up on a stream that has not opened once (about 10 s of back-off): a
#: server down from the start is reported (exit 3), not waited for as long as a dropped stream.
FIRST_TRIES = 5


def follow(client: Client, match_id: str, after_seq: int = 0, *, notice: Notice | None = None,
           heartbeats: bool = False, max_retries: int = 30,
           stop: Callable[[], bool] | None = None) -> Iterator[common_pb2.Event]:
    """Every event after ``after_seq``, live; reconnects and resumes with the last seq seen.

    Ends after GameOver (or when the server ends the stream). Only transient failures are
    retried: a dropped stream, a cut-off for reading slowly, a moved match, a server that cannot
    be reached (``notice`` is told); after ``max_retries`` consecutive failures (``FIRST_TRIES``
    while no stream has opened yet) the last :class:`ClientError` is raised. A match that does
    not exist, a caller not signed in or not allowed, and bad input raise at once; so does a
    ``stop`` that comes while the server cannot be reached (the caller learns it was never
    reached, not that the match went quiet).
    """
    last = after_seq
    failures = 0
    opened = False
    error: ClientError | None = None
    while True:
        if stop and stop():
            if failures and error is not None:
                raise error
            return
        try:
            stub = client.match_stub(match_id)
            call = stub.StreamMatch(match_pb2.StreamMatchRequest(match_id=match_id, after_seq=last),
                                    metadata=client.metadata())
            if stop:
                # ``stop`` may become true while no message arrives (an idle match between
                # heartbeats): a watchdog ends the call then, not the next message.
                threading.Thread(target=_cancel_when, args=(call, stop), daemon=True).start()
            reconnected = failures > 0
            for msg in call:
                event = msg.event
                if reconnected and notice:
                    notice("Reconnected; the game resumes where it was")
                    reconnected = False
                failures = 0
                opened = True
                if event.WhichOneof("kind") == "heartbeat":
                    if heartbeats:
                        yield event
                    continue
                if event.seq <= last:
                    continue
                last = event.seq
                yield event
                if event.WhichOneof("kind") == "game_over":
                    call.cancel()
                    return
                if stop and stop():
                    call.cancel()
                    return
            return  # the server ended the stream (OK)
        except grpc.RpcError as err:
            exc = explain_rpc_error(err)
            if err.code() == grpc.StatusCode.CANCELLED and stop and stop():
                return
            if exc.exit_code in (EXIT_USAGE,) or err.code() in (
                    grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED,
                    grpc.StatusCode.UNAUTHENTICATED):
                raise exc from err
            failures += 1
            error = exc
            if failures > (max_retries if opened else min(max_retries, FIRST_TRIES)):
                raise exc from err
            if exc.new_address is not None or err.code() == grpc.StatusCode.UNAVAILABLE:
                client.relocate(match_id, exc)
            if notice:
                notice(f"Connection lost ({exc.message}); reconnecting from event {last}…")
            time.sleep(min(0.2 * 2 ** min(failures, 4), 3.0))
        except ClientError as exc:  # locating the match failed
            if exc.exit_code != EXIT_UNREACHABLE:  # no such match, not signed in, not allowed
                raise
            failures += 1
            error = exc
            if failures > (max_retries if opened else min(max_retries, FIRST_TRIES)):
                raise
            if notice:
                notice(f"{exc.message}; retrying…")
            time.sleep(min(0.2 * 2 ** min(failures, 4), 3.0))



def _cancel_when(call: Any, stop: Callable[[], bool], every: float = 0.2) -> None:
    """Cancel the streaming ``call`` as soon as ``stop()`` is true (checked every ``every`` s)."""
    while not call.done():
        if stop():
            call.cancel()
            return
        time.sleep(every)
