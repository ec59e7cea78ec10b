"""Deriving leave values by self-play (how ``data/leaves-<family>-<language>.json`` is made).

Two greedy players (level 4; in War of Words without their action tiles, see below) play
each other, game ``g`` from seed ``g``. At every other turn while the bag can still refill a
rack, 8 racks drawn at random from the tiles not on the board (letters, blanks, wildcards; no
action tiles) are scored by their best move on that board (the native move generator). The
samples are kept aggregated per distinct rack (count, sum and sum of squares of the best score)
in one JSON file per family and language, so a run can be resumed and refitted without
replaying (``collect``). ``training.leavefit`` fits the leave table to them.

    python -m training.derive_leaves collect DIR [family/language ...] --until 20000
        [--chunk 500] [--deadline HH:MM]     # every ruleset (bots play them all) by default
    python -m training.derive_leaves fit DIR [family/language ...] [--model MODEL]
    python -m training.derive_leaves merge OUT DIR DIR ... [--rulesets family/language ...]

``collect`` goes round the rulesets ``--chunk`` games at a time (so a deadline leaves every
ruleset with a share), continuing each file from the games it already holds, until every
ruleset has ``--until`` games or the (UTC) deadline passes. ``fit`` writes the shipped tables.

War of Words is derived with level-4 players that never play action tiles (``Bot.actions``):
the tactics module applies hundreds of candidate plays a turn (about 1.3 s of CPU a game
against 0.1 s without); the samples only hold letters, so the boards (letters only) are what
changes, not what is measured.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from training.leavefit import fit_file
from wordarena.engine.bots.bot import Bot
from wordarena.engine.bots.leaves import LeaveTable, load_leaves
from wordarena.engine.bots.selfplay import play_game
from wordarena.engine.bots.simulation import EQUITY_SCAN
from wordarena.engine.families import get_ruleset
from wordarena.engine.game.play import replace_at
from wordarena.engine.game.state import GameState
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.movegen import generate, generate_moves
from wordarena.engine.rulesets.catalog import LANGUAGES
from wordarena.engine.tiles import is_action

#: Where the package keeps the shipped tables (engine/bots/data in a checkout).
DATA = Path(__file__).resolve().parents[1] / "engine" / "bots" / "data"
RACKS = 8  # random racks scored per sampled turn
EVERY = 2  # a turn in EVERY is sampled
SEP = " "  # between the tokens of a rack key (tokens may be more than one character)

#: Aggregated samples: rack key (sorted tokens joined by SEP) -> [count, sum, sum of squares]
Samples = dict[str, list[float]]


def rulesets() -> list[tuple[str, str]]:
    """Every (family, language) a bot may play: every ruleset (bots sit at any table)."""
    return [(f, lang) for f, langs in LANGUAGES.items() for lang in langs]


def rack_equity(state: GameState, rack: tuple[str, ...], level5: Bot) -> float:
    """What ``rack`` is worth to ``level5`` on ``state``'s board (the seat to move holding it):
    the equity of its choice (``Bot.equity_choice``) — its play's score + the value of the tiles
    kept by its table, or its exchange's leave value; 0 with neither."""
    seat = state.to_move
    held = replace(state, racks=replace_at(state.racks, seat, rack))
    moves = generate_moves(held, seat, level5.lexicon, limit=EQUITY_SCAN)
    equity = level5.equity_choice(held, moves)[1]
    return 0.0 if equity == -math.inf else equity


def collect_racks(
    family: str, language: str, start: int, games: int, samples: Samples,
    equity: LeaveTable | None = None,
) -> int:
    """Play games ``start`` .. ``start + games - 1`` and add their (rack, best score) samples
    to ``samples`` — with ``equity``, (rack, best equity by that table: ``rack_equity``), the
    next round of an iterated derivation; returns the number of samples added."""
    ruleset = get_ruleset(family, language)
    lexicon = load_lexicon(ruleset.lexicon)
    level5 = None if equity is None else Bot(5, 0, lexicon, leaves=equity)
    rng = random.Random(f"derive/{family}/{language}/{start}")
    size = ruleset.rack_size
    added = [0]
    turn = [0]

    def on_turn(before: GameState, action: Any, after: GameState) -> None:
        turn[0] += 1
        if turn[0] % EVERY or len(before.bag) < size:
            return
        pool = [t for t in (*before.bag, *(t for r in before.racks for t in r)) if not is_action(t)]
        for _ in range(RACKS):
            rack = rng.sample(pool, min(size, len(pool)))
            if level5 is not None:
                best = rack_equity(before, tuple(sorted(rack)), level5)
            else:
                moves = generate(ruleset, before.cells, rack, lexicon, before.board_effects, limit=1)
                best = moves[0].score if moves else 0
            key = SEP.join(sorted(rack))
            entry = samples.get(key)
            if entry is None:
                samples[key] = [1, best, best * best]
            else:
                entry[0] += 1
                entry[1] += best
                entry[2] += best * best
            added[0] += 1

    for g in range(start, start + games):
        bots = [Bot(4, g, lexicon, actions=False), Bot(4, g + 1, lexicon, actions=False)]
        play_game(ruleset, bots, g, lexicon, on_turn)
    return added[0]


def samples_path(folder: Path, family: str, language: str) -> Path:
    return folder / f"samples-{family}-{language}.json"


def load_samples(path: Path) -> dict[str, Any]:
    """A samples file (``{"family", "language", "games", "samples", "cpu_seconds"}``), or an
    empty one."""
    if path.exists():
        return dict(json.loads(path.read_text(encoding="utf-8")))
    return {"games": 0, "samples": {}, "cpu_seconds": 0.0}


def write_samples(path: Path, data: dict[str, Any]) -> None:
    """Write a samples file whole or not at all (a run stopped mid-write keeps the old one)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    tmp.replace(path)


def merge(out: Path, folders: Sequence[Path], targets: Sequence[tuple[str, str]]) -> None:
    """One samples file per ruleset in ``out`` from the files of ``folders``, each a range of
    games (``collect --first``): the same samples as one run of those games, since game g is
    dealt from seed g and each chunk's racks from the seed of its first game. Ranges may not
    overlap; a merged file with gaps between its ranges lists them (``ranges``) and is for
    ``fit`` only (``collect`` would not know which game comes next)."""
    out.mkdir(parents=True, exist_ok=True)
    for family, language in targets:
        parts = [load_samples(p) for f in folders if (p := samples_path(f, family, language)).exists()]
        if not parts:
            continue
        parts.sort(key=lambda d: int(d.get("first", 0)))
        ranges: list[list[int]] = []
        samples: Samples = {}
        for part in parts:
            first, games = int(part.get("first", 0)), int(part["games"])
            if ranges and first < sum(ranges[-1]):
                raise SystemExit(f"{family}/{language}: games {first}.. overlap games "
                                 f"{ranges[-1][0]}..{sum(ranges[-1]) - 1}")
            if ranges and first == sum(ranges[-1]):
                ranges[-1][1] += games
            else:
                ranges.append([first, games])
            for key, (count, total, squares) in part["samples"].items():
                entry = samples.setdefault(key, [0, 0, 0])
                entry[0] += count
                entry[1] += total
                entry[2] += squares
        merged: dict[str, Any] = {
            "family": family, "language": language, "samples": samples, "first": ranges[0][0],
            "games": sum(g for _, g in ranges),
            "cpu_seconds": round(sum(float(p.get("cpu_seconds", 0.0)) for p in parts), 1)}
        if len(ranges) > 1:
            merged["ranges"] = ranges
        write_samples(samples_path(out, family, language), merged)
        print(f"{family}/{language}: {merged['games']} games "
              f"({', '.join(f'{a}..{a + g - 1}' for a, g in ranges)}) from {len(parts)} folders")


def collect(
    folder: Path, targets: Sequence[tuple[str, str]], until: int, chunk: int, deadline: datetime | None,
    first: int = 0, equity: LeaveTable | None = None,
) -> None:
    """Round-robin ``chunk`` games per ruleset until each has ``until`` or ``deadline``; a new
    file starts at game ``first`` (so several processes can each play a range: ``merge``)."""
    folder.mkdir(parents=True, exist_ok=True)
    while True:
        progressed = False
        for family, language in targets:
            if deadline is not None and datetime.now(UTC) >= deadline:
                return
            path = samples_path(folder, family, language)
            data = load_samples(path)
            data.setdefault("first", first)
            done, start = int(data["games"]), int(data["first"])
            if start != first or "ranges" in data:
                raise SystemExit(f"{path} holds games from {start} ({data.get('ranges', '')}): "
                                 f"collect from game {first} into a folder of its own")
            if done >= until:
                continue
            games = min(chunk, until - done)
            cpu = time.process_time()
            added = collect_racks(family, language, start + done, games, data["samples"], equity)
            data.update(
                family=family,
                language=language,
                games=done + games,
                cpu_seconds=round(data.get("cpu_seconds", 0.0) + time.process_time() - cpu, 1),
            )
            write_samples(path, data)
            print(
                f"{family}/{language}: {done + games} games, +{added} samples, {data['cpu_seconds']} s CPU",
                flush=True,
            )
            progressed = True
        if not progressed:
            return


def _ruleset_args(names: Sequence[str]) -> list[tuple[str, str]]:
    if not names:
        return rulesets()
    out = []
    for name in names:
        family, _, language = name.partition("/")
        out.append((family, language or "en"))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.derive_leaves", description=__doc__.split("\n\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="play self-play games and keep rack samples")
    c.add_argument("folder", type=Path)
    c.add_argument("rulesets", nargs="*", help="family/language (default: every ruleset)")
    c.add_argument("--until", type=int, default=20_000, help="games per ruleset")
    c.add_argument("--chunk", type=int, default=500, help="games per ruleset per round")
    c.add_argument("--deadline", help="stop after this UTC time (HH:MM, today)")
    c.add_argument("--first", type=int, default=0, help="a new file's first game (see merge)")
    c.add_argument("--equity", type=Path, metavar="TABLE",
                   help="value each rack by its best equity by this leave table, not its best "
                        "score (one round of an iterated derivation; one ruleset)")
    m = sub.add_parser("merge", help="join folders that played consecutive ranges of games")
    m.add_argument("out", type=Path)
    m.add_argument("folders", type=Path, nargs="+")
    m.add_argument("--rulesets", nargs="*", default=[])
    f = sub.add_parser("fit", help="fit and write the shipped leave tables")
    f.add_argument("folder", type=Path)
    f.add_argument("rulesets", nargs="*")
    f.add_argument(
        "--model",
        choices=("tokens", "duplicates", "pairs", "means"),
        help="fit this model (default: compare them on held-out racks, keep the best)",
    )
    f.add_argument("--out", type=Path, default=DATA, help="where to write the tables "
                   "(default: the shipped ones)")
    args = parser.parse_args(argv)
    targets = _ruleset_args(args.rulesets)
    if args.command == "collect":
        deadline = None
        if args.deadline:
            hh, mm = (int(x) for x in args.deadline.split(":"))
            deadline = datetime.now(UTC).replace(hour=hh, minute=mm, second=0, microsecond=0)
        equity = None if args.equity is None else load_leaves(args.equity)
        if equity is not None and len(targets) != 1:
            raise SystemExit("--equity: name the one ruleset its table is for")
        collect(args.folder, targets, args.until, args.chunk, deadline, args.first, equity)
        return 0
    if args.command == "merge":
        merge(args.out, args.folders, _ruleset_args(args.rulesets))
        return 0
    for family, language in targets:
        path = samples_path(args.folder, family, language)
        if not path.exists():
            print(f"{family}/{language}: no samples in {args.folder}", file=sys.stderr)
            continue
        table, report = fit_file(load_samples(path), args.model)
        out = args.out / f"leaves-{family}-{language}.json"
        out.write_text(json.dumps(table.to_json(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{out.name}: {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
