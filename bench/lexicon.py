"""Lexicon benchmark: load time, memory, compile time and walk speed (prints figures).

Run: ``.venv/bin/python bench/lexicon.py [--languages en de ...] [--repeat N]``, or
``--fresh [--callgrind]`` for what a new process pays per language: a child process per lexicon
prints the CPU time of its imports, of ``load_lexicon`` (the cached compiled file) and of the
first generation of the native core on the empty board (``classic``, or the language's family),
and with ``--callgrind`` the instructions of the whole child (valgrind; includes the start of
Python itself).
Load time is the median of N cold loads (a fresh :class:`Lexicon` from the compiled file each
time; the OS page cache is warm). Memory is what tracemalloc sees retained after a load (and
its peak). Compile time covers reading, normalising and compiling the source lists.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from wordarena.engine.lexicon import SOURCES, Lexicon, compile_lexicon, load_lexicon


def compiled_file(name: str, workdir: Path) -> tuple[Path, float, int]:
    """The compiled file of ``name`` (compiled now, timed) and the word count."""
    source = SOURCES[name]
    started = time.perf_counter()
    lexicon, _ = compile_lexicon(source.sources, source.language, source.additions)
    seconds = time.perf_counter() - started
    path = workdir / f"{name}.dawg"
    lexicon.save(path)
    return path, seconds, len(lexicon)


def load_times(path: Path, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        Lexicon.load(path)
        times.append(time.perf_counter() - started)
    return times


def memory(path: Path) -> tuple[float, float]:
    gc.collect()
    tracemalloc.start()
    lexicon = Lexicon.load(path)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del lexicon
    return current / 2**20, peak / 2**20


def walk_speed(lexicon: Lexicon) -> dict[str, float]:
    """Nanoseconds per operation for the calls a move generator makes."""
    rng = random.Random(1)
    words = [w for w, _ in zip(lexicon.words(), range(200_000), strict=False)]
    sample = rng.sample(words, min(5000, len(words)))
    nodes = [lexicon.walk(w[: rng.randrange(len(w))]) for w in sample]
    letters = lexicon.alphabet
    probes = len(nodes) * len(letters)
    out: dict[str, float] = {}
    child = lexicon.child
    started = time.perf_counter()
    for node in nodes:
        for letter in letters:
            child(node, letter)
    out["child(node, letter)"] = (time.perf_counter() - started) / probes * 1e9
    child_map = lexicon.child_map
    started = time.perf_counter()
    for node in nodes:
        get = child_map(node).get
        for letter in letters:
            get(letter, -1)
    out["child_map(node).get"] = (time.perf_counter() - started) / probes * 1e9
    started = time.perf_counter()
    for word in sample:
        _ = word in lexicon
    out["word in lexicon"] = (time.perf_counter() - started) / len(sample) * 1e9
    return out


def report(name: str, repeat: int, workdir: Path) -> None:
    path, compile_seconds, words = compiled_file(name, workdir)
    times = load_times(path, repeat)
    current, peak = memory(path)
    lexicon = Lexicon.load(path)
    print(f"== {name}: {words} words, {lexicon.node_count} nodes, {lexicon.edge_count} edges")
    print(f"   file            {path.stat().st_size / 2**20:8.2f} MB")
    print(f"   compile         {compile_seconds:8.2f} s  (read + normalise + DAWG)")
    print(
        f"   load            {statistics.median(times) * 1000:8.2f} ms median of {repeat} "
        f"(min {min(times) * 1000:.2f}, max {max(times) * 1000:.2f})"
    )
    print(f"   memory          {current:8.2f} MB retained, {peak:.2f} MB peak (tracemalloc)")
    for op, ns in walk_speed(lexicon).items():
        print(f"   {op:<22} {ns:7.0f} ns")


# The child of --fresh: phases in CPU ms, from the start of the process.
FRESH_CHILD = """
import sys, time
imported = time.process_time()
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import set_rack, start_game
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.movegen import generate_moves
imported = time.process_time() - imported
started = time.process_time()
name, family = sys.argv[1], sys.argv[2]
ruleset = get_ruleset(family, name)
lexicon = load_lexicon(ruleset.lexicon)
loaded = time.process_time()
state, _ = start_game(ruleset, 2, 1, lexicon)
moves = generate_moves(state)
done = time.process_time()
print(f"{time.process_time() * 1000:.1f} {imported * 1000:.1f} {(loaded - started) * 1000:.2f} "
      f"{(done - loaded) * 1000:.2f} {len(moves)} {''.join(state.racks[0])}")
"""
FRESH_FAMILY = {"pl": "wordtiles"}  # classic has no Polish


def fresh(names: list[str], repeat: int, callgrind: bool) -> None:
    """Per lexicon, medians of ``repeat`` fresh processes (see the module docstring)."""
    print(
        "fresh process, CPU ms (median): whole process / imports / load_lexicon / first "
        "generation (native, empty board)" + (" / M instructions (callgrind)" if callgrind else "")
    )
    for name in names:
        family = FRESH_FAMILY.get(name, "classic")
        command = [sys.executable, "-c", FRESH_CHILD, name, family]
        subprocess.run(command, check=True, capture_output=True)  # compile on first use, if need be
        rows = [
            subprocess.run(command, check=True, capture_output=True, text=True).stdout.split()
            for _ in range(repeat)
        ]
        cols = [statistics.median(float(r[k]) for r in rows) for k in range(4)]
        line = (
            f"{name:<6} {family:<10} {cols[0]:7.1f} {cols[1]:7.1f} {cols[2]:7.2f} {cols[3]:7.2f}"
            f"   {rows[0][4]} moves, rack {rows[0][5]}"
        )
        if callgrind:
            counted = subprocess.run(
                ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
                check=True,
                capture_output=True,
                text=True,
            )
            total = next(ln for ln in counted.stderr.splitlines() if "Collected" in ln).split()[-1]
            line += f"   {int(total) / 1e6:.0f} M"
        print(line, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--languages", nargs="*", default=["en"], metavar="NAME")
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--fresh", action="store_true", help="fresh-process load and first move")
    parser.add_argument("--callgrind", action="store_true", help="with --fresh: instructions too")
    args = parser.parse_args()
    if args.fresh:
        fresh(args.languages, args.repeat, args.callgrind)
        return 0
    started = time.perf_counter()
    load_lexicon("en")
    print(f"load_lexicon('en') first call (bundled file): {(time.perf_counter() - started) * 1000:.1f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.languages:
            source = SOURCES[name]
            if not all(p.exists() for p in source.sources):
                print(f"== {name}: skipped, missing {source.sources[0]} ({source.debian_package})")
                continue
            report(name, args.repeat, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
