"""Named lexicons: the bundled English one, Debian-list ones, the cache and load memory (the load
time is a figure: bench/lexicon.py)."""

from __future__ import annotations

import mmap
import struct
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from wordarena.engine.lexicon import SOURCES, Lexicon, LexiconError, catalog, compile_lexicon, load_lexicon
from wordarena.engine.lexicon.catalog import LexiconSource


@pytest.fixture(scope="module", autouse=True)
def isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Compile Debian-list lexicons into a temporary cache, not the user's."""
    path = tmp_path_factory.mktemp("lexicon-cache")
    mp = pytest.MonkeyPatch()
    mp.setenv("WORDARENA_LEXICON_DIR", str(path))
    catalog.clear_loaded()
    yield path
    catalog.clear_loaded()
    mp.undo()


def test_default_english_is_bundled_and_loads_with_expected_size() -> None:
    lex = load_lexicon("en")
    assert lex.language == "en"
    assert len(lex) == 274_138  # word-list 4.1.0 (274,137) + "zen"
    assert load_lexicon("en") is lex  # cached in-process
    assert load_lexicon() is lex  # the default


def test_bundled_english_is_exactly_what_its_sources_compile_to() -> None:
    source = SOURCES["en"]
    assert source.bundled is not None
    compiled, report = compile_lexicon(source.sources, "en", source.additions)
    assert report.rejected_total == 0
    assert compiled.to_bytes() == source.bundled.read_bytes(), (
        "engine/lexicon/data/en.dawg is stale: rebuild it with `wordarena lexicon build "
        "--language en --additions engine/lexicon/data/en-additions.txt --output "
        "engine/lexicon/data/en.dawg engine/lexicon/data/en.txt.gz`"
    )


# The load time is a figure, not a test (a loaded machine would fail it): bench/lexicon.py prints it.


def test_english_load_memory_is_well_under_40_mb() -> None:
    bundled = SOURCES["en"].bundled
    assert bundled is not None
    tracemalloc.start()
    try:
        lex = Lexicon.load(bundled)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(lex) > 0
    assert peak < 40 * 2**20


def test_unknown_lexicon_name() -> None:
    with pytest.raises(LexiconError, match="unknown lexicon 'klingon'"):
        load_lexicon("klingon")


def test_missing_system_list_names_the_debian_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = LexiconSource("xx-test", "es", (tmp_path / "spanish",), debian_package="wspanish")
    monkeypatch.setitem(SOURCES, "xx-test", fake)
    with pytest.raises(LexiconError, match=r"install the Debian package wspanish"):
        load_lexicon("xx-test")


def test_built_lexicon_is_cached_on_disk_and_rebuilt_when_the_list_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("WORDARENA_LEXICON_DIR", str(cache))
    words = tmp_path / "list.txt"
    words.write_text("hola\nniño\n", encoding="utf-8")
    monkeypatch.setitem(SOURCES, "xx-cache", LexiconSource("xx-cache", "es", (words,)))
    first = load_lexicon("xx-cache")
    assert sorted(first.words()) == ["HOLA", "NIÑO"]
    assert len(list(cache.glob("xx-cache-*.dawg"))) == 1
    catalog.clear_loaded()
    words.write_text("hola\nniño\nsol\n", encoding="utf-8")
    assert "SOL" in load_lexicon("xx-cache")
    assert len(list(cache.glob("xx-cache-*.dawg"))) == 2


def test_corrupt_cache_entry_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("WORDARENA_LEXICON_DIR", str(cache))
    words = tmp_path / "list.txt"
    words.write_text("hola\n", encoding="utf-8")
    monkeypatch.setitem(SOURCES, "xx-corrupt", LexiconSource("xx-corrupt", "es", (words,)))
    load_lexicon("xx-corrupt")
    catalog.clear_loaded()
    (entry,) = cache.glob("xx-corrupt-*.dawg")
    entry.write_bytes(b"garbage")
    assert "HOLA" in load_lexicon("xx-corrupt")


@pytest.mark.parametrize("damage", ["one edge flipped", "truncated", "older format", "empty"])
def test_a_stale_or_corrupt_cache_entry_is_rebuilt_not_trusted(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compiled file is mapped and walked in place (by the C core too), so a damaged one
    must never be used: each damage below is caught, the list compiled afresh and the entry
    rewritten."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("WORDARENA_LEXICON_DIR", str(cache))
    words = tmp_path / "list.txt"
    words.write_text("hola\nniño\nsol\n", encoding="utf-8")
    monkeypatch.setitem(SOURCES, "xx-damaged", LexiconSource("xx-damaged", "es", (words,)))
    catalog.clear_loaded()  # each damage starts from its own cache
    load_lexicon("xx-damaged")
    catalog.clear_loaded()
    (entry,) = cache.glob("xx-damaged-*.dawg")
    good = entry.read_bytes()
    data = bytearray(good)
    header_size, nodes = struct.unpack_from("<HI", data, 10)
    if damage == "one edge flipped":  # the first edge now leads elsewhere: only the checksum sees it
        data[header_size + (4 * (nodes + 1) + 7) // 8 * 8] ^= 1
    elif damage == "truncated":  # e.g. a copy cut short
        del data[len(data) // 2 :]
    elif damage == "older format":  # a file of format 2 under this name
        data[8:10] = struct.pack("<H", 2)
    else:
        data.clear()
    entry.write_bytes(bytes(data))
    lex = load_lexicon("xx-damaged")
    assert sorted(lex.words()) == ["HOLA", "NIÑO", "SOL"]
    assert entry.read_bytes() == good  # rewritten whole
    assert isinstance(lex.first, memoryview)  # and the process walks the new file, mapped


def test_a_loaded_lexicon_walks_the_mapped_file_in_place() -> None:
    """Loading copies nothing: the arrays the native core reads are views of the file's map."""
    bundled = SOURCES["en"].bundled
    assert bundled is not None
    lex = Lexicon.load(bundled)
    for view in (lex.first, lex.targets, lex.terminal, lex.edge_index):
        assert isinstance(view, memoryview) and isinstance(view.obj, mmap.mmap)
    assert len(lex.first) == lex.node_count + 1 and len(lex.edge_index) == lex.edge_count
    assert lex.alphabet[lex.edge_index[0]] == lex.letters[0]


def test_unwritable_cache_still_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("WORDARENA_LEXICON_DIR", str(blocker / "sub"))
    words = tmp_path / "list.txt"
    words.write_text("hola\n", encoding="utf-8")
    monkeypatch.setitem(SOURCES, "xx-ro", LexiconSource("xx-ro", "es", (words,)))
    assert "HOLA" in load_lexicon("xx-ro")


DEBIAN_SAMPLES = {
    "en-gb": (["COLOUR", "ZEN", "TEXTING", "AARDVARK"], ["AACHEN", "AA"]),
    "es": (["MAÑANA", "ARBOL", "CANCION"], ["KILO"]),
    "it": (["PERCHE", "CITTA", "CASA"], ["HACKER"]),
    "pt": (["AÇAO", "VOCE", "CASA"], ["DARWINISMO"]),
    "de": (["STRASSE", "ÄPFEL", "HAUS", "SCHÖN"], ["ADAC"]),
    "fr": (["COEUR", "ELEVE", "GARCON"], ["ABATJOUR"]),
}


@pytest.mark.parametrize("name", sorted(DEBIAN_SAMPLES))
def test_debian_list_lexicon(name: str) -> None:
    source = SOURCES[name]
    if not source.sources[0].exists():
        pytest.skip(f"{source.sources[0]} missing: apt-get install {source.debian_package}")
    lex = load_lexicon(name)
    present, absent = DEBIAN_SAMPLES[name]
    assert lex.language == source.language
    assert len(lex) > 50_000
    for word in present:
        assert word in lex, word
    for word in absent:
        assert word not in lex, word
    assert all(len(word) >= 2 for word in lex.words("Z"))
