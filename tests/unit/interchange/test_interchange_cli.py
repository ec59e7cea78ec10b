"""``wordarena gcg check|replay`` through ``clients.cli.main.main``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gcg_support import ENGLISH, GCG_DIR, POLISH

from wordarena.clients.cli.main import main


def paths(*names: str) -> list[str]:
    return [str(GCG_DIR / n) for n in names]


def test_check_all_english_records_is_clean(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gcg", "check", *paths(*ENGLISH)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(ENGLISH) and all(line.endswith(": ok") for line in out)


def test_polish_record(capsys: pytest.CaptureFixture[str]) -> None:
    [polish] = paths(POLISH)
    assert main(["gcg", "check", "--language", "pl", polish]) == 0
    assert main(["gcg", "check", "--ruleset", "scrabble/pl", polish]) == 0
    capsys.readouterr()
    assert main(["gcg", "check", polish]) == 1
    out = capsys.readouterr().out
    assert f"{polish}:6: the record uses" in out and "--language pl" in out


def test_disagreements_are_printed_as_file_line(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    text = (GCG_DIR / "doug_v_emely.gcg").read_text().replace("WINDY +32 32", "WINDY +30 30")
    bad = tmp_path / "bad.gcg"
    bad.write_text(text)
    assert main(["gcg", "check", str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{bad}:3: 8D WINDY scores 32, the record says 30")
    assert out[1].startswith(f"{bad}:5: doug: 30 + 34 = 64, the record says 66")
    assert out[-1] == f"{bad}: 2 disagreement(s)"


def test_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.gcg"
    bad.write_text("#player1 a A\n#player2 b B\n>a: ABC - +5 5\n")
    assert main(["gcg", "check", "--json", str(bad), *paths("josh2.gcg")]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ruleset"] == "scrabble/en"
    first, second = report["files"]
    assert first["findings"] == [{"line": 3, "code": "score-mismatch",
                                  "message": "a pass scores 0, the record says 5"}]
    assert second["findings"] == []


def test_unreadable_and_malformed_input_exit_2(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    malformed = tmp_path / "malformed.gcg"
    malformed.write_text("#player1 a A\n#player2 b B\n>a: AB 8G AB +8\n")
    missing = tmp_path / "missing.gcg"
    assert main(["gcg", "check", str(malformed), str(missing), *paths("josh2.gcg")]) == 2
    out = capsys.readouterr().out
    assert f"{malformed}: error: line 3:" in out
    assert f"{missing}: error:" in out and "josh2.gcg: ok" in out
    assert main(["gcg", "check", "--ruleset", "chess", str(malformed)]) == 2


def test_replay_prints_the_board_after_each_play(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gcg", "replay", *paths("doug_v_emely.gcg")]) == 0
    out = capsys.readouterr().out
    assert "line 3: >doug: DINNVWY 8D WINDY +32 32" in out
    assert "  8 = . . W I N D Y . . . ' . . =" in out
    assert "    A B C D E F G H I J K L M N O" in out
    assert " g " in out  # the blank of RE.IgION in lowercase
    assert "scores: doug 451  emely 345" in out


def test_replay_unsupported_letters(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gcg", "replay", *paths(POLISH)]) == 1
    assert "--language pl" in capsys.readouterr().out
    assert main(["gcg", "replay", "--language", "pl", *paths(POLISH)]) == 0


def test_replay_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lonely = tmp_path / "lonely.gcg"
    lonely.write_text("#player1 a A\n>a: ABC - +0 0\n")
    assert main(["gcg", "replay", str(lonely)]) == 2
    assert main(["gcg", "replay", str(tmp_path / "missing.gcg")]) == 2
    assert main(["gcg", "check", str(lonely)]) == 2
    assert "players" in capsys.readouterr().err


def test_a_record_with_cross_words_after_the_totals_checks_clean(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # Quackle writes some move lines with the cross-words formed after the running total.
    text = (GCG_DIR / "doug_v_emely.gcg").read_text().replace("WINDY +32 32", "WINDY +32 32  WINDY")
    quackle = tmp_path / "quackle.gcg"
    quackle.write_text(text)
    assert main(["gcg", "check", str(quackle)]) == 0
    assert capsys.readouterr().out.strip() == f"{quackle}: ok"
    # A wrong total is still found, trailing text or not.
    quackle.write_text(text.replace("WINDY +32 32  WINDY", "WINDY +32 30  WINDY"))
    assert main(["gcg", "check", str(quackle)]) == 1
