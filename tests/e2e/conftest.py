"""End-to-end fixtures: a real ``wordarena serve`` on free ports with a temporary data dir."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_helpers import Served
from serve_process import serve


def serving(data: Path, *extra: str) -> Iterator[Served]:
    """A ``wordarena serve`` on free ports in ``data`` (``extra``: more serve flags), stopped
    (and checked to stop cleanly) afterwards."""
    with serve(data, *extra) as running:
        yield Served(running.lobby, running.match, data, running.proc)
    assert running.returncode == 0, f"serve did not stop cleanly: {running.returncode}"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from serving(tmp_path_factory.mktemp("serve"))
