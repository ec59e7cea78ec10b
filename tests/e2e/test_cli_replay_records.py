"""``wordarena replay FILE.gcg`` as a user runs it, a separate process with its exit code: the
record's own ``#ruleset`` pragma says what to replay (as ``gcg check`` reads it), and a record the
engine disagrees with exits 1.

The records are written by ``wordarena selfplay --save`` (another process); the expected totals are
read straight from each file's move lines.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pexpect
import pytest
from e2e_helpers import ROOT, WORDARENA
from terminal import Terminal


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, WORDARENA_CONFIG=str(tmp_path / "c.json"), COLUMNS="110")
    return subprocess.run([*WORDARENA, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)


def saved_record(tmp_path: Path, ruleset: str) -> Path:
    folder = tmp_path / ruleset
    res = run(tmp_path, "selfplay", "--ruleset", ruleset, "--levels", "1,1", "--games", "1",
              "--seed", "3", "--save", str(folder))
    assert res.returncode == 0, res.stderr
    [record] = folder.iterdir()
    return record


def final_totals(record: Path) -> dict[str, int]:
    totals: dict[str, int] = {}
    for line in record.read_text().splitlines():
        if line.startswith(">"):
            totals[line[1:line.index(":")]] = int(line.split()[-1])
    return totals


@pytest.mark.parametrize(("ruleset", "title"), [("classic", "Words With Friends"),
                                                ("warofwords", "War of Words")])
def test_a_record_replays_with_the_ruleset_its_pragma_names(tmp_path: Path, ruleset: str,
                                                            title: str) -> None:
    record = saved_record(tmp_path, ruleset)
    assert f"#ruleset {ruleset}/en" in record.read_text()
    res = run(tmp_path, "replay", "--all", str(record))
    # Before: replayed as Scrabble whatever the record said, exit 0 with score mismatches
    # (classic) or dozens of `!` lines (War of Words).
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr
    lines = res.stdout.splitlines()
    assert title in lines[0]
    assert not [line for line in lines if line.startswith("!")]
    last_totals = "   ".join(f"{nick} {total}" for nick, total in final_totals(record).items())
    assert last_totals in res.stdout
    assert lines[-1] == f"every move agrees with the engine ({ruleset}/en)"


def test_a_replay_that_finds_a_mismatch_exits_1(tmp_path: Path) -> None:
    record = saved_record(tmp_path, "classic")
    lines = record.read_text().splitlines()
    n = next(i for i, line in enumerate(lines) if line.startswith(">"))
    head, score, total = lines[n].rsplit(" ", 2)
    wrong = int(score) + 5
    lines[n] = f"{head} {'+' if wrong >= 0 else ''}{wrong} {int(total) + 5}"
    bad = tmp_path / "bad.gcg"
    bad.write_text("\n".join(lines) + "\n")
    res = run(tmp_path, "replay", "--all", str(bad))
    assert res.returncode == 1, res.stdout[-3000:]
    assert f"the record says {wrong}" in res.stdout
    assert "disagreement(s) with the engine (classic/en)" in res.stdout.splitlines()[-1]
    # Stepped through with the keys, leaving with q: the same verdict in the exit status.
    term = Terminal(dict(os.environ, WORDARENA_CONFIG=str(tmp_path / "c.json"),
                         TERM="xterm-256color"), "replay", str(bad))
    try:
        term.wait_for(rf"the record says {wrong}")
        term.type("q")
        term.child.expect(pexpect.EOF, timeout=20)
    finally:
        assert term.close() == 1
