"""``wordarena gcg hindsight``: every turn of a record judged against all legal moves."""

from __future__ import annotations

import json
from pathlib import Path

from wordarena.clients.cli.main import main
from wordarena.engine.analysis.record import review_record
from wordarena.engine.families import get_ruleset
from wordarena.engine.interchange.gcg import MoveKind, parse_gcg
from wordarena.engine.lexicon import load_lexicon

RECORD = Path(__file__).parents[1] / "interchange" / "gcg" / "doug_v_emely.gcg"


def test_every_turn_with_a_known_rack_is_reviewed_and_ranked() -> None:
    record = parse_gcg(RECORD.read_bytes())
    reviews = list(review_record(record, get_ruleset("scrabble", "en"), load_lexicon("en")))
    turns = [m for m in record.moves if m.kind in (MoveKind.PLAY, MoveKind.PASS,
                                                   MoveKind.EXCHANGE) and m.rack]
    assert [r.line for r in reviews] == [m.line for m in turns]
    for review in reviews:
        verdict = review.verdict
        assert verdict.best, review
        # The best alternative is never worse than what was played, and the rank agrees.
        assert verdict.best[0].move.score >= verdict.played_score
        if verdict.rank == 1:
            assert verdict.missed == 0
    him = next(r for r in reviews if r.played == "N1 HIM")
    assert (him.verdict.played_score, him.verdict.rank, him.verdict.missed) == (42, 1, 0)


def test_cli_annotates_a_record_as_json(capsys) -> None:
    assert main(["gcg", "hindsight", "--json", "--top", "2", str(RECORD)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["turns"] and all(len(t["best"]) <= 2 for t in out["turns"])
    first = out["turns"][0]
    assert first["played"] == "8D WINDY" and first["played_score"] == 32


def test_cli_reports_unreadable_record(capsys, tmp_path) -> None:
    assert main(["gcg", "hindsight", str(tmp_path / "missing.gcg")]) == 2
    assert "cannot read" in capsys.readouterr().err
