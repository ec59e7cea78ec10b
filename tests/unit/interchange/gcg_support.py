"""Shared bits of the interchange tests: where the reference records are, and loading them."""

from __future__ import annotations

from pathlib import Path

from wordarena.engine.interchange.gcg import GameRecord, parse_gcg

GCG_DIR = Path(__file__).parent / "gcg"
RECORDS = sorted(p.name for p in GCG_DIR.glob("*.gcg"))
POLISH = "polish_endgame.gcg"
ENGLISH = [name for name in RECORDS if name != POLISH]


def load(name: str) -> GameRecord:
    return parse_gcg((GCG_DIR / name).read_bytes())


def gcg(*lines: str) -> str:
    """A small record: two players ``a`` and ``b`` and the given lines."""
    return "\n".join(["#player1 a Alice A", "#player2 b Bob B", *lines]) + "\n"
