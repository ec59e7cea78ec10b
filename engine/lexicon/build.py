"""Building a compiled lexicon from raw word lists, with a report of what was kept and why not.

Word lists are text files (optionally gzipped) with one entry per line, in UTF-8 or Latin-1
(detected per file: UTF-8 when the bytes decode as UTF-8, else Latin-1 when they hold no C1
control bytes, else an error naming the line). Additions files are word lists too; in them,
blank lines and lines starting with ``#`` are ignored.
"""

from __future__ import annotations

import gzip
import io
import os
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wordarena.engine.lexicon.alphabet import alphabet_for
from wordarena.engine.lexicon.dawg import Lexicon, compile_words
from wordarena.engine.lexicon.errors import LexiconError
from wordarena.engine.lexicon.normalize import Reason, normalize

PathLike = str | os.PathLike[str]
_SAMPLES_PER_REASON = 5


@dataclass
class BuildReport:
    """What a build read, kept and rejected (by reason, with a few examples of each)."""

    language: str
    sources: list[str] = field(default_factory=list)
    read: int = 0
    kept: int = 0
    duplicates: int = 0
    additions: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    words: int = 0
    nodes: int = 0
    edges: int = 0
    output: str | None = None
    output_bytes: int = 0
    seconds: float = 0.0

    @property
    def rejected_total(self) -> int:
        """All rejected entries, whatever the reason."""
        return sum(self.rejected.values())

    def summary(self) -> str:
        """A few human-readable lines describing the build."""
        lines = [
            f"language {self.language}: read {self.read}, kept {self.kept} "
            f"({self.duplicates} duplicates after normalisation), "
            f"rejected {self.rejected_total}, additions {self.additions}",
            f"lexicon: {self.words} words, {self.nodes} nodes, {self.edges} edges"
            + (f", {self.output_bytes} bytes -> {self.output}" if self.output else "")
            + f" in {self.seconds:.2f} s",
        ]
        for reason, count in sorted(self.rejected.items(), key=lambda kv: (-kv[1], kv[0])):
            examples = ", ".join(self.examples.get(reason, []))
            lines.append(f"  rejected {reason}: {count} (e.g. {examples})")
        return "\n".join(lines)


def read_word_list(path: PathLike, *, comments: bool = False) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, entry)`` for each non-empty line of a word list file.

    Handles gzip (by magic bytes) and UTF-8 / Latin-1 (detected). With ``comments``, lines
    starting with ``#`` are skipped. Raises :class:`LexiconError` naming the file (and line).
    """
    return _entries(path, read_text(path), comments)


def read_text(path: PathLike) -> str:
    """The whole text of a word list file (gunzipped, decoded); errors name file and line."""
    return _decode(path, _read_bytes(path))


def _entries(path: PathLike, text: str, comments: bool) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(io.StringIO(text), start=1):
        entry = line.strip()
        if not entry or (comments and entry.startswith("#")):
            continue
        if "\0" in entry:
            raise LexiconError("NUL byte: not a text word list", f"{path}:{number}")
        yield number, entry


def _read_bytes(path: PathLike) -> bytes:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise LexiconError(f"cannot read word list: {exc.strerror or exc}", str(path)) from exc
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise LexiconError(f"corrupt gzip data: {exc}", str(path)) from exc
    return data


def _decode(path: PathLike, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        utf8_error = exc
    for offset, byte in enumerate(data):
        if 0x80 <= byte <= 0x9F:  # C1 controls: neither valid UTF-8 here nor Latin-1 text
            line = data.count(b"\n", 0, offset) + 1
            raise LexiconError(
                f"undecodable byte 0x{byte:02x}: neither UTF-8 nor Latin-1 "
                f"(UTF-8 failed at byte {utf8_error.start})",
                f"{path}:{line}",
            )
    return data.decode("latin-1")


def has_lowercase(text: str) -> bool:
    """True when ``text`` holds a lower-case letter: then capitals mark proper nouns."""
    return any(ch.islower() for ch in set(text))


def collect_words(
    source_paths: Sequence[PathLike],
    language: str,
    additions: PathLike | None = None,
    report: BuildReport | None = None,
) -> tuple[set[str], BuildReport]:
    """Normalise every entry of ``source_paths`` (and ``additions``) into a set of words."""
    alphabet_for(language)  # unknown language: KeyError before any reading
    report = report or BuildReport(language)
    words: set[str] = set()
    files = [(p, False) for p in source_paths]
    if additions is not None:
        files.append((additions, True))
    for path, is_additions in files:
        report.sources.append(str(path))
        text = read_text(path)
        case_marks_proper = has_lowercase(text)
        for _, entry in _entries(path, text, is_additions):
            report.read += 1
            result = normalize(entry, language, case_marks_proper=case_marks_proper)
            if result.word is None:
                _reject(report, result.reason, entry)
            elif result.word in words:
                report.duplicates += 1
            else:
                words.add(result.word)
                report.kept += 1
                report.additions += int(is_additions)
    return words, report


def _reject(report: BuildReport, reason: Reason | None, entry: str) -> None:
    key = str(reason)
    report.rejected[key] += 1
    examples = report.examples.setdefault(key, [])
    if len(examples) < _SAMPLES_PER_REASON:
        examples.append(entry)


def compile_lexicon(
    source_paths: Sequence[PathLike], language: str, additions: PathLike | None = None
) -> tuple[Lexicon, BuildReport]:
    """Read, normalise and compile word lists into a :class:`Lexicon` (nothing written)."""
    started = time.perf_counter()
    words, report = collect_words(source_paths, language, additions)
    if not words:
        names = ", ".join(str(p) for p in source_paths)
        raise LexiconError(f"no playable {language} words in {names} (all entries rejected)")
    lexicon = compile_words(words, language, alphabet_for(language))
    report.words, report.nodes, report.edges = len(lexicon), lexicon.node_count, lexicon.edge_count
    report.seconds = time.perf_counter() - started
    return lexicon, report


def build_lexicon(
    source_paths: Sequence[PathLike],
    language: str,
    additions: PathLike | None = None,
    *,
    output: PathLike,
) -> BuildReport:
    """Compile word lists of ``language`` into the lexicon file ``output``; return the report.

    Raises :class:`LexiconError` for unreadable or undecodable input (naming file and line),
    an empty result, or an unwritable output; ``KeyError`` for an unknown language.
    """
    lexicon, report = compile_lexicon(source_paths, language, additions)
    try:
        lexicon.save(output)
    except OSError as exc:
        raise LexiconError(f"cannot write lexicon: {exc.strerror or exc}", str(output)) from exc
    report.output = str(output)
    report.output_bytes = Path(output).stat().st_size
    return report
