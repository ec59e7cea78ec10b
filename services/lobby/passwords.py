"""Passwords: Argon2id hashes (argon2-cffi), length rules, and sign-in throttling."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from wordarena.services.lobby.errors import LobbyError

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


@dataclass(frozen=True)
class FailureThrottle:
    """The sign-in throttle's policy, per key (a name's skeleton *and* the client's address: see
    ``Accounts.sign_in``): ``limit`` failed sign-ins are free; after them each attempt waits for
    ``base_s`` seconds after the latest failure, doubling with each further failure up to
    ``max_s`` (exponential backoff). Failures are forgotten once ``window_s`` has passed since
    them, and all of them after a success.

    An attempt is counted as a failure *before* its password is checked (``attempt``), and a
    success then forgets the failures: so the waits hold however many attempts arrive at once (a
    check in flight already counts).

    Stateless: the caller keeps each key's failure times (the lobby keeps them in its database,
    shared by every lobby: ``store.count_sign_in_attempt``). Only the newest ``keep`` failures
    within the window matter (enough to reach ``max_s``), so that is all ``fail`` keeps."""

    limit: int = 5
    window_s: float = 3600.0
    base_s: float = 1.0
    max_s: float = 300.0

    @property
    def keep(self) -> int:
        """How many failures are kept: ``limit`` plus the doublings from ``base_s`` to ``max_s``."""
        doublings = 0
        while self.base_s * 2**doublings < self.max_s:
            doublings += 1
        return self.limit + doublings + 1

    def recent(self, times: Iterable[float], now: float) -> list[float]:
        """The failures still in the window, the newest ``keep`` of them, oldest first."""
        kept = sorted(t for t in times if now - t < self.window_s)
        return kept[-self.keep :]

    def wait_after(self, failures: int) -> float:
        """The wait after the latest of ``failures`` failures (0 while they are free)."""
        if failures < self.limit:
            return 0.0
        return min(self.max_s, self.base_s * 2 ** (failures - self.limit))

    def retry_after(self, times: Iterable[float], now: float) -> float | None:
        """Seconds to wait before another attempt, or None when attempts are allowed."""
        recent = self.recent(times, now)
        if len(recent) < self.limit:
            return None
        wait = recent[-1] + self.wait_after(len(recent)) - now
        return wait if wait > 0 else None

    def attempt(self, times: Iterable[float], now: float) -> tuple[float | None, list[float] | None]:
        """An attempt at ``now``, before its password is checked: ``(wait, None)`` when it is
        refused (a refusal is not a failure: nothing to record), else ``(None, kept)`` with the
        failure times to keep, this attempt counted among them as a failure in advance."""
        times = list(times)
        wait = self.retry_after(times, now)
        if wait is not None:
            return wait, None
        return None, self.fail(times, now)

    def fail(self, times: Iterable[float], now: float) -> list[float]:
        """The failure times to keep after a failed attempt at ``now``."""
        return self.recent([*times, now], now)

    def expires_at(self, times: Iterable[float]) -> float:
        """When the newest of these failures leaves the window (then all are forgotten)."""
        return max(times, default=0.0) + self.window_s
