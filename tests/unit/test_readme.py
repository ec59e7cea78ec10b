"""The README is what a newcomer reads first: at most 10 KB, and it gives the two commands (the
one that sets up and runs wordarena, the one that sets up and runs every test) before anything
else. The figures and history live in docs/performance.md and bench/results/."""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_stays_under_ten_kilobytes() -> None:
    size = len(README.read_bytes())
    assert size <= 10_000, f"README.md is {size} bytes: move detail to docs/ (figures: docs/performance.md)"


def test_the_readme_opens_with_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    first_section = text.split("\n## ", 1)[0]
    assert "scripts/run\n" in first_section and "scripts/test" in first_section
