"""Fixtures the unit tests share."""

from __future__ import annotations

import pytest

from wordarena.engine.lexicon import Lexicon, load_lexicon


@pytest.fixture(scope="session")
def lexicon() -> Lexicon:
    """The English lexicon (``load_lexicon("en")``: compiled once, the same object after)."""
    return load_lexicon("en")
