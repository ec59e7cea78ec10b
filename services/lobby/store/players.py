"""Players: accounts, names in use, and the sign-in failure throttle's rows."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection

from sqlalchemy import delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, select

from wordarena.services.lobby.models import PlayerRow, SignInFailureRow
from wordarena.services.lobby.passwords import FailureThrottle
from wordarena.services.lobby.store.base import delete_unlocked

__all__ = [
    "add_sign_in_failure",
    "claimed_player",
    "clear_sign_in_failures",
    "count_sign_in_attempt",
    "delete_expired_sign_in_failures",
    "get_player",
    "name_in_use",
    "names_in_use",
    "save_player",
    "sign_in_failures",
    "touch_player",
]


def name_in_use(s: Session, name_key: str, live_since: float, except_id: str = "") -> bool:
    """True when a claimed account, or a guest seen since ``live_since``, has this name key."""
    q = select(PlayerRow.id).where(PlayerRow.name_key == name_key, PlayerRow.id != except_id)
    q = q.where((PlayerRow.guest == False) | (PlayerRow.last_seen >= live_since))  # noqa: E712
    return s.exec(q.limit(1)).first() is not None


def names_in_use(s: Session, name_keys: Collection[str], live_since: float) -> set[str]:
    """Which of ``name_keys`` a claimed account, or a guest seen since ``live_since``, has (one
    query for a group of sign-ins)."""
    q = select(PlayerRow.name_key).where(PlayerRow.name_key.in_(list(name_keys)))  # type: ignore[attr-defined]
    q = q.where((PlayerRow.guest == False) | (PlayerRow.last_seen >= live_since))  # noqa: E712
    return set(s.exec(q))


def get_player(s: Session, player_id: str) -> PlayerRow | None:
    """A player's row, or None."""
    return s.get(PlayerRow, player_id)


def touch_player(s: Session, player_id: str, now: float) -> PlayerRow | None:
    """A player's row with ``last_seen`` set to ``now`` (a guest's name stays theirs while they
    are seen), or None."""
    p = s.get(PlayerRow, player_id)
    if p is not None:
        p.last_seen = now
        s.add(p)
    return p


def save_player(s: Session, p: PlayerRow) -> PlayerRow:
    """Inserts or updates a player's row."""
    s.add(p)
    return p


def claimed_player(s: Session, name_key: str) -> PlayerRow | None:
    """The claimed account (not a guest) with this name key, or None."""
    q = select(PlayerRow).where(PlayerRow.name_key == name_key, PlayerRow.guest == False)  # noqa: E712
    return s.exec(q).first()


# -- sign-in failure throttle ------------------------------------------------------------------


def _failure_key(key: str) -> str:
    """The row key of a throttle key: its SHA-256, hex (fixed length; the name tried is not kept)."""
    return hashlib.sha256(key.encode()).hexdigest()


def sign_in_failures(s: Session, key: str) -> list[float]:
    """The stored failure times of a throttle key (oldest first; possibly out of the window)."""
    row = s.get(SignInFailureRow, _failure_key(key))
    return json.loads(row.failures) if row is not None else []


def _lock_sign_in_failures(s: Session, key: str, now: float) -> SignInFailureRow:
    """A throttle key's row, created if missing (``INSERT … ON CONFLICT DO NOTHING``), then read
    ``FOR UPDATE``: on PostgreSQL two lobbies updating one key at once queue on the row lock, and
    the second reads the first's committed times, so neither update is lost. On SQLite the one
    writer thread serialises the transactions."""
    k = _failure_key(key)
    dialect = s.get_bind().dialect.name
    ins = postgresql.insert if dialect == "postgresql" else sqlite.insert
    lock = select(SignInFailureRow).where(SignInFailureRow.key == k).with_for_update()
    for _ in range(3):  # housekeeping may delete an expired row between the two statements
        s.exec(  # type: ignore[call-overload]
            ins(SignInFailureRow)
            .values(key=k, failures="[]", expires_at=now)
            .on_conflict_do_nothing(index_elements=["key"])
        )
        row = s.exec(lock).first()
        if row is not None:
            return row
    raise RuntimeError("sign-in failure row vanished")  # pragma: no cover - deleted three times over


def _store_failures(s: Session, row: SignInFailureRow, times: list[float], policy: FailureThrottle) -> None:
    row.failures = json.dumps(times)
    row.expires_at = policy.expires_at(times)
    s.add(row)


def count_sign_in_attempt(s: Session, key: str, now: float, policy: FailureThrottle) -> float | None:
    """Counts a sign-in attempt at ``now``, before its password is checked (``policy.attempt``):
    returns the wait when the key is locked out (nothing recorded), else None, with the attempt
    recorded as a failure (a success then clears them: ``clear_sign_in_failures``).

    Read and written under the row lock (``_lock_sign_in_failures``) and committed before the
    password check, which must not run in this transaction (it is slow, and the lock would
    serialise every attempt on the key): attempts arriving at once, through any number of lobbies,
    each see the ones before them, so at most ``policy.limit`` of them are let through."""
    row = _lock_sign_in_failures(s, key, now)
    wait, times = policy.attempt(json.loads(row.failures), now)
    if times is not None:
        _store_failures(s, row, times, policy)
    return wait


def add_sign_in_failure(s: Session, key: str, now: float, policy: FailureThrottle) -> float | None:
    """Records a failed sign-in at ``now`` unconditionally (under the row lock, as
    ``count_sign_in_attempt``); returns the wait now in force (``policy.retry_after``). SignIn
    itself counts attempts in advance with ``count_sign_in_attempt``."""
    row = _lock_sign_in_failures(s, key, now)
    times = policy.fail(json.loads(row.failures), now)
    _store_failures(s, row, times, policy)
    return policy.retry_after(times, now)


def clear_sign_in_failures(s: Session, key: str) -> None:
    """Forgets a key's failures (after a successful sign-in)."""
    s.exec(delete(SignInFailureRow).where(SignInFailureRow.key == _failure_key(key)))  # type: ignore[call-overload]


def delete_expired_sign_in_failures(s: Session, now: float, limit: int = 1000) -> int:
    """Deletes up to ``limit`` throttle rows whose every failure has left the window (they
    throttle nothing); returns how many. Picked ``FOR UPDATE SKIP LOCKED`` on PostgreSQL, as
    ``delete_old_tickets``: lobbies cleaning up at once delete disjoint rows, and a row being
    updated by a sign-in is left alone."""
    return delete_unlocked(s, SignInFailureRow.key, limit, SignInFailureRow.expires_at <= now)
