"""Portal: wordarena's rule (docs/warofwords.md, "Portal"), one test per sentence.

The pair used throughout: P = G5 and Q = C11 (plain squares of the Open Field, except where a
test puts Q on D11 to reach the 2W on E11). Across, G5 leads to D11 and C11 leads to H5; down,
G5 leads to C12 and C11 leads to G6.
"""

from __future__ import annotations

import pytest
from wow_helpers import effect_events, game, marker, play, put, sq, word

from wordarena.engine.errors import Rule, RuleError
from wordarena.engine.game import Pass
from wordarena.engine.game import apply as apply_action
from wordarena.engine.placement import Placement, check_placement
from wordarena.engine.warofwords.arena import portal_links, portal_pairs
from wordarena.engine.warofwords.catalog import ACTIONS, Kind, Target

PAIR = [marker("portal", "G5", 0), marker("portal", "C11", 1)]


def _words(events) -> list[str]:
    return next(e for e in events if e.type == "play").data["words"]


def _score(events) -> int:
    return next(e for e in events if e.type == "play").data["score"]


# --- the tile and the supply ----------------------------------------------------------------


def test_portal_is_an_action_tile_put_on_an_empty_square_and_in_the_supply():
    from wordarena.engine.families import get_ruleset

    spec = ACTIONS["portal"]
    assert spec.kind is Kind.PERSISTENT and spec.target is Target.EMPTY
    counts = get_ruleset("warofwords").tiles.counts
    assert counts["@portal"] == 2
    assert get_ruleset("warofwords").tiles.value("@portal") == 0


def test_a_portal_needs_a_square_with_no_letter_no_scenery_and_no_action_tile():
    s = game(racks=[("@portal",), ()], tiles=[("8H", "CAT", 1)],
             effects=[marker("shield", "B2", 1)])
    with pytest.raises(RuleError) as err:
        play(s, 0, put("H8", "@portal"))
    assert err.value.rule is Rule.SQUARE_OCCUPIED
    with pytest.raises(RuleError) as err:
        play(s, 0, put("B2", "@portal"))
    assert err.value.rule is Rule.SQUARE_OCCUPIED
    fort = game("warofwords-fortress", racks=[("@portal",), ()])
    blocked = next(i for i, q in enumerate(fort.ruleset.board.squares) if q.blocked)
    with pytest.raises(RuleError) as err:
        apply_action(fort, _play_at(blocked, "@portal"))
    assert err.value.rule is Rule.SQUARE_BLOCKED


def _play_at(index: int, token: str):
    from wordarena.engine.game import Play

    return Play(0, (Placement(index // 15, index % 15, token),))


def test_the_first_portal_waits_and_the_next_one_anyones_pairs_with_it():
    s = game(racks=[("@portal",), ("@portal",)])
    s, _ = play(s, 0, put("G5", "@portal"))
    assert portal_links(s) == {}  # waiting: no effect on lines
    s, _ = play(s, 1, put("C11", "@portal"))
    assert portal_links(s) == {sq("G5"): sq("C11"), sq("C11"): sq("G5")}


def test_two_portals_in_one_play_pair_with_each_other_and_a_third_waits():
    s = game(racks=[("@portal", "@portal"), ()])
    s, _ = play(s, 0, put("G5", "@portal"), put("C11", "@portal"))
    assert portal_pairs([m for m in s.effects if hasattr(m, "kind")]) == [(sq("G5"), sq("C11"))]
    s = game(effects=[*PAIR, marker("portal", "M13", 0)])
    assert set(portal_links(s)) == {sq("G5"), sq("C11")}


def test_portals_put_down_in_a_play_do_not_bend_that_plays_own_letters():
    s = game(racks=[("A", "T", "@portal", "@portal"), ()], tiles=[("5F", "C", 1)])
    _, events = play(s, 0, word("5G", "AT"), put("G6", "@portal"), put("C11", "@portal"))
    assert _words(events) == ["CAT"]  # read plainly: F5 G5 H5


# --- geometry: lines through a portal ---------------------------------------------------------


def test_a_word_reaching_a_portal_square_continues_from_the_square_after_its_partner():
    s = game(racks=[("A", "T"), ()], tiles=[("5F", "C", 1)], effects=PAIR)
    s2, events = play(s, 0, put("G5", "A"), put("D11", "T"))  # two rows, one line
    assert _words(events) == ["CAT"]
    assert s2.cells[sq("C11")] is None  # the partner holds no letter of the word


def test_words_read_through_a_pair_in_either_direction():
    s = game(racks=[("A",), ()], tiles=[("11B", "C", 1), ("5H", "T", 1)], effects=PAIR)
    _, events = play(s, 0, put("C11", "A"))  # Q then the square after P
    assert _words(events) == ["CAT"]


def test_cross_words_and_the_down_direction_are_read_the_same_way():
    tiles = [("5F", "C", 1), ("11D", "T", 1), ("4G", "O", 1), ("12C", "X", 1)]
    s = game(racks=[("A",), ()], tiles=tiles, effects=PAIR)
    _, events = play(s, 0, put("G5", "A"))
    assert _words(events) == ["CAT", "OAX"]  # across F5 G5 D11; down G4 G5 C12


def test_without_a_pair_the_same_squares_are_not_in_one_line():
    s = game(racks=[("A", "T"), ()], tiles=[("5F", "C", 1)], effects=PAIR[:1])
    with pytest.raises(RuleError) as err:
        play(s, 0, put("G5", "A"), put("D11", "T"))
    assert err.value.rule is Rule.NOT_IN_LINE


# --- gaps ---------------------------------------------------------------------------------------


def test_no_gaps_is_checked_along_the_portal_path():
    s = game(racks=[("A", "T"), ()], tiles=[("5F", "C", 1)], effects=PAIR)
    with pytest.raises(RuleError) as err:
        play(s, 0, put("G5", "A"), put("E11", "T"))  # D11 left empty
    assert err.value.rule is Rule.GAP


def test_a_plain_row_across_a_portal_square_is_broken_by_it():
    s = game(racks=[("C", "A", "T"), ()], tiles=[("5E", "S", 1)], effects=PAIR)
    with pytest.raises(RuleError) as err:
        play(s, 0, word("5F", "CAT"))  # G5 leads to D11, so H5 is not after G5
    assert err.value.rule is Rule.NOT_IN_LINE


def test_letters_closing_a_ring_through_a_pair_are_refused():
    pair = [marker("portal", "G5", 0), marker("portal", "J5", 1)]  # J5 -> H5: H5 I5 J5 ring
    s = game(racks=[("A", "B", "C"), ()], tiles=[("4H", "O", 1)], effects=pair)
    with pytest.raises(RuleError) as err:
        play(s, 0, word("5H", "ABC"))
    assert err.value.rule is Rule.NOT_ALLOWED and "ring" in str(err.value)


# --- connection -------------------------------------------------------------------------------


def test_a_word_connects_through_a_portal_to_a_letter_beyond_it():
    s = game(racks=[("C", "A"), ()], tiles=[("11D", "T", 1)], effects=PAIR)
    _, events = play(s, 0, word("5F", "CA"))
    assert _words(events) == ["CAT"]
    plain = game(racks=[("C", "A"), ()], tiles=[("11D", "T", 1)])
    with pytest.raises(RuleError) as err:
        play(plain, 0, word("5F", "CA"))
    assert err.value.rule is Rule.NOT_CONNECTED


def test_the_square_after_a_portal_square_does_not_touch_it_across():
    s = game(racks=[("T",), ()], tiles=[("5G", "A", 1)], effects=PAIR)
    with pytest.raises(RuleError) as err:
        play(s, 0, put("H5", "T"))  # H5 is reached back from C11 (empty), not from G5
    assert err.value.rule is Rule.NOT_CONNECTED


def test_star_and_water_rules_are_unchanged():
    s = game(racks=[("A", "T"), ()], effects=[marker("portal", "G8", 0),
                                               marker("portal", "C11", 1)])
    _, events = play(s, 0, word("8H", "AT"))  # over the Star, H8 comes back from C11 (empty)
    assert _words(events) == ["AT"]


# --- scoring ----------------------------------------------------------------------------------


def test_a_word_through_a_portal_is_scored_by_the_shared_scorer_each_square_once():
    pair = [marker("portal", "G5", 0), marker("portal", "D11", 1)]  # G5 leads to E11 (2W)
    s = game(racks=[("A", "T"), ()], tiles=[("5F", "C", 1)], effects=pair)
    s2, events = play(s, 0, put("G5", "A"), put("E11", "T"))
    assert _words(events) == ["CAT"]
    assert _score(events) == (3 + 1 + 1) * 2
    assert s2.scores[0] == 10


def test_the_validator_reads_plainly_without_links():
    s = game(tiles=[("5F", "C", 1)], effects=PAIR)
    ps = [Placement(4, 6, "A"), Placement(4, 7, "T")]
    plain = check_placement(s.ruleset, s.cells, ps, 0)
    assert [len(w.squares) for w in plain.words] == [3]
    with pytest.raises(RuleError):
        check_placement(s.ruleset, s.cells, ps, 0, portal_links(s))


# --- destruction ------------------------------------------------------------------------------


def test_a_black_hole_swallowing_one_portal_closes_both():
    s = game(racks=[(), ()], effects=[*PAIR, marker("blackhole", "G6", 1, age=1)])
    s2, events = apply_action(s, Pass(0))  # grows to 3x3 over F5..H7, taking G5
    assert portal_links(s2) == {}
    assert not any(getattr(m, "kind", "") == "portal" for m in s2.effects)
    swallowed = effect_events(events, "swallowed")[0].data["tiles"]
    assert ["portal", "G5"] in swallowed and ["portal", "C11"] in swallowed


def test_other_destruction_leaves_the_pair_open():
    s = game(racks=[("@bomb",), ()], tiles=[("5F", "C", 1)], effects=PAIR)
    s2, _ = play(s, 0, put("G5", "@bomb"))
    assert set(portal_links(s2)) == {sq("G5"), sq("C11")}
