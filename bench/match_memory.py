"""The Python objects a live match holds in the match server, measured with ``tracemalloc``: the
scripted games of ``bench/match_load.py`` replayed turn by turn as the server handles them
(``match_turn_work.play_turn``: the engine's play, the stored events, the answer and both seats'
stream messages), stopped half-way and at the end; printed per match with the largest allocation
sites. What ``tracemalloc`` cannot see (grpc's buffers of the match's two streams, about 23.5 KB
each on the server in a bare ``grpc.aio`` server, the allocator's fragmentation) is in the RSS
that ``bench/match_load.py`` prints.

    .venv/bin/python bench/match_memory.py            # 40 games, half-way and at the end

A figure script, not a timed test.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from match_load import RULESET, load_scripts
from match_turn_work import new_runtime, play_turn

from wordarena.engine.families import get_ruleset
from wordarena.engine.lexicon import load_lexicon


def matches_at(scripts: list[dict[str, Any]], lexicon: Any, share: float) -> tuple[list[Any], int]:
    """One runtime per script, played up to ``share`` of its turns; and the turns played."""
    out, turns = [], 0
    for script in scripts:
        rt = new_runtime(script, lexicon)
        upto = int(len(script["turns"]) * share)
        for seat, tiles in script["turns"][:upto]:
            play_turn(rt, seat, tiles)
        out.append(rt)
        turns += upto
    return out, turns


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=40, help="scripted games (default 40)")
    ap.add_argument("--top", type=int, default=6, help="allocation sites shown (default 6)")
    ap.add_argument("--shares", type=float, nargs="+", default=[0.5, 1.0],
                    help="how far into each game to measure (default 0.5 1.0; 0: just created)")
    args = ap.parse_args()
    scripts = load_scripts(40, True)[:args.games]
    lexicon = load_lexicon(get_ruleset(RULESET, "en", None).lexicon)
    matches_at(scripts[:2], lexicon, 0.5)  # warm: caches, lexicon pages
    for share in args.shares:
        gc.collect()
        tracemalloc.start(1)
        before = tracemalloc.take_snapshot()
        held, turns = matches_at(scripts, lexicon, share)
        gc.collect()
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        n = len(held)
        sites = after.compare_to(before, "lineno")
        total = sum(s.size_diff for s in sites)
        print(f"{share:.0%} of each game ({turns / n:.1f} turns, {sum(r.seq for r in held) / n:.1f} events): "
              f"{total / n / 1024:.1f} KB of Python objects per match")
        for s in sites[:args.top]:
            where = s.traceback[0]
            print(f"  {s.size_diff / n / 1024:6.1f} KB  {Path(where.filename).name}:{where.lineno}")
        del held


if __name__ == "__main__":
    main()
