"""The conformance suite's fixture: one world (a real lobby and match server) per test module."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from world import World, start_world


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    w = await start_world(tmp_path_factory.mktemp("conformance"))
    try:
        yield w
    finally:
        await w.close()
