"""Move generation benchmark: median full-generation time per ruleset and position, for the
pure-Python generator and the native core side by side (same process, same position, one after
the other), with their ratio.

Positions are CGP lines: the empty board with ``AEINRST`` (War of Words, whose racks hold 8
tiles, also with ``AEINRSTL``), and a mid-game board of about 17 words (built once by greedy
play from a fixed seed, printed so it can be reused) with a rack without blanks, with one blank
and with two (War of Words: wildcards, which the native core hands to Python: ratio ~1); for
``scrabble`` also the four positions a-d of issue 18 (``ISSUE_POSITIONS``).

    .venv/bin/python bench/movegen.py [--runs 21] [--family classic ...] [--cold] [--one-process]
                                      [--impl python|native|both] [--steady] [--rounds N]
                                      [--spread N]

Each ruleset is measured in a fresh process unless ``--one-process`` is given (see ``main``).

``--rounds N`` times each position N times, the implementations alternating, and keeps each
one's fastest: the machine's speed moves between the two measurements of a single round, so
one round can put one implementation in a fast moment and the other in a slow one.

``--spread N`` measures only issue 18's positions a-d, native: N samples of ``--runs`` steady
generations each, the positions interleaved, printing the min / median / max of the samples,
and beside them the search alone (``limit=1``: every move found and scored, one ``Move`` built,
about what a plain C generator does). This machine's speed moves by up to 1.6x within seconds
(another guest's load on the host), so a single sample can land in its fast or its slow state;
the spread shows both, and the search-alone column is the like-for-like yardstick.

Times are CPU time (``process_time``, steady on a shared machine) and wall time. Runs after the
first reuse the generator's per-lexicon caches (DAWG child maps, cross-check sets), which is
what a bot or a server sees after a few turns; ``--cold`` clears them before every run (the
cost of a first analysis in a fresh process).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import time
import tracemalloc

from wordarena.engine.families import get_ruleset
from wordarena.engine.game import apply, set_rack, start_game
from wordarena.engine.interchange.cgp import position_from_cgp, position_to_cgp
from wordarena.engine.lexicon import catalog, load_lexicon
from wordarena.engine.movegen import clear_caches, generate_moves
from wordarena.engine.movegen.native_bridge import ENV

FAMILIES = ("classic", "scrabble", "wordtiles", "warofwords")
POSITIONS = ("empty", "mid-game", "one blank", "two blanks")
IMPLEMENTATIONS = ("python", "native")
_ISSUE_BOARD = ("15/15/2A12/2QUETCH7/2U4E2T4/2A4X2Y4/2T3ZA2R4/2O1D1AD1PAVISE/1UNFORGED1N4/"
                "2E1P2SEWN4/4A5E4/3OM10/3KI10/3eN10/3HE10")
# Issue 18's positions (standard scrabble board and tiles, English word list)
ISSUE_POSITIONS = {
    "issue a": "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0",
    "issue b": f"{_ISSUE_BOARD} AGIRRSW/ 0/0 0",
    "issue c": f"{_ISSUE_BOARD} GIRRSW?/ 0/0 0",
    "issue d": f"{_ISSUE_BOARD.replace('3eN10', '3EN10')} GIRRS??/ 0/0 0",
}


def board_words(state) -> int:
    """Words on the board: maximal runs of two or more tiles, across and down."""
    layout = state.ruleset.board
    count = 0
    for across in (True, False):
        for a in range(layout.rows if across else layout.cols):
            run = 0
            for b in range(layout.cols if across else layout.rows):
                i = a * layout.cols + b if across else b * layout.cols + a
                if state.cells[i] is not None:
                    run += 1
                else:
                    count += run >= 2
                    run = 0
            count += run >= 2
    return count


def midgame_cgp(family: str, lexicon, target_words: int = 17, seed: int = 3) -> str:
    """A mid-game position: greedy play (best, 2nd, 3rd best in turn, to vary) until the board
    holds ~``target_words``; the player to move keeps the rack the game dealt (no blanks)."""
    state, _ = start_game(get_ruleset(family), 2, seed, lexicon)
    turn = 0
    while board_words(state) < target_words and not state.over:
        # keep blanks and wildcards off the board so the blank racks stay possible
        moves = [m for m in generate_moves(state) if not any(b or ch == "*" for _, ch, b in m.tiles)]
        if not moves:
            break
        move = moves[min(len(moves) - 1, turn % 3)]
        state, _ = apply(state, move.to_play(state.to_move))
        if state.pending is not None:
            from wordarena.engine.game import Decide

            state, _ = apply(state, Decide(state.to_move, True))
        turn += 1
    joker = "*" if family == "warofwords" else "?"
    size = state.ruleset.rack_size
    rack = [t for t in state.racks[state.to_move] if t != joker and not t.startswith("@")]
    for token in state.bag:  # letters only, no blanks: fill up from the bag
        if len(rack) == size:
            break
        if token != joker and not token.startswith("@"):
            rack.append(token)
    return with_rack(position_to_cgp(set_rack(state, state.to_move, tuple(rack))), "".join(rack))


def rack_of(cgp: str) -> str:
    return cgp.split(" ")[1].split("/")[0]


def with_rack(cgp: str, rack: str) -> str:
    """The CGP with the first rack replaced."""
    fields = cgp.split(" ")
    racks = fields[1].split("/")
    racks = [rack] + [""] * (len(racks) - 1)  # opponents' racks unknown
    fields[1] = "/".join(racks)
    return " ".join(fields)


def empty_cgp(family: str, lexicon, rack: str) -> str:
    state, _ = start_game(get_ruleset(family), 2, 1, lexicon)
    state = set_rack(state, 0, tuple(rack))
    return position_to_cgp(state)


def time_position(
    cgp: str, lexicon, runs: int, warm: bool, impl: str = "native", steady: bool = False
) -> tuple[float, float, int]:
    """Median CPU and wall seconds of a full generation by ``impl``, and the number of moves.
    ``steady``: the mean of ``runs`` generations back to back instead (no collection between
    them: what a bot generating move after move sees)."""
    os.environ[ENV] = impl
    state = position_from_cgp(cgp, lexicon=lexicon)
    cpu, wall = [], []
    count = 0
    generate_moves(state, ordered=False)
    if steady:
        c0, t0 = time.process_time(), time.perf_counter()
        for _ in range(runs):
            moves = generate_moves(state, ordered=False)
        return ((time.process_time() - c0) / runs, (time.perf_counter() - t0) / runs, len(moves))
    for _ in range(runs):
        if not warm:
            clear_caches()
        gc.collect()
        c0, t0 = time.process_time(), time.perf_counter()
        moves = generate_moves(state, ordered=False)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - t0)
        count = len(moves)
    return statistics.median(cpu), statistics.median(wall), count


def lexicon_figures() -> tuple[float, float]:
    """Seconds and MB to load the default English lexicon (from its compiled file)."""
    catalog.clear_loaded()
    tracemalloc.start()
    load_lexicon("en")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    catalog.clear_loaded()  # timed again without tracemalloc, which slows allocation
    t0 = time.perf_counter()
    load_lexicon("en")
    return time.perf_counter() - t0, peak / 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--family", action="append", choices=FAMILIES)
    parser.add_argument("--cold", action="store_true", help="clear the generator's caches first")
    parser.add_argument("--show-cgp", action="store_true", help="print the positions used")
    parser.add_argument("--one-process", action="store_true",
                        help="measure every ruleset in this process, one after the other")
    parser.add_argument("--impl", choices=("python", "native", "both"), default="both",
                        help="which generator(s) to time (default: both, side by side)")
    parser.add_argument("--steady", action="store_true",
                        help="mean of --runs generations back to back (no gc.collect between)")
    parser.add_argument("--rounds", type=int, default=1, metavar="N",
                        help="time each implementation N times, alternating; keep the fastest")
    parser.add_argument("--spread", type=int, default=0, metavar="N",
                        help="issue 18's a-d only: N interleaved samples, min / median / max")
    parser.add_argument("--rows-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.spread:
        return issue_spread(load_lexicon("en"), args.spread, args.runs)
    families = args.family or list(FAMILIES)
    if not args.rows_only:
        load_s, load_mb = lexicon_figures()
        print(f"lexicon en: {len(load_lexicon('en'))} words, load {load_s * 1000:.0f} ms, "
              f"{load_mb:.1f} MB")
        print(f"cpu / wall: {'mean' if args.steady else 'median'} milliseconds of one warm generation;"
              " x: python cpu / native cpu (>=10x: issue 18's target, per position)")
        print(f"{'ruleset':<12}{'position':<12}{'rack':<10}{'python cpu':>11}{'wall':>8}"
              f"{'native cpu':>11}{'wall':>8}{'x':>7}{'>=10x':>6}{'moves':>8}")
    if len(families) > 1 and not args.one_process:
        # Each ruleset in a fresh process: the greedy games and caches of the rulesets before
        # it would otherwise slow the later ones (15-35 % here, a bigger heap to walk).
        for family in families:
            extra = (["--cold"] * args.cold + ["--show-cgp"] * args.show_cgp + ["--impl", args.impl]
                     + ["--steady"] * args.steady + ["--rounds", str(args.rounds)])
            subprocess.run([sys.executable, __file__, "--rows-only", "--runs", str(args.runs),
                            "--family", family, *extra], check=True)
        return 0
    lexicon = load_lexicon("en")
    for family in families:
        measure_family(family, lexicon, args.runs, not args.cold, args.show_cgp, args.impl,
                       args.steady, args.rounds)
    return 0


def issue_spread(lexicon, samples: int, runs: int) -> int:
    """Print min / median / max CPU ms over ``samples`` interleaved samples of ``runs`` steady
    native generations of each of issue 18's positions, whole and with ``limit=1``."""
    os.environ[ENV] = "native"
    states = {name: position_from_cgp(cgp, lexicon=lexicon) for name, cgp in ISSUE_POSITIONS.items()}
    times: dict[tuple[str, int | None], list[float]] = {}
    for _ in range(samples):
        for name, state in states.items():
            for limit in (None, 1):
                generate_moves(state, limit=limit)
                c0 = time.process_time()
                for _ in range(runs):
                    moves = generate_moves(state, limit=limit)
                times.setdefault((name, limit), []).append((time.process_time() - c0) / runs * 1000)
                del moves
    print(f"CPU ms of one warm native generation: {samples} samples of {runs} each, interleaved")
    print(f"{'position':<10}{'moves':>7}{'min':>8}{'median':>8}{'max':>8}   search alone (limit=1):"
          f"{'min':>7}{'median':>8}{'max':>8}")
    for name, state in states.items():
        whole, alone = sorted(times[name, None]), sorted(times[name, 1])
        print(f"{name:<10}{len(generate_moves(state)):>7}{whole[0]:>8.2f}"
              f"{statistics.median(whole):>8.2f}{whole[-1]:>8.2f}{'':>26}{alone[0]:>7.2f}"
              f"{statistics.median(alone):>8.2f}{alone[-1]:>8.2f}")
    return 0


def measure_family(
    family: str, lexicon, runs: int, warm: bool, show_cgp: bool, impl: str = "both",
    steady: bool = False, rounds: int = 1,
) -> None:
    """Print one row per position of ``family``; with ``rounds`` > 1 each implementation is
    timed that many times, alternating, and its fastest time kept."""
    joker = "*" if family == "warofwords" else "?"
    mid = midgame_cgp(family, lexicon)
    natural = rack_of(mid)
    rows = list(POSITIONS)
    if family == "warofwords":  # its rack holds 8 tiles: the issue's 7 and a full rack
        rows.insert(1, "empty, 8")
    positions: dict[str, str] = {}
    for name in rows:
        if name.startswith("empty"):
            positions[name] = empty_cgp(family, lexicon, "AEINRST" + ("L" if name == "empty, 8" else ""))
        else:
            blanks = POSITIONS.index(name) - 1
            positions[name] = with_rack(mid, joker * blanks + natural[blanks:])
    if family == "scrabble":
        positions.update(ISSUE_POSITIONS)
    which = IMPLEMENTATIONS if impl == "both" else (impl,)
    for name, cgp in positions.items():
        if show_cgp:
            print(f"  {cgp}")
        timed = {i: time_position(cgp, lexicon, runs, warm, i, steady) for i in which}
        for _ in range(rounds - 1):  # interleaved rounds: each implementation's best block
            for i in which:
                again = time_position(cgp, lexicon, runs, warm, i, steady)
                timed[i] = min(timed[i], again)
        counts = {count for _, _, count in timed.values()}
        cells = "".join(
            f"{timed[i][0] * 1000:>11.2f}{timed[i][1] * 1000:>8.2f}" if i in timed else f"{'-':>11}{'-':>8}"
            for i in IMPLEMENTATIONS
        )
        ratio, target = f"{'-':>7}", f"{'-':>6}"
        if len(timed) == 2 and timed["native"][0]:
            x = timed["python"][0] / timed["native"][0]
            ratio, target = f"{x:>7.1f}", f"{'yes' if x >= 10 else 'NO':>6}"  # issue 18's target
        count = counts.pop() if len(counts) == 1 else "DIFFER"
        print(f"{family:<12}{name:<12}{rack_of(cgp):<10}{cells}{ratio}{target}{count:>8}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
