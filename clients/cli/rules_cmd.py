"""``wordarena rules list|describe``: the rulesets a client can pick, and what each one is.

``describe`` draws the board with the game screen's renderer (coordinates as players write them,
the legend underneath) and the tile set as a table; ``--json`` prints the data form instead.
"""

from __future__ import annotations

import argparse
import json

from rich.console import Group
from rich.table import Table
from rich.text import Text

from wordarena.clients.cli import actions, legend, render
from wordarena.clients.cli.common import console
from wordarena.engine.errors import InputError
from wordarena.engine.families import get_ruleset
from wordarena.engine.rulesets import list_rulesets
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.tiles import BLANK, WILDCARD


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``rules list`` and ``rules describe``."""
    parser = subparsers.add_parser("rules", help="list and describe rulesets")
    sub = parser.add_subparsers(dest="rules_command", required=True)
    lister = sub.add_parser("list", help="every family, language and board")
    lister.add_argument("--json", action="store_true")
    lister.set_defaults(func=_list)
    describe = sub.add_parser("describe", help="board (with a legend), tiles and policies of a ruleset")
    describe.add_argument("family")
    describe.add_argument("--language", default="en")
    describe.add_argument("--board")
    describe.add_argument("--json", action="store_true", help="the description as JSON data")
    describe.set_defaults(func=_describe)


def _list(args: argparse.Namespace) -> int:
    rows = list_rulesets()
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for row in rows:
        print(f"{row['family']:<11} {row['language']:<6} boards: {', '.join(row['boards'])}")
    return 0


def tiles_table(ruleset: Ruleset) -> Table:
    """The tile set: each tile kind with how many there are and what each is worth."""
    table = Table(title=f"Tiles ({ruleset.tiles.total} in all)", title_justify="left")
    for head in ("tile", "count", "points", "tile", "count", "points", "tile", "count", "points"):
        table.add_column(head, justify="right" if head != "tile" else "left")
    counts = ruleset.tiles.counts

    def label(tok: str) -> str:
        if tok == BLANK:
            return "? blank"
        if tok == WILDCARD:
            return "* wildcard"
        return tok

    order = sorted(counts, key=lambda t: (t.startswith("@"), t in (BLANK, WILDCARD), t))
    cells = [(label(t), str(counts[t]), str(ruleset.tiles.value(t))) for t in order]
    for k in range(0, len(cells), 3):
        row = [x for cell in cells[k:k + 3] for x in cell]
        table.add_row(*(row + [""] * (9 - len(row))))
    return table


def _summary(ruleset: Ruleset) -> Text:
    bingos = ", ".join(f"{b.count} {'letters' if b.letters_only else 'tiles'} +{b.bonus}"
                       for b in ruleset.bingos)
    per = ruleset.exchange.per_player
    players = (str(ruleset.min_players) if ruleset.min_players == ruleset.max_players
               else f"{ruleset.min_players}–{ruleset.max_players}")
    factors = "add up" if ruleset.word_factor.value == "add" else "multiply"
    lines = [f"{ruleset.name} ({ruleset.id}) — board {ruleset.board.name}",
             f"{players} players, {ruleset.rack_size} tiles a rack, "
             f"lexicon {ruleset.lexicon}",
             f"bingo: {bingos}; word multipliers {factors}",
             f"swaps: {'unlimited' if per is None or per < 0 else f'{per} per player'}, with at least "
             f"{ruleset.exchange.min_bag} tile(s) in the bag; the game ends after "
             f"{ruleset.zero_turns.limit} scoreless turns in a row"]
    if any(t.startswith("@") for t in ruleset.tiles.counts):
        lines.append("action tiles are played as SQUARE @name, e.g. H8 @bomb (see `wordarena play`, help): "
                     + " ".join(actions.names()))
    return Text("\n".join(lines))


def _describe(args: argparse.Namespace) -> int:
    try:
        ruleset = get_ruleset(args.family, args.language, args.board)
    except InputError as exc:
        print(f"error: {exc}")
        return 2
    if args.json:
        print(json.dumps(ruleset.describe(), indent=1, ensure_ascii=False))
        return 0
    board = render.engine_board_view(ruleset.board)
    additive = ruleset.word_factor.value == "add"
    console().print(Group(_summary(ruleset), render.board_renderable(board),
                          legend.legend_renderable(board, additive=additive), tiles_table(ruleset)))
    return 0
