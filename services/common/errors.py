"""Rich gRPC errors: ``google.rpc.Status`` with typed details, for grpc.aio servicers.

Raise ``ServiceError(code, message, *details)`` anywhere below a servicer and let
``abort_with(context, error)`` (or the ``@rpc`` decorator of a service) turn it into a status with
``grpc-status-details-bin`` trailing metadata, which clients read with
``grpc_status.rpc_status.from_call(call)``. Details are protobuf messages (``google.rpc``
``BadRequest``, ``RetryInfo``, ``ErrorInfo`` or the contract's own, such as ``RuleViolation``).
"""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status


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


__all__ = ["ServiceError", "abort_with", "bad_request", "code_pb2", "detail", "details_of",
           "fit_status", "invalid_argument"]
