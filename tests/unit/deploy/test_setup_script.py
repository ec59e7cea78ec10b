"""scripts/setup when the system word lists cannot be installed (a held package-manager lock, no
network): playing needs none of them, so `scripts/run` starts anyway and says what is missing;
the test setup (`--with-postgres`, used by scripts/test) needs them all and stops."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _setup_with_failing_apt(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    fake = tmp_path / "bin"
    fake.mkdir()
    # dpkg says no package is installed; apt-get fails as with a held lock.
    for name, body in (("dpkg", "exit 1"), ("apt-get", "echo 'E: Could not get lock' >&2; exit 100"),
                       ("sudo", 'exec "$@"')):
        (fake / name).write_text(f"#!/bin/sh\n{body}\n")
        (fake / name).chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}")
    return subprocess.run([str(ROOT / "scripts" / "setup"), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_play_setup_goes_on_without_the_word_lists(tmp_path: Path) -> None:
    res = _setup_with_failing_apt(tmp_path)
    assert res.returncode == 0, res.stderr
    assert "could not install" in res.stderr and "wbritish" in res.stderr
    assert "English works" in res.stderr


def test_test_setup_stops_without_the_word_lists(tmp_path: Path) -> None:
    res = _setup_with_failing_apt(tmp_path, "--with-postgres")
    assert res.returncode == 1
    assert "the tests need them" in res.stderr
