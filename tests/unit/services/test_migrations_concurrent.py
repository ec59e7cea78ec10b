"""Migrations at start-up do not race: several processes upgrading a fresh PostgreSQL database at
once all succeed (an advisory lock serialises them), for both services' schemas. The processes
are the real entry points in their init-container mode (``--migrate-only``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from wordarena.services.common.db import Database

ROOT = Path(__file__).resolve().parents[3]


def _migrate_processes(url: str, data_dir: Path,
                       services: list[str]) -> list[subprocess.CompletedProcess[str]]:
    env = os.environ | {"WORDARENA_DATABASE_URL": url, "WORDARENA_DATA_DIR": str(data_dir),
                        "WORDARENA_LOG_FORMAT": "json", "WORDARENA_LOG_LEVEL": "info"}
    procs = [subprocess.Popen([sys.executable, "-m", f"wordarena.services.{svc}.main", "--migrate-only"],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for svc in services]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        out.append(subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr))
    return out


@pytest.mark.postgres
def test_concurrent_upgrades_on_a_fresh_postgres_database(postgres_database: str, tmp_path: Path) -> None:
    results = _migrate_processes(postgres_database, tmp_path, ["match", "lobby"] * 4)
    for r in results:
        assert r.returncode == 0, r.stderr[-3000:]
        assert "schema at head" in r.stderr
    db = Database(postgres_database)
    try:
        tables = set(inspect(db.engine).get_table_names())
        assert {"alembic_version_match", "alembic_version_lobby", "lobby_match_servers"} <= tables
        with db.engine.connect() as conn:
            for vt in ("alembic_version_match", "alembic_version_lobby"):
                assert conn.execute(text(f"SELECT count(*) FROM {vt}")).scalar() == 1
    finally:
        db.close()


def test_migrate_only_on_sqlite_then_no_migrate(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'both.db'}"
    for r in _migrate_processes(url, tmp_path, ["match"]) + _migrate_processes(url, tmp_path, ["lobby"]):
        assert r.returncode == 0, r.stderr[-3000:]
    db = Database(url)
    try:
        assert {"alembic_version_match", "alembic_version_lobby"} <= set(inspect(db.engine).get_table_names())
    finally:
        db.close()
