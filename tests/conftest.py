"""Shared fixtures.

PostgreSQL: ``WORDARENA_TEST_POSTGRES_URL`` (default
``postgresql+psycopg://postgres@127.0.0.1:5432/postgres``), the one variable every test honours.
Tests that need it skip with a visible reason when no server is reachable — except when ``CI`` is
set, where they fail instead. Each test using ``database_url`` gets a fresh database: an SQLite
file, or a new PostgreSQL database created for it and dropped afterwards. PostgreSQL only where
the store is what a test proves (``@pytest.mark.database``: restarts on one store, servers
sharing it, races, leases, outages, migrations); every other test runs on SQLite, and on both
under ``--soak``.

No silent skips: under ``CI`` (set by .ci/run) a test that skips fails, unless its node id is on
``CI_SKIP_ALLOW_LIST`` below with the reason it may skip there. Outside CI, skips stay skips and
``scripts/test`` prints their reasons (``-rs``).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

# gRPC's fork support restarts its poller thread in a forked child; a child that closes its
# inherited descriptors before exec (pexpect's terminals, subprocess.Popen) then dies on
# epoll_wait EBADF while a gRPC channel is active in the test process (grpc/grpc#43055: a CLI
# under test printed only that error and never started). The tests fork only to exec: off.
# Set before any test module imports grpc; xdist's workers inherit it.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

pytest_plugins = ("pytester",)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--soak", action="store_true", default=False,
                     help="run every oracle and soak sweep in full (tests/soak.py); by default each "
                          "runs a seeded sample")


def pytest_configure(config: pytest.Config) -> None:
    """``--soak`` reaches the sweeps through ``soak.FULL``, and the processes they start through
    ``WORDARENA_TEST_SOAK``."""
    import soak

    soak.FULL = bool(config.getoption("--soak")) or soak.FULL
    if soak.FULL:
        os.environ["WORDARENA_TEST_SOAK"] = "1"
    config.addinivalue_line("markers", "soak: an oracle or soak sweep: a seeded sample by default, "
                                       "in full under --soak (tests/soak.py)")
    config.addinivalue_line("markers", "database: what the test proves is the store's (restarts on it, "
                                       "servers sharing it, races, leases, outages, migrations): "
                                       "database_url runs it on SQLite and on PostgreSQL")
    config.addinivalue_line("markers", "alone: asserts a duration that another test's CPU load could "
                                       "eat: scripts/test runs these after the parallel part, "
                                       "one at a time (docs/testing.md)")


def _parametrizes(marker: pytest.Mark, name: str) -> bool:
    names = marker.args[0] if marker.args else marker.kwargs.get("argnames", "")
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",")]
    return name in names


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``database_url``: SQLite, and PostgreSQL as well where the store is what the test proves
    (``@pytest.mark.database``) and, under ``--soak``, everywhere. A module or test may still
    choose its own (``pytest.mark.parametrize("database_url", [...], indirect=True)``)."""
    if "database_url" not in metafunc.fixturenames:
        return
    if any(_parametrizes(m, "database_url") for m in metafunc.definition.iter_markers("parametrize")):
        return
    import soak

    both = soak.FULL or metafunc.definition.get_closest_marker("database") is not None
    kinds = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)] if both else ["sqlite"]
    metafunc.parametrize("database_url", kinds, indirect=True)

DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"

# Tests that may skip under CI: node id (or a prefix of it) -> why. Keep it short; every entry
# needs a reason a reviewer accepts. Empty: in CI every test runs.
CI_SKIP_ALLOW_LIST: dict[str, str] = {}


def ci_skip_allowed(nodeid: str) -> str | None:
    """The allow-list's reason for ``nodeid`` to skip under CI, else None."""
    return next((why for prefix, why in CI_SKIP_ALLOW_LIST.items() if nodeid.startswith(prefix)), None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Under CI, a skip (in set-up or in the test) that is not allow-listed is a failure."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if not os.environ.get("CI") or not report.skipped or hasattr(report, "wasxfail"):
        return
    if ci_skip_allowed(item.nodeid) is not None:
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = (f"{item.nodeid} skipped under CI ({reason}); a skip in CI must be on "
                       "CI_SKIP_ALLOW_LIST in tests/conftest.py with its reason")


def postgres_admin_url() -> str:
    """The PostgreSQL URL tests may use to create databases."""
    return os.environ.get("WORDARENA_TEST_POSTGRES_URL", DEFAULT_PG)


def _psycopg_dsn(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


_pg_state: dict[str, str | None] = {}


def postgres_unreachable() -> str | None:
    """None when PostgreSQL answers, else why not (cached per session)."""
    if "why" not in _pg_state:
        try:
            import psycopg

            with psycopg.connect(_psycopg_dsn(postgres_admin_url()), connect_timeout=3) as conn:
                conn.execute("SELECT 1")
            _pg_state["why"] = None
        except Exception as exc:  # any failure means: not usable
            _pg_state["why"] = f"PostgreSQL not reachable at {postgres_admin_url()}: {exc}"
    return _pg_state["why"]


def require_postgres() -> None:
    """Skip (or, under CI, fail) when PostgreSQL is not reachable."""
    why = postgres_unreachable()
    if why is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI requires PostgreSQL: {why}")
    pytest.skip(why)


@pytest.fixture
def postgres_database() -> Iterator[str]:
    """A fresh, empty PostgreSQL database URL (dropped afterwards)."""
    require_postgres()
    import psycopg
    from sqlalchemy.engine import make_url

    admin = postgres_admin_url()
    name = f"wa_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(_psycopg_dsn(admin), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = make_url(admin).set(database=name)
    if url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with psycopg.connect(_psycopg_dsn(admin), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class DatabaseOutage:
    """Closes a PostgreSQL test database to new connections and ends every open one (as a restart
    or a cut link would); ``end`` opens it again."""

    def __init__(self, url: str) -> None:
        from sqlalchemy.engine import make_url

        self.name = str(make_url(url).database)

    def _run(self, *sql: str) -> None:
        import psycopg

        with psycopg.connect(_psycopg_dsn(postgres_admin_url()), autocommit=True) as conn:
            for s in sql:
                conn.execute(s)

    def start(self) -> None:
        self._run(f'ALTER DATABASE "{self.name}" ALLOW_CONNECTIONS false',
                  f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{self.name}'")

    def end(self) -> None:
        self._run(f'ALTER DATABASE "{self.name}" ALLOW_CONNECTIONS true')


@pytest.fixture
def database_outage(postgres_database: str) -> Iterator[DatabaseOutage]:
    """A ``DatabaseOutage`` of ``postgres_database``, always ended before the database is dropped."""
    outage = DatabaseOutage(postgres_database)
    try:
        yield outage
    finally:
        outage.end()


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database: an SQLite file; for a test marked ``database`` (or under ``--soak``) a
    PostgreSQL database too (``pytest_generate_tests``)."""
    if getattr(request, "param", "sqlite") == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.db'}"
    else:
        yield request.getfixturevalue("postgres_database")
