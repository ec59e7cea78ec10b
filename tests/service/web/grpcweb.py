"""A gRPC-Web client for the tests, framed by hand over httpx (as a browser's fetch sends it):
each message a 5-byte prefix (flag 0, big-endian length) and its bytes; the answer the same, the
last frame (flag 0x80) the trailers as HTTP header lines. Nothing of the server's code is used:
what it checks is the wire a browser reads."""

from __future__ import annotations

import base64
import struct
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx
from google.protobuf import symbol_database
from google.protobuf.message import Message
from google.rpc import status_pb2

CONTENT_TYPE = "application/grpc-web+proto"


class GrpcWebError(Exception):
    """A call that ended with a status other than OK (``grpc-status``)."""

    def __init__(self, code: int, message: str, trailers: dict[str, str]) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.trailers = trailers

    @property
    def status(self) -> status_pb2.Status | None:
        """The ``google.rpc.Status`` of ``grpc-status-details-bin``, if sent."""
        raw = self.trailers.get("grpc-status-details-bin")
        if raw is None:
            return None
        return status_pb2.Status.FromString(base64.b64decode(raw + "=" * (-len(raw) % 4)))

    def details(self) -> list[Message]:
        """The status's details, unpacked (their message types must be imported)."""
        status = self.status
        out: list[Message] = []
        for a in status.details if status else ():
            cls: Any = symbol_database.Default().GetSymbol(a.TypeName())
            msg = cls()
            a.Unpack(msg)
            out.append(msg)
        return out


def frame(message: Message) -> bytes:
    body = message.SerializeToString()
    return struct.pack(">BI", 0, len(body)) + body


def _trailers(block: bytes) -> dict[str, str]:
    out = {}
    for line in block.decode("latin-1").split("\r\n"):
        key, sep, value = line.partition(":")
        if sep:
            out[key.strip().lower()] = value.strip()
    return out


def headers(token: str | None = None, origin: str | None = None, **more: str) -> dict[str, str]:
    h = {"content-type": CONTENT_TYPE, "x-grpc-web": "1", "accept": CONTENT_TYPE}
    if token:
        h["authorization"] = f"Bearer {token}"
    if origin:
        h["origin"] = origin
    h.update(more)
    return h


async def _frames(response: httpx.Response) -> AsyncIterator[tuple[int, bytes]]:
    buf = b""
    async for chunk in response.aiter_bytes():
        buf += chunk
        while len(buf) >= 5:
            flag, size = struct.unpack(">BI", buf[:5])
            if len(buf) < 5 + size:
                break
            yield flag, buf[5:5 + size]
            buf = buf[5 + size:]
    assert not buf, f"{len(buf)} bytes left after the last frame"


def _check(status: dict[str, str]) -> None:
    code = int(status.get("grpc-status", "-1"))
    if code != 0:
        from urllib.parse import unquote

        raise GrpcWebError(code, unquote(status.get("grpc-message", "")), status)


async def stream(client: httpx.AsyncClient, base: str, method: str, request: Message,
                 response_type: type[Message], token: str | None = None,
                 origin: str | None = None, **more: str) -> AsyncIterator[Message]:
    """The messages of a call of ``method`` (``/pkg.Service/Method``; ``more``: more request
    headers); ``GrpcWebError`` at the end when its status is not OK."""
    async with client.stream("POST", base + method, content=frame(request),
                             headers=headers(token, origin, **more)) as response:
        assert response.status_code == 200, (response.status_code, await response.aread())
        if "grpc-status" in response.headers:  # trailers-only: the status in the headers
            _check(dict(response.headers))
            return
        trailers: dict[str, str] | None = None
        async for flag, body in _frames(response):
            assert trailers is None, "a frame after the trailers"
            if flag & 0x80:
                trailers = _trailers(body)
            else:
                yield response_type.FromString(body)
        assert trailers is not None, "the response ended without trailers"
        _check(trailers)


async def unary(client: httpx.AsyncClient, base: str, method: str, request: Message,
                response_type: type[Message], token: str | None = None,
                origin: str | None = None, **more: str) -> Any:
    """The one answer of a unary call (``GrpcWebError`` when refused)."""
    answers = [m async for m in stream(client, base, method, request, response_type, token, origin, **more)]
    assert len(answers) == 1, answers
    return answers[0]


def detail_names(details: Sequence[Message]) -> set[str]:
    return {d.DESCRIPTOR.full_name for d in details}
