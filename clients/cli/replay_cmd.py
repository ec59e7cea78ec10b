"""``wordarena replay FILE.gcg``: step through a game record on the board (the rich game board).

The record is replayed locally by the engine's GCG replay (``engine.interchange``): no server is
involved. Enter = next move, ``b`` = back, a number = go to that move, ``q`` = quit. ``--all`` (or
a non-terminal stdin) prints every step.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console, Group
from rich.text import Text
from wordarena.clients.cli import render
from wordarena.engine.errors import InputError
from wordarena.engine.interchange.check import replay_record
from wordarena.engine.interchange.gcg import format_move, parse_gcg
from wordarena.engine.rulesets import get_ruleset, parse_ruleset_id
from wordarena.engine.rulesets.layout import SAND, STAR, WATER
from wordarena.v1 import common_pb2


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``replay``."""
    p = subparsers.add_parser("replay", help="step through a GCG game record on the board")
    p.add_argument("file", metavar="FILE.gcg")
    p.add_argument("--ruleset", default="scrabble",
                   help="family or family/language[/board] (default scrabble)")
    p.add_argument("--language", default="en", help="tile set language (default en)")
    p.add_argument("--all", action="store_true", help="print every step, without waiting for keys")
    p.set_defaults(func=_replay)


def board_view(layout: object, cells: tuple, highlight: set[int]) -> common_pb2.BoardView:
    """A contract BoardView of an engine board (premiums, tiles), for the renderer."""
    rows, cols = layout.rows, layout.cols  # type: ignore[attr-defined]
    view = common_pb2.BoardView(rows=rows, cols=cols)
    for i, sq in enumerate(layout.squares):  # type: ignore[attr-defined]
        b = view.squares.add()
        b.square.row, b.square.col = divmod(i, cols)
        if sq.colour:
            b.premium.kind = common_pb2.PREMIUM_KIND_COLOUR
            b.premium.factor = 3
            b.premium.colour = {1: 1, 2: 2, 3: 3, 5: 4}.get(sq.colour, 0)  # type: ignore[assignment]
        elif sq.word_mult > 1 and sq.letter_mult > 1:
            b.premium.kind = common_pb2.PREMIUM_KIND_LETTER_AND_WORD
            b.premium.factor = sq.word_mult
        elif sq.word_mult > 1:
            b.premium.kind = common_pb2.PREMIUM_KIND_WORD
            b.premium.factor = sq.word_mult
        elif sq.letter_mult > 1:
            b.premium.kind = common_pb2.PREMIUM_KIND_LETTER
            b.premium.factor = sq.letter_mult
        b.is_start = i == layout.start  # type: ignore[attr-defined]
        b.is_star = sq.terrain == STAR
        b.terrain = {WATER: common_pb2.TERRAIN_KIND_WATER,  # type: ignore[assignment]
                     SAND: common_pb2.TERRAIN_KIND_SAND}.get(sq.terrain, 0)
        if sq.blocked:
            b.scenery = common_pb2.SCENERY_KIND_STONE
        tile = cells[i]
        if tile is not None:
            b.tile.letter = tile.letter
            b.tile.is_blank = tile.blank
            b.tile.placed_seq = 2 if i in highlight else 1
    return view


def _replay(args: argparse.Namespace) -> int:
    try:
        ruleset = parse_ruleset_id(args.ruleset) if "/" in args.ruleset else get_ruleset(
            args.ruleset, args.language)
        record = parse_gcg(Path(args.file).read_bytes())
        steps = list(replay_record(record, ruleset))
    except (InputError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    layout = ruleset.board
    nicks = [p.nick for p in record.players]
    console = Console(highlight=False)
    frames = []
    previous = (None,) * (layout.rows * layout.cols)
    for n, step in enumerate(steps, 1):
        cells = step.state.cells
        new = {i for i, (a, b) in enumerate(zip(previous, cells, strict=False))
               if a is None and b is not None}
        previous = cells
        m = step.move
        lines = [Text(f"{' vs '.join(p.name or p.nick for p in record.players)} — {ruleset.name}",
                      style="bold cyan"),
                 render.board_renderable(board_view(layout, cells, new), highlight_seq=2),
                 Text(f"move {n}/{len(steps)} (line {m.line}): {format_move(m)}", style="bold")]
        totals = {}
        for s in steps[:n]:
            totals[s.move.seat] = s.move.total
        lines.append(Text("   ".join(f"{nicks[s]} {t}" for s, t in sorted(totals.items()))))
        lines.extend(Text(f"! {f.message} [{f.code}]", style="red") for f in step.findings)
        lines.extend(Text(f"  {note}", style="dim") for note in m.notes)
        frames.append(Group(*lines))
    if not frames:
        print("The record has no moves.")
        return 0
    if args.all or not sys.stdin.isatty():
        for frame in frames:
            console.print(frame)
            console.print()
        return 0
    i = 0
    while True:
        console.clear()
        console.print(frames[i])
        try:
            key = input("Enter next · b back · NUMBER go to · q quit > ").strip().lower()
        except EOFError:
            return 0
        if key in ("q", "quit"):
            return 0
        if key == "b":
            i = max(0, i - 1)
        elif key.isdigit():
            i = min(len(frames), max(1, int(key))) - 1
        elif i + 1 < len(frames):
            i += 1
        else:
            return 0
