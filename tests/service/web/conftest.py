"""Fixtures of the gRPC-Web tests: the lobby's and the match server's own harnesses (their
folders put on the import path), and an HTTP client."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "match"), str(HERE.parent / "lobby")]

from lobby_harness import env  # noqa: E402, F401
from match_harness import Harness  # noqa: E402


@pytest.fixture
async def harness(database_url: str, tmp_path: Path) -> AsyncIterator[Harness]:
    h = Harness(database_url, tmp_path)
    try:
        yield h
    finally:
        await h.close()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=30) as client:
        yield client
