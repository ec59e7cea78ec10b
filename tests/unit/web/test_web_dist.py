"""The web client ships built: clients/web/dist/ is committed and packaged (no Node at run time).
These tests fail when dist/ is stale against its sources (clients/web/src, static/, build.mjs,
the lock file, the protos it is generated from): they rebuild it into a temporary folder with the
same build (``node build.mjs --out DIR``, deterministic) and compare the bytes."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
WEB = ROOT / "clients" / "web"
DIST = WEB / "dist"


def _build_tools() -> None:
    """Skip (under CI: fail, tests/conftest.py) without Node.js or the build's npm packages,
    which scripts/setup installs (``npm ci`` in clients/web)."""
    if shutil.which("node") is None:
        pytest.skip("node not found: scripts/setup needs Node.js to install the web build tools")
    if not (WEB / "node_modules" / "esbuild").is_dir():
        pytest.skip("clients/web/node_modules missing: run scripts/setup (npm ci in clients/web)")


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_dist_is_what_the_sources_build(tmp_path: Path) -> None:
    _build_tools()
    out = tmp_path / "dist"
    subprocess.run(["node", "build.mjs", "--out", str(out)], cwd=WEB, check=True, capture_output=True,
                   timeout=300, env=dict(os.environ))
    built, shipped = _files(out), _files(DIST)
    assert sorted(built) == sorted(shipped), "dist/ holds other files than the build makes"
    stale = [name for name in built if built[name] != shipped[name]]
    assert not stale, (f"clients/web/dist is stale ({stale}): run `npm run build` in clients/web "
                       "and commit dist/")


def test_the_page_loads_the_bundle_and_the_bundle_is_small() -> None:
    html = (DIST / "index.html").read_text(encoding="utf-8")
    assert 'src="app.js?v=' in html and 'href="style.css?v=' in html
    js = (DIST / "app.js").read_bytes()
    assert len(gzip.compress(js, 9)) <= 300 * 1024, "the gzipped JavaScript is over 300 KB"
    assert b"innerHTML" not in js, "text goes in as text, never as markup"


def test_the_sources_never_write_markup() -> None:
    """Names and chat are shown with textContent / text nodes: no source sets innerHTML."""
    markup = ("innerHTML", "outerHTML", "insertAdjacentHTML")
    offenders = [p.name for p in (WEB / "src").glob("*.ts")
                 if any(w in p.read_text(encoding="utf-8") for w in markup)]
    assert not offenders, offenders
