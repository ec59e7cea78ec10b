"""The lobby's one error mapping: ``LobbyError`` → a gRPC status with a ``LobbyViolation`` detail
(and ``BadRequest`` for a field at fault, ``RetryInfo`` when the caller may retry), applied to
every handler by ``rpc`` (``services.common.errors.rpc_errors``)."""

from __future__ import annotations

import grpc
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from wordarena.services.common.errors import ServiceError, bad_request, rpc_errors
from wordarena.services.lobby.errors import LobbyError, Status
from wordarena.v1 import errors_pb2

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
    return to_service_error(exc) if isinstance(exc, LobbyError) else None


#: The decorator of every lobby handler (unary or server-streaming).
rpc = rpc_errors(_translate)
