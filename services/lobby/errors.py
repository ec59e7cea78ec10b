"""Lobby errors: a rule broken, the status it answers as, and the code and field it names.

Domain code raises ``LobbyError`` and knows nothing of gRPC: ``Status`` names the answer (its
members are named as ``grpc.StatusCode``'s), ``code`` the contract's ``LobbyCode``. The servicer
layer (``services.lobby.api.errors``) turns it into a gRPC status with a ``LobbyViolation``
detail (plus ``BadRequest`` / ``RetryInfo`` where they apply).
"""

from __future__ import annotations

from enum import Enum

__all__ = ["LobbyError", "Status"]


class Status(Enum):
    """What kind of refusal: each member answers as the gRPC status code of the same name."""

    INVALID_ARGUMENT = "invalid_argument"
    NOT_FOUND = "not_found"
    ALREADY_EXISTS = "already_exists"
    PERMISSION_DENIED = "permission_denied"
    FAILED_PRECONDITION = "failed_precondition"
    RESOURCE_EXHAUSTED = "resource_exhausted"
    UNAUTHENTICATED = "unauthenticated"
    UNAVAILABLE = "unavailable"
    ABORTED = "aborted"


class LobbyError(Exception):
    """A refused lobby request.

    ``code`` is a ``LobbyCode`` name without its prefix (e.g. ``"TABLE_FULL"``) or ``""`` when no
    code applies; ``status`` the kind of refusal; ``field`` the dotted request field at fault;
    ``retry_after_s`` when the caller may try again.
    """

    def __init__(
        self,
        status: Status,
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
        return cls(Status.INVALID_ARGUMENT, message, code, field)

    @classmethod
    def settings(cls, message: str, field: str) -> LobbyError:
        """INVALID_ARGUMENT with SETTINGS_INVALID."""
        return cls(Status.INVALID_ARGUMENT, message, "SETTINGS_INVALID", field)

    @classmethod
    def not_found(cls, message: str, field: str = "") -> LobbyError:
        """NOT_FOUND."""
        return cls(Status.NOT_FOUND, message, "", field)

    @classmethod
    def precondition(cls, code: str, message: str, field: str = "") -> LobbyError:
        """FAILED_PRECONDITION with a code."""
        return cls(Status.FAILED_PRECONDITION, message, code, field)

    @classmethod
    def denied(cls, code: str, message: str, field: str = "") -> LobbyError:
        """PERMISSION_DENIED with a code."""
        return cls(Status.PERMISSION_DENIED, message, code, field)
