"""The lobby's one error mapping: ``LobbyError`` → a gRPC status with a ``LobbyViolation`` detail
(and ``BadRequest`` for a field at fault, ``RetryInfo`` when the caller may retry), applied to
every handler by ``rpc`` (``services.common.errors.rpc_errors``), which also checks every string
field of the request first (``check_text``). Anything else a handler raises is logged here and
answers INTERNAL with a fixed message: no SQL, stack or schema ever reaches a client."""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message
from google.rpc import error_details_pb2

from wordarena.services.common import logs
from wordarena.services.common.errors import ServiceError, bad_request, rpc_errors
from wordarena.services.lobby.api.requests import CALL_DEADLINE, check_text
from wordarena.services.lobby.errors import LobbyError, Status
from wordarena.v1 import errors_pb2

log = logs.get_logger(__name__)
F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["rpc", "to_service_error"]


def to_service_error(e: LobbyError) -> ServiceError:
    """The status a lobby refusal answers with: the code of the same name, its message, and its
    details."""
    details: list[Message] = []
    code_value = errors_pb2.LobbyCode.Value(f"LOBBY_CODE_{e.code}") if e.code else 0
    details.append(
        errors_pb2.LobbyViolation(code=code_value, code_name=e.code, message=e.message, field=e.field)
    )
    if e.field and e.status == Status.INVALID_ARGUMENT:
        details.append(bad_request(e.field, e.message))
    if e.retry_after_s is not None:
        info = error_details_pb2.RetryInfo()
        info.retry_delay.FromNanoseconds(int(e.retry_after_s * 1e9))
        details.append(info)
    return ServiceError(grpc.StatusCode[e.status.name], e.message, *details)


def _translate(exc: Exception) -> ServiceError | None:
    if isinstance(exc, LobbyError):
        return to_service_error(exc)
    if isinstance(exc, grpc.aio.AbortError):  # the call is already ended with its status
        return None
    log.error("unexpected error in a lobby handler", error=type(exc).__name__, exc_info=exc)
    return ServiceError(grpc.StatusCode.INTERNAL, "internal error (logged by the lobby); retry later")


_errors = rpc_errors(_translate)


def _note_deadline(context: Any) -> None:
    """The client's deadline, for the call's waits (``CALL_DEADLINE``)."""
    remaining = context.time_remaining()
    CALL_DEADLINE.set(None if remaining is None else time.monotonic() + remaining)


def rpc(fn: F) -> F:
    """The decorator of every lobby handler (unary or server-streaming): notes the client's
    deadline, checks the request's string fields, then runs the handler under the lobby's error
    mapping."""
    if inspect.isasyncgenfunction(fn):

        @functools.wraps(fn)
        async def stream(self: Any, request: Message, context: Any) -> AsyncIterator[Any]:
            check_text(request)
            async for item in fn(self, request, context):
                yield item

        return _errors(stream)  # type: ignore[return-value]

    @functools.wraps(fn)
    async def unary(self: Any, request: Message, context: Any) -> Any:
        _note_deadline(context)
        check_text(request)
        return await fn(self, request, context)

    return _errors(unary)  # type: ignore[return-value]
