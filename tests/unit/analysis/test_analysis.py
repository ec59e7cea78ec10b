"""Hindsight, Word Strength, Tile Bag and the analyze command."""

from __future__ import annotations

import json

import pytest

from wordarena.clients.cli.main import main as cli
from wordarena.engine.analysis import check_position, hindsight, rank_text, tile_bag, word_strength
from wordarena.engine.errors import InputError
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Pass, set_rack, start_game
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.placement import Placement

EMPTY = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15"


@pytest.fixture(scope="module")
def opening():
    lexicon = load_lexicon("en")
    state, _ = start_game(get_ruleset("classic"), 2, 5, lexicon)
    return set_rack(state, 0, tuple("AEINRST"))


def test_tile_bag_counts_bag_and_other_racks(opening) -> None:
    bag = tile_bag(opening, 0)
    assert sum(bag.values()) == len(opening.bag) + len(opening.racks[1])
    total = opening.ruleset.tiles.total
    assert sum(bag.values()) == total - 7
    assert next(iter(bag)) == "A"


def test_word_strength_of_best_and_of_weaker_play(opening) -> None:
    best = word_strength(opening, [Placement(7, 7 + k, ch) for k, ch in enumerate("NASTIER")])
    assert best.valid and best.total > 1000
    weak = word_strength(opening, [Placement(7, 7, "A"), Placement(7, 8, "T")])
    assert weak.valid and weak.rank > best.rank
    assert weak.best is not None and weak.best.score >= best.score
    assert "of" in weak.describe() and "top" in weak.describe()


def test_word_strength_names_failing_words_and_broken_rules(opening) -> None:
    bad = word_strength(opening, [Placement(7, 7, "R"), Placement(7, 8, "T")])
    assert not bad.valid and bad.invalid_words == ("RT",)
    off = word_strength(opening, [Placement(0, 0, "A"), Placement(0, 1, "T")])
    assert not off.valid and off.code == "first-move-off-start"


def test_hindsight_reports_the_difference(opening) -> None:
    verdict = hindsight(opening, Pass(0), top=3)
    assert verdict.played_score == 0 and len(verdict.best) == 3
    assert verdict.best[0].difference == verdict.best[0].move.score > 0
    assert verdict.missed == verdict.best[0].difference


def test_rank_text() -> None:
    assert rank_text(4, 612) == "4th of 612, top 1 %"
    assert rank_text(1, 3) == "1st of 3, top 34 %"


def test_check_position_names_the_rack(opening) -> None:
    broken = opening.evolve(racks=(("A", "#"), opening.racks[1]))
    with pytest.raises(InputError) as err:
        check_position(broken)
    assert err.value.where == "rack 1"


def test_analyze_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli(["analyze", "--cgp", f"{EMPTY} AEINRST/ 0/0 0", "--ruleset", "classic",
                "--top", "3", "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["total"] > 1000 and len(data["moves"]) == 3
    move = data["moves"][0]
    assert {"score", "position", "word", "words", "tiles", "breakdown"} <= set(move)
    assert move["score"] == data["moves"][0]["breakdown"]["total"]
    assert len(move["tiles"]) == 7 and move["tiles"][0]["letter"] in "AEINRST"


@pytest.mark.parametrize(("cgp", "field"), [
    (f"{EMPTY} AEINRS#/ 0/0 0", "rack 1"),
    (f"{EMPTY} ???/ 0/0 0", "rack 1"),
    ("15/15 AB/ 0/0 0", "board"),
])
def test_analyze_bad_input_names_the_field(cgp: str, field: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["analyze", "--cgp", cgp]) == 2
    assert field in capsys.readouterr().err
