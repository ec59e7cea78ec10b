"""Word definitions from WordNet's database files (Debian package ``wordnet-base``:
``/usr/share/wordnet``), read directly: index.<pos> gives synset offsets, data.<pos> the glosses."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

WORDNET_DIRS = ("/usr/share/wordnet", "/usr/share/WordNet", "/usr/local/share/wordnet")
POS = {"noun": "noun", "verb": "verb", "adj": "adjective", "adv": "adverb"}
SOURCE = "WordNet 3.0"


def wordnet_dir() -> Path | None:
    """The WordNet database directory, or None when not installed (``WORDARENA_WORDNET_DIR``
    overrides the search)."""
    env = os.environ.get("WORDARENA_WORDNET_DIR")
    for d in ([env] if env else []) + list(WORDNET_DIRS):
        p = Path(d)
        if (p / "index.noun").is_file() and (p / "data.noun").is_file():
            return p
    return None


@cache
def _index(directory: str, pos: str) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    with open(Path(directory) / f"index.{pos}", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.startswith(" "):
                continue
            parts = line.split()
            if len(parts) < 6:
                continue
            lemma, p_cnt = parts[0], int(parts[3])
            synset_cnt = int(parts[2])
            offsets = parts[4 + p_cnt + 2:4 + p_cnt + 2 + synset_cnt]
            out[lemma] = [int(o) for o in offsets]
    return out


def define(word: str, limit: int = 12) -> list[tuple[str, str, list[str]]]:
    """(part of speech, gloss, examples) for ``word``; empty when unknown. ``LookupError`` when
    WordNet is not installed."""
    directory = wordnet_dir()
    if directory is None:
        raise LookupError("no WordNet database installed (Debian/Ubuntu: apt-get install wordnet-base)")
    lemma = word.strip().lower()
    out: list[tuple[str, str, list[str]]] = []
    for pos, name in POS.items():
        offsets = _index(str(directory), pos).get(lemma, [])
        if not offsets:
            continue
        with open(directory / f"data.{pos}", "rb") as fh:
            for off in offsets:
                fh.seek(off)
                line = fh.readline().decode("utf-8", errors="replace")
                gloss = line.partition(" | ")[2].strip()
                parts = [s.strip() for s in gloss.split(";")]
                text = parts[0] if parts else ""
                examples = [p.strip('"') for p in parts[1:] if p.startswith('"')]
                out.append((name, text, examples))
                if len(out) >= limit:
                    return out
    return out
