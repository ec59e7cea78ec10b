"""``wordarena replay FILE.gcg``: step through a game record on the board (the rich game board).

The record is replayed locally by the engine's GCG replay (``engine.interchange``) with the
ruleset its ``#ruleset`` / ``#language`` pragmas name (the one reader ``gcg check`` uses), unless
``--ruleset`` says otherwise: no server is involved. Exit 0 when every move agrees with the
engine, 1 when one does not (its ``!`` lines say where), 2 for an unreadable record.
Enter = next move, ``b`` = back, a number = go to that move, ``q`` = quit. ``--all`` (or a
non-terminal stdin) prints every step.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console, Group
from rich.text import Text

from wordarena.clients.cli import render
from wordarena.clients.cli.safe import safe_text
from wordarena.engine.errors import InputError
from wordarena.engine.interchange.check import replay_record, unsupported_letters
from wordarena.engine.interchange.gcg import format_move, parse_gcg
from wordarena.engine.interchange.pragmas import record_ruleset

OK, FINDINGS, BAD_INPUT = 0, 1, 2


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``replay``."""
    p = subparsers.add_parser("replay", help="step through a GCG game record on the board")
    p.add_argument("file", metavar="FILE.gcg")
    p.add_argument("--ruleset", default=None,
                   help="family or family/language[/board] (default: the record's #ruleset "
                        "pragma, else scrabble)")
    p.add_argument("--language", default="en", help="tile set language (default en)")
    p.add_argument("--all", action="store_true", help="print every step, without waiting for keys")
    p.set_defaults(func=_replay)


def _replay(args: argparse.Namespace) -> int:
    try:
        record = parse_gcg(Path(args.file).read_bytes())
        ruleset = record_ruleset(record, args.ruleset, args.language)
        unsupported = unsupported_letters(record, ruleset)
        if unsupported:
            print(f"{args.file}:{unsupported.line}: {unsupported.message}", file=sys.stderr)
            return FINDINGS
        steps = list(replay_record(record, ruleset))
    except (InputError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return BAD_INPUT
    found = sum(len(step.findings) for step in steps)
    code = FINDINGS if found else OK
    layout = ruleset.board
    nicks = [safe_text(p.nick) for p in record.players]  # a record's names are untrusted text
    console = Console(highlight=False)
    frames = []
    previous = (None,) * (layout.rows * layout.cols)
    for n, step in enumerate(steps, 1):
        cells = step.state.cells
        new = {i for i, (a, b) in enumerate(zip(previous, cells, strict=False))
               if a is None and b is not None}
        previous = cells
        m = step.move
        lines = [Text(safe_text(f"{' vs '.join(p.name or p.nick for p in record.players)} — {ruleset.name}"),
                      style="bold cyan"),
                 render.board_renderable(render.engine_board_view(layout, cells, new), highlight_seq=2),
                 Text(safe_text(f"move {n}/{len(steps)} (line {m.line}): {format_move(m)}"), style="bold")]
        totals = {}
        for s in steps[:n]:
            totals[s.move.seat] = s.move.total
        lines.append(Text("   ".join(f"{nicks[s]} {t}" for s, t in sorted(totals.items()))))
        lines.extend(Text(f"! {f.message} [{f.code}]", style="red") for f in step.findings)
        lines.extend(Text(f"  {safe_text(note)}", style="dim") for note in m.notes)
        frames.append(Group(*lines))
    if not frames:
        print("The record has no moves.")
        return OK
    summary = (f"{found} disagreement(s) with the engine ({ruleset.id}): the lines marked !"
               if found else f"every move agrees with the engine ({ruleset.id})")
    if args.all or not sys.stdin.isatty():
        for frame in frames:
            console.print(frame)
            console.print()
        console.print(summary)
        return code
    i = 0
    while True:
        console.clear()
        console.print(frames[i])
        if i + 1 == len(frames):
            console.print(summary)
        try:
            key = input("Enter next · b back · NUMBER go to · q quit > ").strip().lower()
        except EOFError:
            return code
        if key in ("q", "quit"):
            return code
        if key == "b":
            i = max(0, i - 1)
        elif key.isdigit():
            i = min(len(frames), max(1, int(key))) - 1
        elif i + 1 < len(frames):
            i += 1
        else:
            return code
