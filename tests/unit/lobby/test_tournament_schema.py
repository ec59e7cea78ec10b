"""The tournament tables made by migration 0006 are the tables the models describe (columns,
types, nullability, indexes), so the store reads and writes what the database holds."""

from __future__ import annotations

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import wordarena.services.lobby.models  # noqa: F401  (the models' tables)
from wordarena.services.common.db import Database
from wordarena.services.lobby import store


def test_the_tournament_migration_matches_the_models(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'lobby.db'}")
    try:
        store.migrate(db)
        with db.engine.connect() as conn:
            diffs = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    finally:
        db.close()
    flat = [d for group in diffs for d in (group if isinstance(group, list) else [group])]
    ours = [d for d in flat if "lobby_tournament" in repr(d)]
    # Text columns: the migration says TEXT, SQLModel's str without a length says AutoString
    # (the same for every JSON column of the lobby); anything else is a real difference.
    real = [
        d
        for d in ours
        if not (d[0] == "modify_type" and type(d[6]).__name__ == "AutoString" and str(d[5]) == "TEXT")
    ]
    assert not real, real
    assert any(d[0] == "modify_type" for d in ours)  # the comparison did look at our tables
