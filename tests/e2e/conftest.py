"""End-to-end fixtures: a real ``wordarena serve`` on free ports with a temporary data dir."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from e2e_helpers import Served, serving


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from serving(tmp_path_factory.mktemp("serve"))
