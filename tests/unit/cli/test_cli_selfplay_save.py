"""``wordarena selfplay --save DIR``: one GCG record per game, that ``gcg check`` reads clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wordarena.clients.cli.main import main
from wordarena.clients.cli.selfplay_cmd import record_name
from wordarena.engine.interchange import parse_gcg, record_ruleset_id


def test_save_writes_one_record_per_game_named_by_ruleset_seed_and_number(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "records"
    assert main(["selfplay", "--ruleset", "scrabble", "--levels", "1,2", "--games", "3",
                 "--seed", "7", "--save", str(folder)]) == 0
    names = sorted(p.name for p in folder.iterdir())
    assert names == [f"scrabble_en-seed7-game00{n}.gcg" for n in (1, 2, 3)]
    assert names[0] == record_name("scrabble/en", 7, 0)
    capsys.readouterr()
    for n, name in enumerate(names):
        record = parse_gcg((folder / name).read_bytes())
        assert record_ruleset_id(record) == "scrabble/en"
        assert ("seed", str(7 + n)) in record.pragmas
        levels = [p.name for p in record.players]
        assert levels == (["Bot level 1 (beginner)", "Bot level 2 (casual)"] if n % 2 == 0
                          else ["Bot level 2 (casual)", "Bot level 1 (beginner)"]), levels
    assert main(["gcg", "check", "--ruleset", "scrabble/en", *map(str, sorted(folder.iterdir()))]) == 0
    assert capsys.readouterr().out.count(": ok") == 3


def test_save_into_a_path_that_is_a_file_is_refused(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["selfplay", "--games", "1", "--levels", "1,1", "--save", str(blocker)]) == 2
    assert "--save" in capsys.readouterr().err


def test_gcg_check_reads_the_ruleset_from_the_records_own_pragma(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A War of Words record checked with no --ruleset: its #ruleset pragma says what to replay
    # (the default, scrabble, would find every action tile wrong).
    folder = tmp_path / "wow"
    assert main(["selfplay", "--ruleset", "warofwords", "--levels", "1,1", "--games", "2",
                 "--save", str(folder)]) == 0
    capsys.readouterr()
    assert main(["gcg", "check", "--json", *map(str, sorted(folder.iterdir()))]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {f["ruleset"] for f in report["files"]} == {"warofwords/en"}
    assert all(f["findings"] == [] for f in report["files"])
