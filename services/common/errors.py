"""Rich gRPC errors: ``google.rpc.Status`` with typed details, for grpc.aio servicers.

Raise ``ServiceError(code, message, *details)`` anywhere below a servicer and let the ``@rpc``
decorator on the servicer's methods (or ``abort_with(context, error)``) turn it into a status with
``grpc-status-details-bin`` trailing metadata, which clients read with
``grpc_status.rpc_status.from_call(call)``. Details are protobuf messages (``google.rpc``
``BadRequest``, ``RetryInfo``, ``ErrorInfo`` or the contract's own, such as ``RuleViolation``).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sqlite3
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

import grpc
import psycopg
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status
from sqlalchemy.exc import DBAPIError, OperationalError

from wordarena.services.common import logs

log = logs.get_logger(__name__)

#: The drivers' own "could not reach / lost the database" errors, for code that uses a DBAPI
#: connection directly (SQLAlchemy wraps them as ``OperationalError`` elsewhere).
_DRIVER_OPERATIONAL = (psycopg.OperationalError, sqlite3.OperationalError)

#: How long a client is told to wait before retrying a call the database could not serve.
DATABASE_RETRY_S = 1.0


class ServiceError(Exception):
    """A refused request: a status code, a message a client can act on, and typed details."""

    def __init__(self, code: grpc.StatusCode, message: str, *details: Message) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def to_status(self) -> status_pb2.Status:
        """The ``google.rpc.Status`` for this error."""
        packed = []
        for d in self.details:
            a = any_pb2.Any()
            a.Pack(d)
            packed.append(a)
        return status_pb2.Status(code=self.code.value[0], message=self.message, details=packed)

    def __repr__(self) -> str:
        return f"ServiceError({self.code.name}, {self.message!r})"


def bad_request(field: str, description: str) -> error_details_pb2.BadRequest:
    """A ``google.rpc.BadRequest`` naming one field."""
    return error_details_pb2.BadRequest(
        field_violations=[error_details_pb2.BadRequest.FieldViolation(field=field, description=description)]
    )


def invalid_argument(field: str, description: str, *more: Message) -> ServiceError:
    """INVALID_ARGUMENT with a BadRequest detail for ``field``."""
    return ServiceError(grpc.StatusCode.INVALID_ARGUMENT, f"{field}: {description}",
                        bad_request(field, description), *more)


def retry_info(wait_s: float) -> error_details_pb2.RetryInfo:
    """A ``google.rpc.RetryInfo`` telling the client to wait ``wait_s`` seconds (rounded up to
    the nanosecond, so that retrying then is never early)."""
    retry = error_details_pb2.RetryInfo()
    retry.retry_delay.FromNanoseconds(int(wait_s * 1e9) + 1)
    return retry


def too_many(message: str, wait_s: float) -> ServiceError:
    """RESOURCE_EXHAUSTED with a RetryInfo: a limit refuses the call for ``wait_s`` seconds."""
    return ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, message, retry_info(wait_s))


# Trailing metadata over 8 KiB makes clients see RESOURCE_EXHAUSTED instead of the real status,
# so error messages echoing oversized input are clipped and oversized details dropped.
MAX_MESSAGE_CHARS = 200
MAX_DETAILS_BYTES = 2500


def fit_status(status: status_pb2.Status) -> status_pb2.Status:
    """``status`` made small enough for gRPC trailing metadata (message and details bounded)."""
    if len(status.message) > MAX_MESSAGE_CHARS:
        status.message = status.message[:MAX_MESSAGE_CHARS - 1] + "…"
    if sum(d.ByteSize() for d in status.details) > MAX_DETAILS_BYTES:
        kept, size = [], 0
        for d in status.details:
            if size + d.ByteSize() <= MAX_DETAILS_BYTES:
                kept.append(d)
                size += d.ByteSize()
        del status.details[:]
        status.details.extend(kept)
    return status


async def abort_with(context: grpc.aio.ServicerContext, error: ServiceError) -> None:
    """End the call with ``error`` (raises ``grpc.aio.AbortError``)."""
    status = fit_status(error.to_status())
    grpc_status = rpc_status.to_status(status)
    await context.abort(grpc_status.code, grpc_status.details,
                        trailing_metadata=grpc_status.trailing_metadata)


#: Turns a domain error into the ``ServiceError`` it answers as (None: not one of its errors).
Translate = Callable[[Exception], "ServiceError | None"]
F = TypeVar("F", bound=Callable[..., Any])


def database_unavailable(exc: Exception) -> ServiceError | None:
    """UNAVAILABLE with a retry hint when ``exc`` says the database could not be reached or ended
    the connection (a restart, a cut link, a transaction it ended because this process was frozen),
    logged as a warning: an outage the service rides out, not a bug. The driver's message (host,
    database name) stays in the log; the client learns only that it may retry."""
    lost = (isinstance(exc, (OperationalError, *_DRIVER_OPERATIONAL))
            or (isinstance(exc, DBAPIError) and exc.connection_invalidated))
    if not lost:
        return None
    log.warning("database unavailable: call refused", error=str(getattr(exc, "orig", exc)).strip()[:300])
    return ServiceError(grpc.StatusCode.UNAVAILABLE, "the database is unavailable; retry shortly",
                        retry_info(DATABASE_RETRY_S))


def _service_error(exc: Exception, translators: tuple[Translate, ...]) -> ServiceError | None:
    if isinstance(exc, ServiceError):
        return exc
    if (lost := database_unavailable(exc)) is not None:
        return lost
    for translate in translators:
        err = translate(exc)
        if err is not None:
            return err
    return None


def _bind(request: Any) -> None:
    if getattr(request, "match_id", ""):
        logs.bind(match_id=request.match_id)
    if getattr(request, "request_id", ""):
        logs.bind(client_request_id=request.request_id)


def rpc_errors(*translators: Translate) -> Callable[[F], F]:
    """The one error mapping of the servicers: a decorator for grpc.aio handlers, unary or
    server-streaming (an ``async def`` that yields), that binds the request's ``match_id`` /
    ``request_id`` to the log context and ends the call with a rich status when the handler
    raises ``ServiceError``, a database outage (``database_unavailable``) or a domain error one of
    ``translators`` knows. Other exceptions
    pass through (gRPC answers UNKNOWN, and the interceptors log them)."""

    def decorate(fn: F) -> F:
        if inspect.isasyncgenfunction(fn):

            @functools.wraps(fn)
            async def stream(
                self: Any, request: Any, context: grpc.aio.ServicerContext
            ) -> AsyncIterator[Any]:
                _bind(request)
                try:
                    # aclosing: when the call ends early (the client went away) the handler is
                    # closed at once and its ``finally`` clean-up runs now.
                    async with contextlib.aclosing(fn(self, request, context)) as items:
                        async for item in items:
                            yield item
                except Exception as exc:
                    err = _service_error(exc, translators)
                    if err is None:
                        raise
                    await abort_with(context, err)

            return stream  # type: ignore[return-value]

        @functools.wraps(fn)
        async def unary(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
            _bind(request)
            try:
                return await fn(self, request, context)
            except Exception as exc:
                err = _service_error(exc, translators)
                if err is None:
                    raise
                await abort_with(context, err)
                raise AssertionError("unreachable") from exc  # abort raises

        return unary  # type: ignore[return-value]

    return decorate


#: ``rpc_errors()`` for servicers whose errors are all ``ServiceError``.
rpc = rpc_errors()


def details_of(error: grpc.RpcError | grpc.aio.AioRpcError) -> list[Message]:
    """Client side: the unpacked details of a failed call (contract messages must be imported)."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    if status is None:
        return []
    from google.protobuf import symbol_database

    db = symbol_database.Default()
    out: list[Message] = []
    for a in status.details:
        name = a.TypeName()
        try:
            cls: Any = db.GetSymbol(name)
        except KeyError:
            continue
        msg = cls()
        a.Unpack(msg)
        out.append(msg)
    return out


def detail(error: Any, cls: type[Message]) -> Any:
    """Client side: the first detail of type ``cls`` in a failed call, or None."""
    for d in details_of(error):
        if isinstance(d, cls):
            return d
    return None


__all__ = ["ServiceError", "Translate", "abort_with", "bad_request", "code_pb2", "database_unavailable",
           "detail", "details_of", "fit_status", "invalid_argument", "rpc", "rpc_errors"]
