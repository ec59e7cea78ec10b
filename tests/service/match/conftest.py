"""Fixtures of the match server tests (see ``match_harness``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from match_harness import Harness


@pytest.fixture
async def harness(database_url: str, tmp_path: Path) -> AsyncIterator[Harness]:
    h = Harness(database_url, tmp_path)
    try:
        yield h
    finally:
        await h.close()
