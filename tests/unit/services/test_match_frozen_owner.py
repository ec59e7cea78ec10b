"""A match server frozen in the middle of a transaction (SIGSTOP, a VM stall, a cut link) holds
the row locks of what it was writing. On PostgreSQL the match server's connections carry
``idle_in_transaction_session_timeout`` (a third of the lease), so the database ends such a
transaction and the others can take its matches over once their leases lapse, instead of waiting
for the frozen server to come back (found by tests/e2e/test_cluster_failover.py)."""

from __future__ import annotations

import asyncio
import time

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from wordarena.services.match.models import MatchRow
from wordarena.services.match.store import MatchStore, StorageError, StoredEvent, open_database

pytestmark = pytest.mark.postgres

LEASE = 1.5
A, B = "a|10.0.0.1:1", "b|10.0.0.2:1"


@pytest.mark.alone  # the take-over's time is asserted
async def test_a_frozen_owner_does_not_block_the_take_over(postgres_database: str) -> None:
    db_a, db_b = open_database(postgres_database, LEASE), open_database(postgres_database, LEASE)
    store_a, store_b = MatchStore(db_a), MatchStore(db_b)
    store_a.migrate()
    await store_a.create(
        MatchRow(
            id="m1",
            ruleset_id="classic",
            seed="1",
            seats="[]",
            options="{}",
            create_request=b"",
            owner=A,
            lease_until=time.time() + LEASE,
            last_seq=1,
        ),
        [StoredEvent(1, time.time(), "match-started", {})],
    )
    frozen = db_a.engine.connect()
    try:
        # A renews its lease and freezes before its COMMIT: the row stays locked.
        tx = frozen.begin()
        renew = text("UPDATE matches SET lease_until = :t WHERE owner = :o")
        frozen.execute(renew, {"t": time.time() + LEASE, "o": A})
        await asyncio.sleep(LEASE + 0.2)  # the lease it wrote has lapsed too
        started = time.monotonic()
        claimed = await asyncio.wait_for(store_b.claim("m1", B, LEASE), timeout=LEASE * 2)
        assert claimed and time.monotonic() - started < LEASE
        assert (await store_b.load("m1")).row.owner == B
        # A comes back: its transaction is gone; nothing it meant to write is written.
        with pytest.raises(DBAPIError):
            tx.commit()
    finally:
        frozen.invalidate()
        frozen.close()
        db_a.close()
        db_b.close()


async def test_an_append_the_database_fails_is_a_storage_error(postgres_database: str) -> None:
    # The database ends the writer's connection mid-commit (as when it ended a frozen server's
    # transaction): the append is a StorageError (stored or not is unknown: the manager forgets
    # its copy of the match and tells the client to retry), not a ConflictError or a crash.
    db = open_database(postgres_database, LEASE)
    store = MatchStore(db)
    store.migrate()
    await store.create(
        MatchRow(
            id="m2",
            ruleset_id="classic",
            seed="1",
            seats="[]",
            options="{}",
            create_request=b"",
            owner=A,
            lease_until=time.time() + 60,
            last_seq=1,
        ),
        [StoredEvent(1, time.time(), "match-started", {})],
    )
    blocker = db.engine.connect()
    watcher = psycopg.connect(
        postgres_database.replace("postgresql+psycopg://", "postgresql://", 1), autocommit=True
    )
    try:
        blocker.begin()
        blocker.execute(text("LOCK TABLE match_events IN ACCESS EXCLUSIVE MODE"))
        event = StoredEvent(2, time.time(), "turn-passed", {})
        append = asyncio.ensure_future(store.append("m2", A, 1, [event]))
        waiting = (
            "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        pids: list[int] = []
        for _ in range(100):
            pids = [row[0] for row in watcher.execute(waiting)]
            if pids:
                break
            await asyncio.sleep(0.05)
        assert pids, "the append never reached the database"
        watcher.execute("SELECT pg_terminate_backend(%s)", (pids[0],))
        with pytest.raises(StorageError):
            await append
    finally:
        watcher.close()
        blocker.rollback()
        blocker.close()
        db.close()


def test_a_slow_start_up_migration_is_not_ended_by_the_frozen_writer_timeout(
    postgres_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The schema upgrade is one transaction with Python work between its statements (Alembic
    # loading its scripts); on a busy machine that took longer than the third of a lease the
    # match server's connections allow a transaction to sit idle, and the server failed to start
    # (seen in CI: IdleInTransactionSessionTimeout inside migrate()). Here the pause is made
    # longer than that timeout on purpose, between the lock and the first migration.
    from alembic import command

    upgrade = command.upgrade

    def slow_upgrade(*args: object, **kwargs: object) -> None:
        time.sleep(LEASE / 3 + 0.5)
        upgrade(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(command, "upgrade", slow_upgrade)
    db = open_database(postgres_database, LEASE)
    try:
        MatchStore(db).migrate()
        with db.engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM matches")).scalar_one() == 0
    finally:
        db.close()
