"""Fixtures of the lobby's unit tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from wordarena.services.common.db import Database
from wordarena.services.lobby import store


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    """A migrated lobby database on SQLite."""
    d = Database(f"sqlite:///{tmp_path / 'lobby.db'}")
    store.migrate(d)
    yield d
    d.close()
