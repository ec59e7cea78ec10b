"""Rulesets as data: every board matches the reference (``data/reference_rulesets.json``, a copy
of the public facts gathered in shared/reference/rulesets.json, kept in the repo so the test
never depends on a file beside it) square for square, tile sets have the reference counts and
values, and each family's policies say what its rules say."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from wordarena.engine.errors import InputError
from wordarena.engine.families import get_ruleset, parse_ruleset_id
from wordarena.engine.rulesets import (
    FAMILIES,
    LANGUAGES,
    FirstPlay,
    OutRule,
    WordCheck,
    WordFactor,
    list_rulesets,
    load_layout,
    load_tileset,
)
from wordarena.engine.rulesets.layout import STAR, WATER, parse_layout

REFERENCE = Path(__file__).parent / "data" / "reference_rulesets.json"


@pytest.fixture(scope="module")
def reference():
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


def _board_json(board_id: str) -> dict:
    path = resources.files("wordarena.engine.rulesets") / "data" / "boards" / f"{board_id}.json"
    return json.loads(path.read_text(encoding="utf-8"))


BOARDS = [("words_with_friends", "classic"), ("literaki", "wordtiles"),
          ("scrabble", "scrabble"), ("super_scrabble", "superscrabble")]


@pytest.mark.parametrize(("ref_id", "board_id"), BOARDS)
def test_board_layout_matches_the_reference_exactly(reference, ref_id, board_id):
    ref = reference[ref_id]
    ours = _board_json(board_id)
    assert ours["layout"] == ref["layout"]
    assert ours["start"] == ref["start_square"]
    layout = load_layout(board_id)
    assert [layout.rows, layout.cols] == ref["board_size"]
    counts: dict[str, int] = {}
    for row in ref["layout"]:
        for ch in row:
            counts[ch] = counts.get(ch, 0) + 1
    assert counts == ref["square_counts"]


@pytest.mark.parametrize(("ref_id", "board_id"), BOARDS)
def test_board_squares_follow_the_legend(reference, ref_id, board_id):
    """d/t/q multiply a letter by 2/3/4, D/T/Q a word, y/g/b/r are colour squares 1/2/3/5."""
    layout = load_layout(board_id)
    want = {".": (1, 1, 0), "d": (2, 1, 0), "t": (3, 1, 0), "q": (4, 1, 0), "D": (1, 2, 0),
            "T": (1, 3, 0), "Q": (1, 4, 0), "y": (1, 1, 1), "g": (1, 1, 2), "b": (1, 1, 3),
            "r": (1, 1, 5)}
    for y, row in enumerate(reference[ref_id]["layout"]):
        for x, ch in enumerate(row):
            sq = layout.square(y, x)
            assert (sq.letter_mult, sq.word_mult, sq.colour) == want[ch], (board_id, x, y)


def test_centre_squares():
    """WWF centre star has no bonus; the colour board's centre is red; Scrabble's is a DW."""
    assert load_layout("classic").square(7, 7).label == ""
    assert load_layout("wordtiles").square(7, 7).colour == 5
    assert load_layout("scrabble").square(7, 7).word_mult == 2


def _tiles(tileset_id: str) -> dict[str, list[int]]:
    ts = load_tileset(tileset_id)
    return {t: [ts.counts[t], ts.values.get(t, 0)] for t in ts.counts}


def test_classic_english_tiles_match_the_reference(reference):
    """Words With Friends English: 104 tiles, 2 blanks, the reference counts and values."""
    ref = reference["words_with_friends"]
    assert _tiles("classic-en") == ref["tiles"]
    assert load_tileset("classic-en").total == ref["tiles_total"] == 104
    assert _tiles("classic-en-gb") == ref["tiles"]  # same tiles, British word list


def test_scrabble_tiles_match_the_reference(reference):
    assert _tiles("scrabble-en") == reference["scrabble"]["tiles"]
    assert load_tileset("scrabble-en").total == 100
    assert _tiles("scrabble-pl") == reference["scrabble"]["tiles_by_locale"]["pl"]


def test_wordtiles_polish_tiles_match_the_reference(reference):
    ref = reference["literaki"]["tiles_by_locale"]["pl"]
    assert _tiles("wordtiles-pl") == ref
    assert load_tileset("wordtiles-pl").total == 100


def test_wordtiles_english_values_all_have_a_colour(reference):
    """Every wordtiles tile value is in {1, 2, 3, 5} so that each tile has a colour; English keeps
    the Scrabble counts and maps 4 -> 3, 8 and 10 -> 5."""
    en = load_tileset("wordtiles-en")
    literaxx = reference["literaki"]["tiles_by_locale"]["en_literaxx"]["tiles"]
    mapping = {0: 0, 1: 1, 2: 2, 3: 3, 4: 3, 5: 5, 8: 5, 10: 5}
    for token, (count, value) in literaxx.items():
        assert en.counts[token] == count
        assert en.values.get(token, 0) == mapping[value], token
    for lang in LANGUAGES["wordtiles"]:
        ts = load_tileset(f"wordtiles-{lang}")
        assert {ts.values[t] for t in ts.letters} <= {1, 2, 3, 5}, lang


@pytest.mark.parametrize(("lang", "absent", "present"), [
    ("es", "KW", "Ñ"), ("it", "JKWXY", ""), ("pt", "KWY", "Ç"), ("de", "", "ÄÖÜ"), ("fr", "", ""),
])
def test_classic_language_letter_rules(lang, absent, present):
    """words-with-friends-classic.txt: Spanish has Ñ and no K/W; Italian no J, K, W, X, Y;
    Portuguese Ç and no K, W, Y; German umlauts; no ß, no ligature tiles; 2 blanks."""
    ts = load_tileset(f"classic-{lang}")
    for letter in absent:
        assert not ts.has_letter(letter), (lang, letter)
    for letter in present:
        assert ts.has_letter(letter), (lang, letter)
    for letter in ("ß", "Œ", "Æ", "LL", "RR", "CH"):
        assert not ts.has_letter(letter)
    assert ts.counts.get("?") == 2


def test_warofwords_boards():
    """At least two War of Words boards: a plain one with a centre Star, and one with Water and
    Stars off-centre (no start square: a word stands on a Star or Water)."""
    field, oasis = load_layout("warofwords-field"), load_layout("warofwords-oasis")
    assert field.square(7, 7).terrain == STAR and field.start is None
    assert oasis.start is None and oasis.square(7, 7).terrain != STAR
    assert any(sq.terrain == WATER for sq in oasis.squares)
    stars = [divmod(i, oasis.cols) for i, sq in enumerate(oasis.squares) if sq.terrain == STAR]
    assert stars and (7, 7) not in stars
    assert get_ruleset("warofwords", "en", "warofwords-oasis").board is oasis


def test_family_policies():
    """The numbers each rule text gives, as ruleset data."""
    c, w, s, v = (get_ruleset(f) for f in ("classic", "wordtiles", "scrabble", "warofwords"))
    assert [r.rack_size for r in (c, w, s, v)] == [7, 7, 7, 8]
    assert [(b.count, b.bonus) for b in c.bingos] == [(7, 35)]
    assert [(b.count, b.bonus) for b in w.bingos] == [(7, 50)]
    assert [(b.count, b.bonus) for b in s.bingos] == [(7, 50)]
    assert [(b.count, b.bonus, b.letters_only) for b in v.bingos] == [
        (8, 100, True), (7, 65, True), (8, 40, False)]
    assert v.word_factor is WordFactor.ADD and c.word_factor is WordFactor.MULTIPLY
    assert w.colour_bonus == 3 and c.colour_bonus == s.colour_bonus == v.colour_bonus == 0
    assert w.word_check is WordCheck.DEFERRED and c.word_check is WordCheck.IMMEDIATE
    assert v.first_play is FirstPlay.STAR_OR_WATER and w.first_play_min_tiles == 2
    assert (w.exchange.min_bag, w.exchange.per_player) == (7, 3)
    assert v.exchange.per_player == 5 and c.exchange.per_player is None
    assert (c.min_players, c.max_players) == (2, 2)
    assert (w.min_players, w.max_players) == (v.min_players, v.max_players) == (2, 4)
    assert c.out_rule is OutRule.TRANSFER and w.out_rule is OutRule.TRANSFER
    assert v.out_rule is OutRule.DEDUCT and s.out_rule is OutRule.DOUBLE
    assert v.bonus_letter and v.bonus_letter_points == 10 and not c.bonus_letter
    assert v.idle_kick and not (c.idle_kick or w.idle_kick or s.idle_kick)


def test_every_listed_ruleset_loads_and_describes_itself():
    listed = list_rulesets()
    assert {r["family"] for r in listed} == set(FAMILIES)
    for entry in listed:
        for board in entry["boards"]:
            ruleset = get_ruleset(entry["family"], entry["language"], board)
            described = json.loads(json.dumps(ruleset.describe()))
            assert described["family"] == entry["family"]
            assert described["tiles"]["total"] == ruleset.tiles.total
            # action tiles (the bots' tactics, effect moves) are War of Words' alone
            assert ruleset.tiles.has_actions == (entry["family"] == "warofwords")


@pytest.mark.parametrize("bad", ["chess", "classic/xx", "classic/en/warofwords-field",
                                 "warofwords/en/classic", "a/b/c/d", "", "classic//"])
def test_unknown_rulesets_are_input_errors(bad):
    with pytest.raises(InputError):
        parse_ruleset_id(bad)


def test_malformed_board_is_an_input_error():
    with pytest.raises(InputError, match="row 1"):
        parse_layout({"id": "x", "layout": ["...", ".."]})
    with pytest.raises(InputError, match="unknown square"):
        parse_layout({"id": "x", "layout": ["..Z"]})
    with pytest.raises(InputError):
        load_layout("no-such-board")
