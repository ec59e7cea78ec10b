"""A match server frozen in the middle of a transaction (SIGSTOP, a VM stall, a cut link) holds
the row locks of what it was writing. On PostgreSQL the match server's connections carry
``idle_in_transaction_session_timeout`` (a third of the lease), so the database ends such a
transaction and the others can take its matches over once their leases lapse, instead of waiting
for the frozen server to come back (found by tests/e2e/test_cluster_failover.py)."""

from __future__ import annotations

import asyncio
import time

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from wordarena.services.match.models import MatchRow
from wordarena.services.match.store import MatchStore, StoredEvent, open_database

pytestmark = pytest.mark.postgres

LEASE = 1.5
A, B = "a|10.0.0.1:1", "b|10.0.0.2:1"


async def test_a_frozen_owner_does_not_block_the_take_over(postgres_database: str) -> None:
    db_a, db_b = open_database(postgres_database, LEASE), open_database(postgres_database, LEASE)
    store_a, store_b = MatchStore(db_a), MatchStore(db_b)
    store_a.migrate()
    await store_a.create(MatchRow(id="m1", ruleset_id="classic", seed="1", seats="[]", options="{}",
                                  create_request=b"", owner=A, lease_until=time.time() + LEASE, last_seq=1),
                         [StoredEvent(1, time.time(), "match-started", {})])
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
