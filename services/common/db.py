"""Database helpers: SQLModel / SQLAlchemy engines (SQLite in WAL mode, or PostgreSQL), sessions,
Alembic migrations, and ``Database`` which runs blocking ORM work off the event loop.

SQLite: the file's directory is created; ``journal_mode=WAL``, ``busy_timeout`` and
``synchronous`` (``FULL`` by default, so that a committed transaction survives a power loss; env
``WORDARENA_SQLITE_SYNCHRONOUS`` may lower it to ``NORMAL``, which still survives a process
crash). All work for an SQLite database runs on one thread, serialising writers.
PostgreSQL: a small connection pool (``pool_pre_ping``) and as many worker threads.

Migrations (``run_migrations``) run in one transaction; on PostgreSQL that transaction first takes
the advisory lock ``MIGRATION_LOCK_KEY`` (``pg_advisory_xact_lock``), so processes that start
together on a fresh database upgrade one after the other (the later ones find the schema at head
and do nothing) instead of racing to create the same tables. On SQLite the database's own write
lock serialises them; no advisory lock is needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Generic, TypeVar

from sqlalchemy import event, text
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

T = TypeVar("T")
ItemT = TypeVar("ItemT")

#: The PostgreSQL advisory lock (a signed 64-bit key) held while a process upgrades the schema:
#: the first 8 bytes of SHA-256("wordarena-migrations"), shared by every service.
MIGRATION_LOCK_KEY = -7399183033872013126


def is_sqlite(url: str) -> bool:
    """True for an ``sqlite://`` URL."""
    return make_url(url).get_backend_name() == "sqlite"


def make_engine(url: str, *, pool_size: int = 8, echo: bool = False,
                idle_in_transaction_s: float | None = None) -> Engine:
    """An engine for ``url`` configured as described in the module doc. On PostgreSQL,
    ``idle_in_transaction_s`` sets ``idle_in_transaction_session_timeout`` on every connection: a
    transaction left open that long by a frozen process is ended by the database, and its row
    locks released."""
    u = make_url(url)
    if u.get_backend_name() == "sqlite":
        if u.database and u.database != ":memory:":
            Path(u.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, echo=echo, connect_args={"check_same_thread": False, "timeout": 30})
        sync = os.environ.get("WORDARENA_SQLITE_SYNCHRONOUS", "FULL").upper()
        if sync not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            sync = "FULL"

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:  # pragma: no cover - trivial
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA synchronous={sync}")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    if u.get_backend_name() == "postgresql" and u.drivername == "postgresql":
        url = str(u.set(drivername="postgresql+psycopg"))
    connect_args: dict[str, Any] = {}
    if idle_in_transaction_s:
        ms = max(int(idle_in_transaction_s * 1000), 1)
        connect_args["options"] = f"-c idle_in_transaction_session_timeout={ms}"
    return create_engine(url, echo=echo, pool_size=pool_size, max_overflow=pool_size,
                         pool_pre_ping=True, connect_args=connect_args)


@contextlib.contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """A session committed on success and rolled back on error."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


def run_migrations(engine: Engine, script_location: str | Path, version_table: str,
                   revision: str = "head") -> None:
    """Upgrade the database to ``revision`` with the Alembic scripts at ``script_location``.

    Each service keeps its own ``version_table`` so that services can share one database. On
    PostgreSQL the upgrade holds the advisory lock ``MIGRATION_LOCK_KEY`` (see the module doc)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(script_location))
    cfg.set_main_option("version_table", version_table)
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            # The upgrade is one transaction with Python work (loading the scripts) between its
            # statements: a connection's idle-in-transaction timeout (the match server's third of
            # a lease, for frozen writers) must not end it on a busy machine.
            conn.execute(text("SET LOCAL idle_in_transaction_session_timeout = 0"))
            # Released when this transaction ends (commit or rollback, or the connection drops).
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
        cfg.attributes["connection"] = conn
        cfg.attributes["version_table"] = version_table
        command.upgrade(cfg, revision)


class Database:
    """An engine plus worker threads: ``await db.run(fn, *args)`` calls ``fn(session, *args)`` in a
    transaction off the event loop and returns its result."""

    def __init__(self, url: str, *, workers: int | None = None,
                 idle_in_transaction_s: float | None = None) -> None:
        self.url = url
        self.sqlite = is_sqlite(url)
        n = 1 if self.sqlite else (workers or 8)
        self.engine = make_engine(url, pool_size=n, idle_in_transaction_s=idle_in_transaction_s)
        self._executor = ThreadPoolExecutor(max_workers=n, thread_name_prefix="db")

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(session, *args)`` in a committed transaction on a worker thread."""
        def work() -> T:
            with session_scope(self.engine) as session:
                return fn(session, *args)

        return await asyncio.get_running_loop().run_in_executor(self._executor, work)

    async def run_raw(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on a worker thread (no session: ``fn`` manages its own transaction,
        e.g. ``with db.engine.begin() as conn``). On SQLite this is the one writer thread."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    def run_sync(self, fn: Callable[..., T], *args: Any) -> T:
        """The same, blocking (start-up code, tests)."""
        with session_scope(self.engine) as session:
            return fn(session, *args)

    def close(self) -> None:
        """Stop the workers and dispose of the connection pool."""
        self._executor.shutdown(wait=True)
        self.engine.dispose()


class GroupCommit(Generic[ItemT, T]):
    """Group commit of independent small writes: the items submitted while a transaction is
    being committed go to the database together in the next one (one ``COMMIT``, one ``fsync``
    on SQLite), and each caller is answered once the transaction holding its item is committed,
    so an answer still means durable. ``write(session, items)`` does the work of a group in one
    session and returns one outcome per item: a result, or an exception for that caller alone
    (it must then leave nothing of that item in the session). If the group's transaction fails,
    each item is retried in a transaction of its own, so one bad item never sinks the others."""

    def __init__(self, db: Database, write: Callable[[Session, Sequence[ItemT]], list[T | BaseException]],
                 max_group: int = 256) -> None:
        self.db = db
        self.write = write
        self.max_group = max_group
        self._pending: list[tuple[ItemT, asyncio.Future[T]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def submit(self, item: ItemT) -> T:
        """Write ``item`` with the next group; its outcome once that group is committed."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        # A caller cancelled meanwhile no longer awaits it: its outcome is marked retrieved.
        future.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._pending.append((item, future))
        if self._writer is None or self._writer.done():
            self._writer = loop.create_task(self._write_groups())
        # The write goes on if this caller is cancelled; its outcome is the commit's.
        return await asyncio.shield(future)

    async def _write_groups(self) -> None:
        while self._pending:
            group = self._pending[: self.max_group]
            del self._pending[: self.max_group]
            items = [item for item, _ in group]
            try:
                outcomes = await self.db.run(self.write, items)
            except Exception:
                outcomes = []
                for item in items:
                    try:
                        outcomes += await self.db.run(self.write, [item])
                    except Exception as exc:
                        outcomes.append(exc)
            for (_, future), outcome in zip(group, outcomes, strict=True):
                if future.done():
                    continue
                if isinstance(outcome, BaseException):
                    future.set_exception(outcome)
                else:
                    future.set_result(outcome)
