"""End-to-end helpers: the running servers, CLI commands as separate processes (each with its own
config file), and a move oracle."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from serve_process import ROOT as ROOT
from serve_process import WORDARENA as WORDARENA
from serve_process import free_port as free_port
from serve_process import serve


@dataclass
class Served:
    """A running ``wordarena serve``."""

    lobby: str
    match: str
    data_dir: Path
    proc: subprocess.Popen

    def env(self, config: Path) -> dict[str, str]:
        """Environment for a CLI process talking to this server with its own config file."""
        env = dict(os.environ)
        env.update(WORDARENA_LOBBY=self.lobby, WORDARENA_CONFIG=str(config),
                   COLUMNS="110", LINES="60", TERM="xterm-256color")
        return env


def serving(data: Path, *extra: str) -> Iterator[Served]:
    """A ``wordarena serve`` on free ports in ``data`` (``extra``: more serve flags), stopped
    (and checked to stop cleanly) afterwards."""
    with serve(data, *extra) as running:
        yield Served(running.lobby, running.match, data, running.proc)
    assert running.returncode == 0, f"serve did not stop cleanly: {running.returncode}"




def read_raw(child: Any, seconds: float = 0.2) -> str:
    """What a pexpect child printed within ``seconds``, raw (keeps its pty from filling up)."""
    import pexpect

    out = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            out.append(child.read_nonblocking(65536, timeout=0.05))
        except pexpect.TIMEOUT:
            continue
        except pexpect.EOF:
            break
    return "".join(out)


def cli(served: Served, config: Path, *args: str, check: bool = True,
        timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run ``wordarena ARGS`` as a separate process."""
    res = subprocess.run([*WORDARENA, *args], cwd=ROOT, env=served.env(config), capture_output=True,
                         text=True, timeout=timeout)
    if check and res.returncode != 0:
        raise AssertionError(f"wordarena {' '.join(args)} → {res.returncode}\n{res.stdout}\n{res.stderr}")
    return res


def cli_json(served: Served, config: Path, *args: str) -> dict:
    """Run a command with ``--json`` and parse its output."""
    return json.loads(cli(served, config, *args, "--json").stdout)


def legal_plays(view: dict) -> list[tuple[int, str]]:
    """Every legal play for the viewer as (score, notation ``8H WORD``), best first, from a
    ``state --json`` view, found with the engine's move generator (the test's own oracle)."""
    from wordarena.engine.families import parse_ruleset_id
    from wordarena.engine.movegen import generate
    from wordarena.engine.notation import word_from_placements
    from wordarena.engine.tiles import Tile

    ruleset = parse_ruleset_id(view["ruleset"]["ruleset_id"])
    layout = ruleset.board
    cells: list[Tile | None] = [None] * (layout.rows * layout.cols)
    for sq in view["board"].get("squares", []):
        tile = sq.get("tile")
        if tile and tile.get("letter"):
            s = sq.get("square", {})
            cells[layout.index(s.get("row", 0), s.get("col", 0))] = Tile(
                tile["letter"], bool(tile.get("is_blank")), tile.get("owner_seat", 0))
    rack = ["?" if t.get("is_blank") else t["letter"] for t in view.get("rack", {}).get("tiles", [])]
    from wordarena.engine.lexicon.catalog import load_lexicon

    moves = generate(ruleset, tuple(cells), rack, load_lexicon(ruleset.lexicon))
    moves.sort(key=lambda m: (-m.score, m.tiles))
    return [(move.score, "{} {}".format(*word_from_placements(layout, tuple(cells), move.placements(),
                                                              move.across))) for move in moves]


def best_move(view: dict) -> str | None:
    """The best-scoring legal play for the viewer in notation (``8H WORD``); None when there is
    none (see ``legal_plays``)."""
    plays = legal_plays(view)
    return plays[0][1] if plays else None


def best_or_pass(view: dict, name: str) -> tuple[str, str]:
    """What the viewer types for their turn, the best play or ``pass`` when a random rack has no
    legal play, and the regex the game screens show for it (``Name: 8H WORD for 24`` or
    ``Name passed``)."""
    plays = legal_plays(view)
    if not plays:
        return "pass", rf"{re.escape(name)} passed"
    score, move = plays[0]
    return move, rf"{re.escape(name)}: {re.escape(move)} for {score}\b"


def match_server_pid(served: Served) -> int:
    """The process id of the match server ``wordarena serve`` runs (its one child of that kind)."""
    out = subprocess.run(["pgrep", "-P", str(served.proc.pid), "-f", "wordarena.services.match.main"],
                         capture_output=True, text=True).stdout.split()
    assert len(out) == 1, out
    return int(out[0])


def descendants(pid: int) -> set[int]:
    """The live processes below ``pid`` (children, grandchildren …; zombies left out), from
    /proc."""
    parent: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if fields[0] != "Z":
            parent[int(stat.parent.name)] = int(fields[1])
    below, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parent.items() if pp in frontier} - below
        below |= frontier
    return below


def alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (not gone, not zombies)."""
    out = set()
    for p in pids:
        try:
            state = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(p)
    return out


def niceness(pid: int) -> int:
    """The nice value of process ``pid`` (/proc)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])
