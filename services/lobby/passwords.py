"""Passwords: Argon2id hashes (argon2-cffi), length rules, and sign-in throttling."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from services.lobby.errors import LobbyError

__all__ = ["PASSWORD_MAX", "PASSWORD_MIN", "FailureThrottle", "Passwords", "validate_password"]

PASSWORD_MIN = 8
PASSWORD_MAX = 128


def validate_password(password: str, field: str = "password") -> str:
    """Checks the length rules (8..128 characters); raises INVALID_ARGUMENT PASSWORD_TOO_WEAK."""
    if not isinstance(password, str) or not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise LobbyError.invalid(
            f"password must be {PASSWORD_MIN}..{PASSWORD_MAX} characters", field, "PASSWORD_TOO_WEAK"
        )
    if len(set(password)) < 3:
        raise LobbyError.invalid("password needs at least 3 different characters", field, "PASSWORD_TOO_WEAK")
    return password


class Passwords:
    """Argon2id hashing. Defaults follow OWASP (19 MiB, 2 passes, 1 lane); tests pass cheaper ones."""

    def __init__(self, time_cost: int = 2, memory_cost_kib: int = 19 * 1024, parallelism: int = 1) -> None:
        self._hasher = PasswordHasher(
            time_cost=time_cost, memory_cost=memory_cost_kib, parallelism=parallelism
        )
        # A hash to verify against for unknown names, so that timing does not reveal them.
        self._dummy = self._hasher.hash("not a real password")

    def hash(self, password: str) -> str:
        """The encoded Argon2id hash of ``password``."""
        return self._hasher.hash(password)

    def verify(self, encoded: str | None, password: str) -> bool:
        """True when ``password`` matches ``encoded`` (None = unknown account: always False)."""
        try:
            return self._hasher.verify(encoded or self._dummy, password) and encoded is not None
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, encoded: str) -> bool:
        """True when ``encoded`` was made with other parameters."""
        return self._hasher.check_needs_rehash(encoded)


@dataclass
class FailureThrottle:
    """Counts failed sign-ins per key (a lower-cased name) in a sliding window."""

    limit: int = 5
    window_s: float = 300.0
    _failures: dict[str, list[float]] = field(default_factory=dict)

    def _recent(self, key: str, now: float) -> list[float]:
        times = [t for t in self._failures.get(key, []) if now - t < self.window_s]
        if times:
            self._failures[key] = times
        else:
            self._failures.pop(key, None)
        return times

    def retry_after(self, key: str, now: float | None = None) -> float | None:
        """Seconds to wait before another attempt, or None when attempts are allowed."""
        now = time.monotonic() if now is None else now
        times = self._recent(key, now)
        if len(times) < self.limit:
            return None
        return max(0.0, self.window_s - (now - times[-self.limit]))

    def fail(self, key: str, now: float | None = None) -> None:
        """Records a failed attempt."""
        now = time.monotonic() if now is None else now
        self._failures.setdefault(key, []).append(now)

    def succeed(self, key: str) -> None:
        """Forgets failures after a success."""
        self._failures.pop(key, None)
