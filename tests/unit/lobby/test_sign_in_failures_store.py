"""The sign-in failure throttle's rows on SQLite: record, refuse, forget, clean up."""

from __future__ import annotations

import pytest
from sqlmodel import select

from wordarena.services.common.db import Database
from wordarena.services.lobby import store
from wordarena.services.lobby.models import SignInFailureRow
from wordarena.services.lobby.passwords import FailureThrottle

T0 = 1_000_000.0
#: Three free failures, then a wait of 8 s after the latest (no doubling: base = max).
POLICY = FailureThrottle(limit=3, window_s=10.0, base_s=8.0, max_s=8.0)


def rows(db: Database) -> list[SignInFailureRow]:
    return db.run_sync(lambda s: list(s.exec(select(SignInFailureRow).order_by(SignInFailureRow.key))))


def test_failures_add_up_to_the_lockout_and_a_success_forgets_them(db: Database) -> None:
    assert db.run_sync(store.sign_in_failures, "alice") == []
    assert db.run_sync(store.add_sign_in_failure, "alice", T0, POLICY) is None
    assert db.run_sync(store.add_sign_in_failure, "alice", T0 + 1, POLICY) is None
    assert db.run_sync(store.add_sign_in_failure, "bob", T0 + 1, POLICY) is None  # another key
    wait = db.run_sync(store.add_sign_in_failure, "alice", T0 + 2, POLICY)
    assert wait == pytest.approx(8.0)  # held back for the backoff after the latest failure
    failures = db.run_sync(store.sign_in_failures, "alice")
    assert failures == [T0, T0 + 1, T0 + 2]
    assert POLICY.retry_after(failures, T0 + 9.5) == pytest.approx(0.5)
    assert POLICY.retry_after(failures, T0 + 10) is None
    # one row per key; the name itself is not stored, only its hash
    stored = rows(db)
    assert len(stored) == 2
    assert all(len(r.key) == 64 and r.key not in ("alice", "bob") for r in stored)
    alice = next(r for r in stored if r.failures.startswith(f"[{T0}"))
    assert alice.expires_at == T0 + 2 + 10.0
    # a failure after the window: only what the policy needs is kept
    assert db.run_sync(store.add_sign_in_failure, "alice", T0 + 11.5, POLICY) is None
    assert db.run_sync(store.sign_in_failures, "alice") == [T0 + 2, T0 + 11.5]
    db.run_sync(store.clear_sign_in_failures, "alice")
    assert db.run_sync(store.sign_in_failures, "alice") == []
    assert db.run_sync(store.sign_in_failures, "bob") == [T0 + 1]
    db.run_sync(store.clear_sign_in_failures, "nobody")  # nothing to forget: no error


def test_attempts_are_counted_before_the_check_and_refused_at_the_limit(db: Database) -> None:
    for i in range(3):  # admitted: each recorded as a failure in advance
        assert db.run_sync(store.count_sign_in_attempt, "dave", T0 + i, POLICY) is None
    assert db.run_sync(store.sign_in_failures, "dave") == [T0, T0 + 1, T0 + 2]
    # locked out: refused with the wait, and the refusal is not recorded
    assert db.run_sync(store.count_sign_in_attempt, "dave", T0 + 3, POLICY) == pytest.approx(7.0)
    assert db.run_sync(store.count_sign_in_attempt, "Dave", T0 + 3, POLICY) is None  # another key
    assert db.run_sync(store.sign_in_failures, "dave") == [T0, T0 + 1, T0 + 2]
    assert next(r for r in rows(db) if r.failures.startswith(f"[{T0},")).expires_at == T0 + 2 + 10.0
    # the oldest leaves the window: one more attempt is let in (and counted)
    assert db.run_sync(store.count_sign_in_attempt, "dave", T0 + 10, POLICY) is None
    assert db.run_sync(store.sign_in_failures, "dave") == [T0 + 1, T0 + 2, T0 + 10]
    # a success clears them, the attempt's own with them
    db.run_sync(store.clear_sign_in_failures, "dave")
    assert db.run_sync(store.count_sign_in_attempt, "dave", T0 + 11, POLICY) is None
    assert db.run_sync(store.sign_in_failures, "dave") == [T0 + 11]


def test_never_more_than_the_policy_keeps_is_stored(db: Database) -> None:
    for i in range(10):
        db.run_sync(store.add_sign_in_failure, "carol", T0 + i * 0.1, POLICY)
    assert POLICY.keep == 4
    newest = [T0 + 0.6, T0 + 0.7, T0 + 0.8, T0 + 0.9]
    assert db.run_sync(store.sign_in_failures, "carol") == pytest.approx(newest)


def test_housekeeping_deletes_expired_rows_only(db: Database) -> None:
    for i in range(5):
        db.run_sync(store.add_sign_in_failure, f"old{i}", T0, POLICY)  # expires at T0 + 10
    db.run_sync(store.add_sign_in_failure, "fresh", T0 + 5, POLICY)  # expires at T0 + 15
    assert db.run_sync(store.delete_expired_sign_in_failures, T0 + 9.9, 1000) == 0
    assert db.run_sync(store.delete_expired_sign_in_failures, T0 + 10, 3) == 3  # in batches
    assert db.run_sync(store.delete_expired_sign_in_failures, T0 + 10, 3) == 2
    assert db.run_sync(store.delete_expired_sign_in_failures, T0 + 10, 3) == 0
    assert db.run_sync(store.sign_in_failures, "fresh") == [T0 + 5]
    assert db.run_sync(store.sign_in_failures, "old0") == []
    # a key whose row was deleted starts afresh
    assert db.run_sync(store.add_sign_in_failure, "old0", T0 + 20, POLICY) is None
    assert db.run_sync(store.sign_in_failures, "old0") == [T0 + 20]
