"""The table cache against reads that arrive late: a NOTIFY's refresh or a resync reads a table
from the database in a worker thread, and the answer can reach the cache after the cache itself
moved on (closed the table, forgot it)."""

from __future__ import annotations

import copy
import time

from wordarena.services.common.db import Database
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.lobby.settings import validate_settings
from wordarena.services.lobby.table_cache import ChangeKind, TableCache, TableQuery
from wordarena.services.lobby.tables import Occupant, Table, TableStatus

EVERY_STATUS = TableQuery(statuses=frozenset(TableStatus))


def _cache(db: Database, **options: float) -> TableCache:
    return TableCache(db, LobbyOptions(**options), on_ticket=lambda _: None)  # type: ignore[arg-type]


def _old_table() -> Table:
    """An open table created two hours ago: past the default hour's expiry."""
    cfg = validate_settings(ruleset_id="classic")
    return Table.open("t1", cfg, Occupant("p1", "Player1"), None, time.time() - 7200)


async def test_a_read_begun_before_a_table_was_forgotten_does_not_bring_it_back(db: Database) -> None:
    cache = _cache(db)
    opened = _old_table()
    read_while_open = copy.deepcopy(opened)  # what a refresh started now will answer
    assert cache.apply(opened)
    watcher, initial = cache.watch(EVERY_STATUS, "p9")
    assert [t.table_id for t in initial] == ["t1"]
    closed = copy.deepcopy(opened)
    closed.close()
    assert cache.apply(closed)
    cache.forget("t1")  # expired: long closed
    assert not cache.holds("t1")

    # The refresh's answer, the table still open, arrives after the forget: it is older than what
    # the cache forgot, so nothing comes back and the watcher hears nothing more.
    assert not cache.apply(read_while_open)
    assert not cache.holds("t1")
    assert [t.table_id for t in cache.query(EVERY_STATUS, "p9")] == []
    told = [watcher.queue.get_nowait() for _ in range(watcher.queue.qsize())]
    assert [c.kind for c in told] == [ChangeKind.CLOSED]


async def test_the_note_of_a_forgotten_table_goes_after_the_resync_interval(db: Database) -> None:
    cache = _cache(db, resync_s=0.05)
    opened = _old_table()
    cache.apply(opened)
    opened.close()
    cache.apply(opened)
    cache.forget("t1")
    assert cache.forgotten("t1")
    cache.drop_old_forgotten()
    assert cache.forgotten("t1")  # still within the interval: a read may still be under way
    time.sleep(0.06)
    cache.drop_old_forgotten()
    assert not cache.forgotten("t1")  # nothing of it is left; any read of it has long ended
    assert not cache.holds("t1")
