"""Building lexicons from word lists: the report's counts, encodings, and input errors."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from wordarena.engine.lexicon import Lexicon, LexiconError, build_lexicon, read_word_list


def write(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def test_build_report_counts_by_reason(tmp_path: Path) -> None:
    source = write(
        tmp_path,
        "words.txt",
        "\n".join(
            [
                "casa",  # kept
                "Casa",  # proper noun (the list has lower-case words)
                "árbol",  # kept as ARBOL
                "arbol",  # duplicate after normalisation
                "mañana",  # kept with Ñ
                "kilo",  # excluded letter K
                "web",  # excluded letter W
                "a",  # too short
                "abat-jour",  # hyphen
                "l'eau",  # apostrophe
                "etc.",  # abbreviation
                "ONU",  # abbreviation (all capitals)
                "",  # blank lines are not entries
                "ab3",  # digit
            ]
        )
        + "\n",
    )
    additions = write(tmp_path, "add.txt", "# our words\nzumo\ncasa\n\n")
    out = tmp_path / "es.dawg"
    report = build_lexicon([source], "es", additions, output=out)
    assert report.read == 15
    assert report.kept == 4  # CASA ARBOL MAÑANA ZUMO
    assert report.duplicates == 2  # arbol, and casa again in the additions
    assert report.additions == 1
    assert dict(report.rejected) == {
        "proper-noun": 1,
        "excluded-letter": 2,
        "too-short": 1,
        "hyphen": 1,
        "apostrophe": 1,
        "abbreviation": 2,
        "digit": 1,
    }
    assert report.read == report.kept + report.duplicates + report.rejected_total
    assert report.examples["excluded-letter"] == ["kilo", "web"]
    lex = Lexicon.load(out)
    assert sorted(lex.words()) == ["ARBOL", "CASA", "MAÑANA", "ZUMO"]
    assert report.words == len(lex) == 4
    assert report.output == str(out) and report.output_bytes == out.stat().st_size
    assert "rejected excluded-letter: 2 (e.g. kilo, web)" in report.summary()


def test_latin1_list_is_detected(tmp_path: Path) -> None:
    source = write(tmp_path, "latin1.txt", "niño\ncañón\nágil\n", "latin-1")
    report = build_lexicon([source], "es", output=tmp_path / "out.dawg")
    assert sorted(Lexicon.load(tmp_path / "out.dawg").words()) == ["AGIL", "CAÑON", "NIÑO"]
    assert report.kept == 3


def test_gzipped_list_is_read(tmp_path: Path) -> None:
    path = tmp_path / "words.txt.gz"
    path.write_bytes(gzip.compress(b"zebra\nzen\n"))
    assert [entry for _, entry in read_word_list(path)] == ["zebra", "zen"]


def test_all_caps_list_keeps_its_words(tmp_path: Path) -> None:
    source = write(tmp_path, "caps.txt", "AA\nAAH\nZZZ\n")
    report = build_lexicon([source], "en", output=tmp_path / "out.dawg")
    assert report.kept == 3 and report.rejected_total == 0


def test_unreadable_file_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "missing.txt"
    with pytest.raises(LexiconError, match=r"missing\.txt: cannot read word list"):
        build_lexicon([missing], "en", output=tmp_path / "out.dawg")


def test_undecodable_bytes_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(b"good\nfine\nbad\x81word\n")
    with pytest.raises(LexiconError, match=r"bad\.txt:3: undecodable byte 0x81"):
        build_lexicon([path], "en", output=tmp_path / "out.dawg")


def test_nul_bytes_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "binary.txt"
    path.write_bytes(b"good\nba\0d\n")
    with pytest.raises(LexiconError, match=r"binary\.txt:2: NUL byte"):
        list(read_word_list(path))


def test_empty_result_is_an_error(tmp_path: Path) -> None:
    source = write(tmp_path, "nothing.txt", "kilo\nwalkman\n")
    with pytest.raises(LexiconError, match=r"no playable es words in .*nothing\.txt"):
        build_lexicon([source], "es", output=tmp_path / "out.dawg")
    assert not (tmp_path / "out.dawg").exists()


def test_unwritable_output_is_an_error(tmp_path: Path) -> None:
    source = write(tmp_path, "w.txt", "word\n")
    with pytest.raises(LexiconError, match="cannot write lexicon"):
        build_lexicon([source], "en", output=tmp_path / "no" / "such" / "dir" / "x.dawg")


def test_unknown_language_fails_before_reading(tmp_path: Path) -> None:
    with pytest.raises(KeyError, match="unknown language"):
        build_lexicon([tmp_path / "missing.txt"], "xx", output=tmp_path / "out.dawg")
