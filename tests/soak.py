"""Sample or soak: how much of a long oracle or soak sweep a run covers.

By default every sweep (the generator against the brute force, the native core against the
Python generator, War of Words self-play, the property and record sweeps, the cluster's
fail-over load) runs a short seeded sample that still catches a planted bug; ``scripts/test
--soak`` (pytest ``--soak``, tests/conftest.py) runs each in full. The full run is made before
each release note (docs/testing.md, "Sample and soak").

``FULL`` is set by tests/conftest.py from the option (and passed to the processes a test starts
as ``WORDARENA_TEST_SOAK=1``).
"""

from __future__ import annotations

import os
from typing import TypeVar

T = TypeVar("T")

#: True under ``--soak`` (set by tests/conftest.py's ``pytest_configure``).
FULL: bool = os.environ.get("WORDARENA_TEST_SOAK") == "1"


def pick(full: T, sample: T) -> T:
    """``full`` under ``--soak``, else ``sample`` (a count, a range of seeds, a list)."""
    return full if FULL else sample

