"""Instructions per move generation, counted by valgrind: a figure the machine's speed and load
do not move, for comparing two versions of the generator.

CPU times on a shared machine drift by 30 % and more from one hour to the next (see
``docs/movegen.md``, Speed); the number of instructions the interpreter executes for one warm
generation does not (to within 0.5 % from run to run, with a fixed hash seed). Each figure is
the difference between a process that generates ``3`` times and one that generates once after
the same setup (lexicon, position, one warm-up generation), halved. Each position is counted
for the pure-Python generator and for the native core (``WORDARENA_MOVEGEN``), with the ratio.

    apt-get install valgrind
    .venv/bin/python bench/movegen_instructions.py [--family wordtiles ...] [--position "one blank" ...]
                                                   [--impl python|native|both]

The positions are ``bench/movegen.py``'s, and for ``scrabble`` issue 18's a-d. About a minute
per position for the Python generator (valgrind runs the interpreter ~50x slower).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from movegen import (  # noqa: E402
    FAMILIES,
    IMPLEMENTATIONS,
    ISSUE_POSITIONS,
    POSITIONS,
    empty_cgp,
    midgame_cgp,
    rack_of,
    with_rack,
)

from wordarena.engine.lexicon import load_lexicon  # noqa: E402

# What the counted process runs: setup, one warm-up generation, then ``n`` generations.
_CHILD = """
import sys
sys.path.insert(0, {root!r})
from wordarena.engine.interchange.cgp import position_from_cgp
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.movegen import generate_moves
state = position_from_cgp(sys.argv[1], lexicon=load_lexicon("en"))
for _ in range(int(sys.argv[2]) + 1):
    generate_moves(state, ordered=False)
"""


def instructions(cgp: str, runs: int, impl: str = "native") -> int:
    """Instructions valgrind counts for the child process with ``runs`` generations by
    ``impl``."""
    # the same dict layouts in every run
    env = dict(os.environ, PYTHONHASHSEED="0", WORDARENA_MOVEGEN=impl)
    done = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, "-c", _CHILD.format(root=str(ROOT)), cgp, str(runs)],
        capture_output=True, text=True, env=env, check=True,
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{done.stderr}")
    return int(found.group(1).replace(",", ""))


def position_cgp(family: str, position: str, lexicon) -> str:
    """The CGP ``bench/movegen.py`` measures for ``family`` and ``position``."""
    if position in ISSUE_POSITIONS:
        return ISSUE_POSITIONS[position]
    if position == "empty":
        return empty_cgp(family, lexicon, "AEINRST")
    mid = midgame_cgp(family, lexicon)
    blanks = POSITIONS.index(position) - 1
    joker = "*" if family == "warofwords" else "?"
    return with_rack(mid, joker * blanks + rack_of(mid)[blanks:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", action="append", choices=FAMILIES)
    parser.add_argument("--position", action="append", choices=(*POSITIONS, *ISSUE_POSITIONS))
    parser.add_argument("--impl", choices=("python", "native", "both"), default="both")
    args = parser.parse_args(argv)
    which = IMPLEMENTATIONS if args.impl == "both" else (args.impl,)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    lexicon = load_lexicon("en")
    print("M instructions per warm generation; x: python / native")
    print(f"{'ruleset':<12}{'position':<12}{'rack':<10}{'python':>10}{'native':>10}{'x':>7}")
    for family in args.family or FAMILIES:
        positions = args.position or [*POSITIONS, *(ISSUE_POSITIONS if family == "scrabble" else ())]
        for position in positions:
            if position in ISSUE_POSITIONS and family != "scrabble":
                continue
            cgp = position_cgp(family, position, lexicon)
            counts = {impl: (instructions(cgp, 3, impl) - instructions(cgp, 1, impl)) / 2
                      for impl in which}
            cells = "".join(f"{counts[i] / 1e6:>10.1f}" if i in counts else f"{'-':>10}"
                            for i in IMPLEMENTATIONS)
            ratio = (f"{counts['python'] / counts['native']:>7.1f}" if len(counts) == 2
                     else f"{'-':>7}")
            print(f"{family:<12}{position:<12}{rack_of(cgp):<10}{cells}{ratio}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
