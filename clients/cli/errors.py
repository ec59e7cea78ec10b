"""Errors in plain words: a failed gRPC call (status, ``google.rpc.Status`` details) turned into
a :class:`ClientError` with the message to show and the exit code the scripting commands return.
Messages are made safe to print (:func:`clients.cli.safe.safe_text`): server details are
untrusted text.
"""

from __future__ import annotations

from typing import Any

import grpc
from grpc_status import rpc_status

from wordarena.clients.cli.safe import safe_text
from wordarena.v1 import errors_pb2

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3


# --------------------------------------------------------------------------------------------
# Errors in plain words
# --------------------------------------------------------------------------------------------


class ClientError(Exception):
    """A failure to show the user: a plain-words message and the exit code to return."""

    def __init__(self, message: str, exit_code: int = EXIT_REFUSED, *, code: str = "",
                 rule: str = "", words: tuple[str, ...] = (), current_seq: int | None = None,
                 new_address: str | None = None) -> None:
        message = safe_text(message, keep_newlines=True)  # server details are untrusted text
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.code = code  # gRPC status name, e.g. "FAILED_PRECONDITION"; "" for local errors
        self.rule = rule  # RuleViolation / LobbyViolation code name
        self.words = words
        self.current_seq = current_seq  # StaleSeq
        self.new_address = new_address  # MatchMoved

    def to_json(self) -> dict[str, Any]:
        """The error as a JSON object (``--json`` output)."""
        out: dict[str, Any] = {"error": self.message, "exit_code": self.exit_code}
        if self.code:
            out["status"] = self.code
        if self.rule:
            out["rule"] = self.rule
        if self.words:
            out["words"] = list(self.words)
        if self.current_seq is not None:
            out["current_seq"] = self.current_seq
        if self.new_address is not None:
            out["new_address"] = self.new_address
        return out


_EXIT_BY_STATUS = {
    grpc.StatusCode.INVALID_ARGUMENT: EXIT_USAGE,
    grpc.StatusCode.UNAVAILABLE: EXIT_UNREACHABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED: EXIT_UNREACHABLE,
}

_STATUS_WORDS = {
    grpc.StatusCode.NOT_FOUND: "not found",
    grpc.StatusCode.PERMISSION_DENIED: "not allowed",
    grpc.StatusCode.UNAUTHENTICATED: "not signed in (or the sign-in expired): run `wordarena login`",
    grpc.StatusCode.UNAVAILABLE: "the server cannot be reached",
    grpc.StatusCode.DEADLINE_EXCEEDED: "the server did not answer in time",
    grpc.StatusCode.RESOURCE_EXHAUSTED: "too many requests, or too slow a reader",
    grpc.StatusCode.ALREADY_EXISTS: "already exists",
    grpc.StatusCode.UNIMPLEMENTED: "the server does not offer this",
}


def rule_name(code_name: str) -> str:
    """``WORD_NOT_IN_LEXICON`` → ``word not in lexicon``."""
    return code_name.replace("_", " ").lower()


def _square_names(squares: Any) -> list[str]:
    from wordarena.engine.board import square_name

    return [s.notation or square_name(s.row, s.col) for s in squares]


def explain_rule_violation(v: errors_pb2.RuleViolation) -> str:
    """A RuleViolation in plain words: which rule, which words / squares / tiles."""
    name = v.code_name or errors_pb2.RuleCode.Name(v.code).removeprefix("RULE_CODE_")
    text = v.message or rule_name(name).capitalize()
    extras = []
    if v.words and not all(w in text for w in v.words):
        extras.append("words: " + ", ".join(v.words))
    if v.squares:
        extras.append("squares: " + " ".join(_square_names(v.squares)))
    if v.tiles:
        extras.append("tiles: " + " ".join(t.letter or "?" for t in v.tiles))
    suffix = f" ({'; '.join(extras)})" if extras else ""
    return safe_text(f"{text}{suffix} [rule: {rule_name(name)}]")


def explain_rpc_error(err: grpc.RpcError) -> ClientError:
    """Turn a failed call into a :class:`ClientError`, reading the ``google.rpc.Status`` details."""
    code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
    details = (err.details() if hasattr(err, "details") else "") or ""
    exit_code = _EXIT_BY_STATUS.get(code, EXIT_REFUSED)
    kwargs: dict[str, Any] = {"code": code.name if code else ""}
    message = ""
    try:
        status = rpc_status.from_call(err)  # type: ignore[arg-type]
    except Exception:  # a status without valid details: fall back to the text
        status = None
    for any_detail in status.details if status is not None else ():
        if any_detail.Is(errors_pb2.RuleViolation.DESCRIPTOR):
            v = errors_pb2.RuleViolation()
            any_detail.Unpack(v)
            message = explain_rule_violation(v)
            kwargs["rule"] = v.code_name or errors_pb2.RuleCode.Name(v.code).removeprefix("RULE_CODE_")
            kwargs["words"] = tuple(v.words)
        elif any_detail.Is(errors_pb2.StaleSeq.DESCRIPTOR):
            s = errors_pb2.StaleSeq()
            any_detail.Unpack(s)
            message = (f"The game has moved on (now at event {s.current_seq}, you had seen "
                       f"{s.expected_seq}): look at the board again and retry")
            kwargs["rule"] = "STALE_SEQ"
            kwargs["current_seq"] = s.current_seq
        elif any_detail.Is(errors_pb2.MatchMoved.DESCRIPTOR):
            m = errors_pb2.MatchMoved()
            any_detail.Unpack(m)
            where = m.new_address or "a server not known yet"
            message = f"The match moved to {where}"
            kwargs["new_address"] = m.new_address
        elif any_detail.Is(errors_pb2.LobbyViolation.DESCRIPTOR):
            lv = errors_pb2.LobbyViolation()
            any_detail.Unpack(lv)
            name = lv.code_name or errors_pb2.LobbyCode.Name(lv.code).removeprefix("LOBBY_CODE_")
            message = lv.message or rule_name(name).capitalize()
            if lv.field:
                message += f" (field {lv.field})"
            message += f" [rule: {rule_name(name)}]"
            kwargs["rule"] = name
        elif any_detail.Is(errors_pb2.StreamCutOff.DESCRIPTOR):
            c = errors_pb2.StreamCutOff()
            any_detail.Unpack(c)
            message = f"The stream was cut off after event {c.last_delivered_seq} (reading too slowly)"
            kwargs["current_seq"] = c.last_delivered_seq
    if not message:
        base = _STATUS_WORDS.get(code, "")
        if code == grpc.StatusCode.UNAVAILABLE and details and "connect" in details.lower():
            message = f"The server cannot be reached ({details})"
        elif details and base and code != grpc.StatusCode.UNAUTHENTICATED:
            message = f"{details[0].upper()}{details[1:]} ({base})"
        else:
            message = (details or base or code.name.lower().replace("_", " ")).strip()
            message = message[0].upper() + message[1:] if message else "Request failed"
        if code == grpc.StatusCode.UNAUTHENTICATED:
            message = "Not signed in, or the sign-in expired: run `wordarena login --name NAME`"
    return ClientError(message, exit_code, **kwargs)
