"""The one scorer: per-family policies and the breakdown a client shows."""

from __future__ import annotations

import json

from engine_helpers import move, new_game, play

from wordarena.engine.board import with_tiles
from wordarena.engine.families import get_ruleset
from wordarena.engine.placement import check_placement
from wordarena.engine.scoring import BoardEffects, bingo_bonus, score_play, word_factor


def _score(family, position, word, tiles=(), effects=None, board=None):
    ruleset = get_ruleset(family, "en", board)
    effects = effects or BoardEffects()
    state = new_game(family, board=board, check=False, tiles=tiles, racks=None)
    cells = state.cells
    geometry = check_placement(ruleset, cells, move(position, word), 0)
    after = with_tiles(cells, geometry.placed)
    texts = ["".join(after[i].letter for i in w.squares) for w in geometry.words]
    tokens = [p.token for p in move(position, word)]
    return score_play(ruleset, after, geometry, texts, tokens, effects)


def test_breakdown_explains_every_point():
    """Per word: letters, premiums (square, kind, factor), word factor and score; then the bingo
    and the total, which is their sum. The breakdown is JSON-ready."""
    breakdown = _score("classic", "8B", "RETAINS")
    data = json.loads(json.dumps(breakdown.to_dict()))
    assert data["total"] == 16 + 35 and data["bingo"] == 35
    (word,) = data["words"]
    assert word["word"] == "RETAINS" and word["letter_sum"] == 8 and word["word_factor"] == 2
    assert word["premiums"] == [{"square": "D8", "kind": "DW", "factor": 2}]
    assert data["total"] == sum(w["score"] for w in data["words"]) + data["bingo"]


def test_breakdown_names_premiums_per_family():
    classic = _score("classic", "7E", "D.G", tiles=[("7F", "O")])
    assert [p.kind for p in classic.words[0].premiums] == ["DL"]
    colour = _score("wordtiles", "8H", "ZA")
    assert [(p.square, p.kind, p.factor) for p in colour.words[0].premiums] == [("H8", "red", 3)]
    wow = _score("warofwords", "8D", "B..", tiles=[("8E", "AD")])
    assert [(p.kind, p.factor) for p in wow.words[0].premiums] == [("4L", 4)]
    wow2 = _score("warofwords", "2B", "B", tiles=[("B3", "AT")])
    assert [(p.kind, p.factor) for p in wow2.words[0].premiums] == [("2W", 2)]


def test_word_factor_policies():
    classic, wow = get_ruleset("classic"), get_ruleset("warofwords")
    assert word_factor(classic, []) == word_factor(wow, []) == 1
    assert word_factor(classic, [2, 2]) == 4 and word_factor(classic, [2, 3]) == 6
    assert word_factor(wow, [2, 2]) == 4 and word_factor(wow, [2, 3]) == 5
    assert word_factor(wow, [3, 5]) == 8


def test_bingo_needs_the_whole_count():
    classic = get_ruleset("classic")
    assert bingo_bonus(classic, list("RETAIN")) == 0
    assert bingo_bonus(classic, list("RETAINS")) == 35
    assert bingo_bonus(get_ruleset("scrabble"), list("RETAIN?")) == 50


def test_irradiated_board_makes_every_letter_worth_one():
    """warofwords: "If the board is irradiated ... all letters are worth 1 point." (board state
    from the Nuclear Bomb; the scorer already honours it)."""
    plain = _score("warofwords", "8G", "ZOO")
    hot = _score("warofwords", "8G", "ZOO", effects=BoardEffects(irradiated=True))
    assert plain.total == 12 and hot.total == 3


def test_electrified_water_multiplies_letters_played_on_it():
    """warofwords: a letter played on electrified Water is multiplied by the patch's charge."""
    ruleset = get_ruleset("warofwords", "en", "warofwords-oasis")
    patches = max(ruleset.board.water_patch) + 1
    charge = BoardEffects(electrification=(4,) * patches)
    plain = _score("warofwords", "4D", "AT", board="warofwords-oasis")
    wet = _score("warofwords", "4D", "AT", board="warofwords-oasis", effects=charge)
    assert plain.total == 2 and wet.total == 8
    assert {p.kind for p in wet.words[0].premiums} == {"water"}


def test_blank_never_takes_a_colour_bonus():
    state = new_game("wordtiles", check=False, racks=["?ATSEOX", "QIZAEON"])
    _, events = play(state, 0, "8H", "zA")
    assert events[0].data["score"] == 1
    assert events[0].data["breakdown"]["words"][0]["premiums"] == []


def test_letter_and_word_premiums_combine_under_one_tile():
    """A new tile on a letter premium inside a word on a word premium: letters first, then the
    word factor. HEATS on row 1 of the Scrabble board: H on A1 (TW), T on D1 (DL), S old."""
    breakdown = _score("scrabble", "1A", "HEAT.", tiles=[("1E", "S")])
    assert breakdown.total == (4 + 1 + 1 + 1 * 2 + 1) * 3


def test_premium_names_are_the_ones_players_read():
    """The breakdown names each premium as the board shows it (DL TL QL, DW TW QW), in reading
    order, with the square and the factor."""
    heats = _score("scrabble", "1A", "HEAT.", tiles=[("1E", "S")])
    assert [(p.square, p.kind, p.factor) for p in heats.words[0].premiums] == [
        ("A1", "TW", 3), ("D1", "DL", 2)]
    at = _score("scrabble", "6F", "A.", tiles=[("6G", "T")])
    assert [(p.square, p.kind, p.factor) for p in at.words[0].premiums] == [("F6", "TL", 3)]
    assert at.total == 1 * 3 + 1
    quad_word = _score("scrabble", "1A", "A.", tiles=[("1B", "T")], board="superscrabble")
    assert [(p.square, p.kind, p.factor) for p in quad_word.words[0].premiums] == [("A1", "QW", 4)]
    assert quad_word.total == (1 + 1) * 4
    quad_letter = _score("scrabble", "3F", "A.", tiles=[("3G", "T")], board="superscrabble")
    assert [(p.square, p.kind, p.factor) for p in quad_letter.words[0].premiums] == [("F3", "QL", 4)]
    assert quad_letter.total == 1 * 4 + 1


def test_water_charged_twice_doubles_and_uncharged_water_is_no_premium():
    ruleset = get_ruleset("warofwords", "en", "warofwords-oasis")
    patches = max(ruleset.board.water_patch) + 1
    double = _score("warofwords", "4D", "AT", board="warofwords-oasis",
                    effects=BoardEffects(electrification=(2,) * patches))
    assert double.total == (1 + 1) * 2
    calm = _score("warofwords", "4D", "AT", board="warofwords-oasis",
                  effects=BoardEffects(electrification=(1,) * patches))
    assert calm.total == 2 and calm.words[0].premiums == ()


def test_tile_value_without_board_effects_is_the_face_value():
    from wordarena.engine.scoring import tile_value
    from wordarena.engine.tiles import Tile

    assert tile_value(get_ruleset("classic"), Tile("Q", False, 0)) == 10
    assert tile_value(get_ruleset("classic"), Tile("Q", True, 0)) == 0


def test_breakdown_lists_each_letter_as_the_player_reads_it():
    """Every letter of a word in the breakdown a client shows (the dict stored with the play
    event): its square (row × 15 + column), the letter as it reads (a blank in lower case), its
    face value, whether it is new, its letter factor, the water's charge and the points it adds.
    DOG on row 7 of the classic board: D (2) new on E7, a double letter; O (1) already there; a
    blank as G (0) new on G7."""
    dog = _score("classic", "7E", "D.g", tiles=[("7F", "O")]).to_dict()
    (word,) = dog["words"]
    assert word["letters"] == [
        {"square": 6 * 15 + 4, "letter": "D", "value": 2, "new": True, "factor": 2,
         "electrification": 1, "points": 4},
        {"square": 6 * 15 + 5, "letter": "O", "value": 1, "new": False, "factor": 1,
         "electrification": 1, "points": 1},
        {"square": 6 * 15 + 6, "letter": "g", "value": 0, "new": True, "factor": 1,
         "electrification": 1, "points": 0},
    ]
    assert word["letter_sum"] == dog["total"] == 2 * 2 + 1 + 0
    # Whole numbers in the JSON the event log stores (2.0 == 2 would pass the line above).
    assert json.dumps(word["letters"][0]) == (
        '{"square": 94, "letter": "D", "value": 2, "new": true, "factor": 2, "electrification": 1, '
        '"points": 4}')
    # War of Words: AT on the oasis board's water charged to 3 — the charge is its own column,
    # not a letter factor, and each letter's points are value × charge.
    ruleset = get_ruleset("warofwords", "en", "warofwords-oasis")
    charged = BoardEffects(electrification=(3,) * (max(ruleset.board.water_patch) + 1))
    at = _score("warofwords", "4D", "AT", board="warofwords-oasis", effects=charged).to_dict()
    letters = at["words"][0]["letters"]
    assert [(x["letter"], x["factor"], x["electrification"], x["points"]) for x in letters] == [
        ("A", 1, 3, 3), ("T", 1, 3, 3)]
    assert at["total"] == 6


def test_a_breakdown_handed_out_cannot_be_changed_by_its_reader():
    """The breakdown, its words, letters and premiums are the ones the game state keeps (a
    pending play's breakdown is shown again on every view): whoever reads one cannot change
    the score everybody else sees."""
    import dataclasses

    import pytest

    breakdown = _score("classic", "7E", "D.g", tiles=[("7F", "O")])
    word = breakdown.words[0]
    for obj, name in ((breakdown, "total"), (word, "score"), (word.letters[0], "points"),
                      (word.premiums[0], "factor"), (BoardEffects(), "irradiated")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, name, 99)
    assert breakdown.total == word.score == 5
