"""scripts/setup when the package manager is busy (issue 41, item 8): another process holds the
dpkg lock. Setup must say what it is waiting for and wait for that process, then install; it must
not fail at once with apt's raw ``E:`` lines. Hermetic: ``apt-get``, ``dpkg`` and ``sudo`` are
fakes first on PATH (nothing is installed), and the lock's holder is a process the test starts and
ends; the fake ``apt-get`` refuses with apt 2.x's own words while that process runs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FAKE_APT = """#!/bin/sh
echo "$*" >> "$FAKE_APT_CALLS"
if [ -d "/proc/$FAKE_APT_HOLDER" ]; then
  echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process $FAKE_APT_HOLDER (sleep)" >&2
  echo "N: Be aware that removing the lock file is not a solution and may break your system." >&2
  echo "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend)," \\
       "is another process using it?" >&2
  exit 100
fi
echo "Setting up $*"
"""


def _fakes(tmp_path: Path, holder: int) -> dict[str, str]:
    fake = tmp_path / "bin"
    fake.mkdir()
    # dpkg says no package is installed, so setup installs its word lists.
    for name, body in (("dpkg", "#!/bin/sh\nexit 1\n"), ("apt-get", FAKE_APT),
                       ("sudo", '#!/bin/sh\nexec "$@"\n')):
        (fake / name).write_text(body)
        (fake / name).chmod(0o755)
    return dict(os.environ, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}",
                FAKE_APT_CALLS=str(tmp_path / "calls"), FAKE_APT_HOLDER=str(holder))


def test_setup_waits_for_the_package_manager_lock_and_says_so(tmp_path: Path) -> None:
    holder = subprocess.Popen(["sleep", "600"])
    try:
        env = _fakes(tmp_path, holder.pid)
        setup = subprocess.Popen([str(ROOT / "scripts" / "setup")], cwd=ROOT, env=env, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert setup.stdout is not None
        seen = []
        for line in setup.stdout:  # the lines up to the one saying what setup waits for
            seen.append(line)
            if "is busy" in line:
                break
        # Before: "setup: could not install … English works …" at once, no wait.
        assert f"process {holder.pid} (sleep) holds its lock" in seen[-1], "".join(seen)
        assert "waiting for it to finish" in seen[-1]
        assert setup.poll() is None, "setup waits while the lock is held"
        holder.kill()
        holder.wait()  # reaped: the lock's holder is gone
        rest, _ = setup.communicate(timeout=600)
    finally:
        holder.kill()
        holder.wait()
    out = "".join(seen) + rest
    assert setup.returncode == 0, out
    calls = (tmp_path / "calls").read_text().splitlines()
    assert len(calls) >= 2 and all(c.startswith("install ") for c in calls), calls
    assert "setup: installed wspanish" in out
    assert "could not install" not in out
    assert not [line for line in out.splitlines() if line.startswith(("E:", "N:"))], out


def test_apt_install_gives_up_on_a_lock_held_too_long_in_words(tmp_path: Path) -> None:
    holder = subprocess.Popen(["sleep", "600"])
    try:
        env = dict(_fakes(tmp_path, holder.pid), WORDARENA_APT_LOCK_WAIT="2")
        res = subprocess.run([str(ROOT / "scripts" / "apt-install"), "wbritish"], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=120)
    finally:
        holder.kill()
        holder.wait()
    assert res.returncode == 1
    assert "waiting for it to finish (up to 2 s)" in res.stdout
    assert "still busy after" in res.stderr and f"process {holder.pid} (sleep)" in res.stderr
    assert not [line for line in (res.stdout + res.stderr).splitlines()
                if line.startswith(("E:", "N:"))], res


def test_apt_install_names_apts_reasons_when_it_fails_for_another_reason(tmp_path: Path) -> None:
    env = _fakes(tmp_path, 0)
    (tmp_path / "bin" / "apt-get").write_text(
        '#!/bin/sh\necho "$*" >> "$FAKE_APT_CALLS"\n'
        'case "$1" in update) exit 0;; esac\n'
        'echo "E: Unable to locate package wnothing" >&2\nexit 100\n')
    res = subprocess.run([str(ROOT / "scripts" / "apt-install"), "wnothing"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 1
    calls = (tmp_path / "calls").read_text().splitlines()
    assert [c.split()[0] for c in calls] == ["install", "update", "install"]
    assert "setup: updating the package lists" in res.stdout
    assert "apt-get: Unable to locate package wnothing" in res.stderr
    assert not res.stderr.startswith("E:")
