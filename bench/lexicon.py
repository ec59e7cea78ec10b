"""Lexicon benchmark: load time, memory, compile time and walk speed (prints figures).

Run: ``.venv/bin/python bench/lexicon.py [--languages en de ...] [--repeat N]``.
Load time is the median of N cold loads (a fresh :class:`Lexicon` from the compiled file each
time; the OS page cache is warm). Memory is what tracemalloc sees retained after a load (and
its peak). Compile time covers reading, normalising and compiling the source lists.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--languages", nargs="*", default=["en"], metavar="NAME")
    parser.add_argument("--repeat", type=int, default=11)
    args = parser.parse_args()
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
