"""docs/rules.md and docs/warofwords.md cite only what the repository holds (issue 41, item 19):
every path they name in backticks — a folder (``engine/``) or a file (``docs/cli.md``,
``tests/unit/engine/data/reference_rulesets.json``) — exists in the checkout, so a reader of the
repository can open each one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
#: `a/b/`, `a/b.py`, `a/b/c.json`: a relative path with a slash, as the docs write them
PATH = re.compile(r"`((?:[\w.-]+/)+[\w.-]*)`")


@pytest.mark.parametrize("doc", ["docs/rules.md", "docs/warofwords.md"])
def test_every_path_the_rules_cite_is_in_the_repository(doc: str) -> None:
    text = (ROOT / doc).read_text(encoding="utf-8")
    cited = {m.group(1).split("::")[0] for m in PATH.finditer(text)}
    cited = {c for c in cited if not c.startswith(("http", "/"))}
    assert cited, f"{doc} cites no path"
    # before: shared/rules/ and shared/reference/rulesets.json, outside the repository
    missing = sorted(c for c in cited if not (ROOT / c).exists())
    assert not missing, f"{doc} cites paths the repository does not hold: {missing}"
