"""CGP: exact text round trips, positions to and from wordarena.engine states, field-named errors, and a
property test over random engine positions."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordarena.engine.errors import InputError
from wordarena.engine.families import get_ruleset, parse_ruleset_id
from wordarena.engine.game import GameState, start_game
from wordarena.engine.interchange.cgp import (
    UNKNOWN_OWNER,
    format_cgp,
    parse_cgp,
    position_from_cgp,
    position_to_cgp,
)
from wordarena.engine.tiles import BLANK, WILDCARD, Tile, is_action

EMPTY = "/".join(["15"] * 15)
MAVEN = (
    "5BERGS5/4PA3U5/2QAID3R5/3BEE3F2S2/1P1ET2VIATIC2/MA1TAW3c2H2/ES3IS2E2A2/AT1FOLIA4V2/"
    "LI1L1EX1E6/1N1O1D2N2Y3/1GNU2C1JETE3/2ER2OHO2N3/2O3GOY6/1INDOW1U7/4DORR7 "
    "IKLMTZ/AEINRU? 0/0 0 lex OSPD1;"
)


def test_macondo_examples_round_trip_exactly() -> None:
    opening = f"{EMPTY} AELNOQT/ 0/0 0 lex NWL18; lm exchange 2;"
    for text in (MAVEN, opening):
        assert format_cgp(parse_cgp(text)) == text
    cgp = parse_cgp(opening)
    assert cgp.racks == (tuple("AELNOQT"), ())
    assert cgp.operations == (("lex", ("NWL18",)), ("lm", ("exchange", "2")))
    assert cgp.option("lm") == "exchange 2" and cgp.option("bdn") is None


def test_position_from_cgp() -> None:
    state = position_from_cgp(MAVEN)
    assert state.ruleset.id == "scrabble/en"
    assert state.racks == (tuple("IKLMTZ"), tuple("AEINRU?"))
    assert state.bag == ()  # every tile is on the board or a rack
    assert state.to_move == 0 and state.scores == (0, 0) and state.zero_run == 0
    assert state.cells[5 * 15 + 9] == Tile("C", True, UNKNOWN_OWNER)  # 'c' on 6J: a blank
    assert not state.check_words


def test_position_to_cgp_starts_with_the_player_to_move() -> None:
    text = f"{EMPTY} ABC/DEF/GH 10/20/30 2 ruleset scrabble/en;"
    state = position_from_cgp(text).evolve(to_move=2)
    again = parse_cgp(position_to_cgp(state))
    assert again.racks == (("G", "H"), tuple("ABC"), tuple("DEF"))
    assert again.scores == (30, 10, 20) and again.zero_turns == 2
    assert again.option("ruleset") == "scrabble/en" and again.option("ld") == "english"
    assert again.option("bdn") == "CrosswordGame" and again.option("lex") == "en"


@pytest.mark.parametrize("options, ruleset_id", [
    ("", "scrabble/en"),
    ("ld english;", "scrabble/en"),
    ("bdn CrosswordGame; ld polish;", "scrabble/pl"),
    ("ld wordtiles-pl;", "wordtiles/pl"),
    ("ruleset classic/en;", "classic/en"),
    ("ruleset scrabble/en/superscrabble;", "scrabble/en/superscrabble"),
])
def test_the_ruleset_a_cgp_names(options: str, ruleset_id: str) -> None:
    rows = 21 if "superscrabble" in ruleset_id else 15
    board = "/".join([str(rows)] * rows)
    state = position_from_cgp(f"{board} AB/CD 0/0 0 {options}".strip())
    assert state.ruleset.id == ruleset_id


def test_ruleset_argument_is_the_fallback() -> None:
    classic = get_ruleset("classic", "en")
    assert position_from_cgp(f"{EMPTY} A/B 0/0 0", classic).ruleset is classic
    text = f"{EMPTY} A/B 0/0 0 ruleset scrabble/en;"
    assert position_from_cgp(text, classic).ruleset.id == "scrabble/en"


def test_multi_character_tiles_in_brackets() -> None:
    text = "[CH]2[ll]/4 [RR]?/A 1/-2 0"
    cgp = parse_cgp(text)
    assert cgp.board[0] == (("CH", False), None, None, ("LL", True))
    assert cgp.racks == (("RR", BLANK), ("A",)) and cgp.scores == (1, -2)
    assert format_cgp(cgp) == text
    with pytest.raises(InputError) as info:
        position_from_cgp(f"[CH]14/{'/'.join(['15'] * 14)} A/B 0/0 0")
    assert info.value.where == "board row 1"


def test_four_racks() -> None:
    board = "/".join(["15"] * 15)
    state = position_from_cgp(f"{board} A/B/C/D 1/2/3/4 0 ruleset wordtiles/pl;")
    assert state.players == 4 and state.scores == (1, 2, 3, 4)
    assert len(state.bag) == state.ruleset.tiles.total - 4


@pytest.mark.parametrize("text, where", [
    ("15/15 AB", "cgp"),
    ("15/15 A/B 0/0 0", "board"),
    (f"{EMPTY.replace('15', '14', 1)} A/B 0/0 0", "board"),
    (f"ZZ13/{'/'.join(['15'] * 14)} A/B 0/0 0", "board"),
    (f"0/{EMPTY} A/B 0/0 0", "board row 1"),
    (f"?14/{'/'.join(['15'] * 14)} A/B 0/0 0", "board row 1"),
    (f"{EMPTY} Ab/B 0/0 0", "rack 1"),
    (f"{EMPTY} A/B% 0/0 0", "rack 2"),
    (f"{EMPTY} ZZ/B 0/0 0", "rack 1"),
    (f"Z14/{'/'.join(['15'] * 14)} A/Z 0/0 0", "rack 2"),
    (f"{EMPTY} ABCDEFGH/B 0/0 0", "rack 1"),
    (f"{EMPTY} A/B 0 0", "scores"),
    (f"{EMPTY} A/B 0/x 0", "score 2"),
    (f"{EMPTY} A/B 0/0 -1", "zero turns"),
    (f"{EMPTY} A/B 0/0 z", "zero turns"),
    (f"{EMPTY} A 0 0", "racks"),
    (f"{EMPTY} A/B 0/0 0 lex X", "operations"),
    (f"{EMPTY} A/B 0/0 0 lex X;;", "operation 2"),
    (f"{EMPTY} A/B 0/0 0 ld klingon;", "ld"),
    (f"{EMPTY} A/B 0/0 0 ruleset chess/en;", "ruleset"),
    (f"[CH/{'/'.join(['15'] * 14)} A/B 0/0 0", "board row 1"),
])
def test_errors_name_the_field(text: str, where: str) -> None:
    with pytest.raises(InputError) as info:
        position_from_cgp(text)
    assert info.value.where == where


# --- property: emit, parse, emit again -----------------------------------------------------

RULESETS = ["scrabble/en", "scrabble/pl", "classic/en", "classic/es", "wordtiles/pl",
            "warofwords/en", "scrabble/en/superscrabble"]


@st.composite
def positions(draw: st.DrawFn) -> GameState:
    """A random engine position: a dealt game with random tiles laid on the board."""
    ruleset = parse_ruleset_id(draw(st.sampled_from(RULESETS)))
    players = draw(st.integers(ruleset.min_players, ruleset.max_players))
    state, _ = start_game(ruleset, players, draw(st.integers(0, 10**6)), check_words=False)
    layout = ruleset.board
    free = [i for i, sq in enumerate(layout.squares) if not sq.blocked]
    letters = [t for t in state.bag if not is_action(t)]
    count = draw(st.integers(0, min(len(letters), 60)))
    squares = draw(st.lists(st.sampled_from(free), min_size=count, max_size=count, unique=True))
    cells = list(state.cells)
    bag = list(state.bag)
    for square, token in zip(squares, letters, strict=False):
        bag.remove(token)
        letter = draw(st.sampled_from(ruleset.tiles.letters)) if token == BLANK else token
        cells[square] = Tile(letter, token == BLANK, draw(st.integers(0, players - 1)))
    scores = tuple(draw(st.integers(-50, 700)) for _ in range(players))
    return state.evolve(cells=tuple(cells), bag=tuple(bag), scores=scores,
                        to_move=draw(st.integers(0, players - 1)),
                        zero_run=draw(st.integers(0, 5)))


@settings(max_examples=60, deadline=None)
@given(positions())
def test_cgp_round_trip_on_random_positions(state: GameState) -> None:
    text = position_to_cgp(state)
    back = position_from_cgp(text)
    assert position_to_cgp(back) == text
    assert back.ruleset.id == state.ruleset.id
    assert [(t.letter, t.blank) if t else None for t in back.cells] == \
        [(t.letter, t.blank) if t else None for t in state.cells]
    n = state.players
    order = [(state.to_move + k) % n for k in range(n)]
    assert back.racks == tuple(state.racks[s] for s in order)
    assert back.scores == tuple(state.scores[s] for s in order)
    assert Counter(back.bag) == Counter(state.bag)
    assert back.zero_run == state.zero_run
    if state.ruleset.family != "warofwords":  # only War of Words has the wildcard tile
        assert WILDCARD not in text
