"""``wordarena lexicon``: the CLI glue (clients/cli/lexicon_cmd.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from wordarena.clients.cli import lexicon_cmd


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="wordarena")
    lexicon_cmd.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return lexicon_cmd.run(args)


def test_build_writes_a_lexicon_and_prints_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "words.txt"
    source.write_text("hola\nniño\nkilo\n", encoding="utf-8")
    additions = tmp_path / "add.txt"
    additions.write_text("# extra\nsol\n", encoding="utf-8")
    out = tmp_path / "es.dawg"
    code = run(
        "lexicon",
        "build",
        "--language",
        "es",
        "--additions",
        str(additions),
        "--output",
        str(out),
        str(source),
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "kept 3" in printed and "rejected excluded-letter: 1 (e.g. kilo)" in printed
    assert run("lexicon", "check", str(out), "niño", "sol") == 0
    assert run("lexicon", "check", str(out), "kilo") == 1


def test_build_error_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.txt"
    code = run("lexicon", "build", "--language", "en", "--output", str(tmp_path / "o.dawg"), str(missing))
    assert code == 2
    assert f"{missing}: cannot read word list" in capsys.readouterr().err


def test_info_on_the_default_lexicon(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("lexicon", "info", "en") == 0
    assert "words:    274138" in capsys.readouterr().out
