"""Lobby errors: a rule broken, its gRPC status, and the ``LobbyViolation`` detail sent with it."""

from __future__ import annotations

import grpc

__all__ = ["LobbyError"]


class LobbyError(Exception):
    """A refused lobby request.

    ``code`` is a ``LobbyCode`` name without its prefix (e.g. ``"TABLE_FULL"``) or ``""`` when no
    code applies; ``status`` the gRPC status code; ``field`` the dotted request field at fault.
    """

    def __init__(
        self,
        status: grpc.StatusCode,
        message: str,
        code: str = "",
        field: str = "",
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.field = field
        self.retry_after_s = retry_after_s

    def __repr__(self) -> str:
        return f"LobbyError({self.status.name}, {self.code or '-'}, {self.message!r})"

    # Short constructors for the common cases -------------------------------------------------

    @classmethod
    def invalid(cls, message: str, field: str = "", code: str = "") -> LobbyError:
        """INVALID_ARGUMENT."""
        return cls(grpc.StatusCode.INVALID_ARGUMENT, message, code, field)

    @classmethod
    def settings(cls, message: str, field: str) -> LobbyError:
        """INVALID_ARGUMENT with SETTINGS_INVALID."""
        return cls(grpc.StatusCode.INVALID_ARGUMENT, message, "SETTINGS_INVALID", field)

    @classmethod
    def not_found(cls, message: str, field: str = "") -> LobbyError:
        """NOT_FOUND."""
        return cls(grpc.StatusCode.NOT_FOUND, message, "", field)

    @classmethod
    def precondition(cls, code: str, message: str, field: str = "") -> LobbyError:
        """FAILED_PRECONDITION with a code."""
        return cls(grpc.StatusCode.FAILED_PRECONDITION, message, code, field)

    @classmethod
    def denied(cls, code: str, message: str, field: str = "") -> LobbyError:
        """PERMISSION_DENIED with a code."""
        return cls(grpc.StatusCode.PERMISSION_DENIED, message, code, field)
