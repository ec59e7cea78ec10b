"""Replay and check: the reference records agree with the engine, and every kind of
disagreement is reported with its line."""

from __future__ import annotations

import pytest
from gcg_support import ENGLISH, GCG_DIR, POLISH, gcg, load

from wordarena.engine.errors import InputError
from wordarena.engine.families import get_ruleset
from wordarena.engine.interchange.check import check_record, replay_record
from wordarena.engine.interchange.gcg import parse_gcg

EN = get_ruleset("scrabble", "en")
PL = get_ruleset("scrabble", "pl")
WINDY = ">a: DINNVWY 8D WINDY +32 32"


def findings(text: str, **kwargs: bool) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in check_record(parse_gcg(text), EN, **kwargs)]


def mutated(name: str, old: str, new: str) -> str:
    text = (GCG_DIR / name).read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new)


@pytest.mark.parametrize("name", ENGLISH)
def test_english_records_agree_with_the_engine(name: str) -> None:
    assert check_record(load(name), EN) == []


def test_polish_record_checks_with_the_polish_set() -> None:
    assert check_record(load(POLISH), PL) == []


def test_polish_record_with_english_tiles_is_reported_unsupported() -> None:
    [finding] = check_record(load(POLISH), EN)
    assert (finding.line, finding.code) == (6, "unsupported-letters")
    assert "--language pl" in finding.message


def test_score_mismatch() -> None:
    text = mutated("doug_v_emely.gcg", "WINDY +32 32", "WINDY +30 32")
    [score, total] = check_record(parse_gcg(text), EN)
    assert (score.line, score.code) == (3, "score-mismatch")
    assert "scores 32, the record says 30" in score.message
    assert (total.line, total.code) == (3, "total-mismatch")


def test_total_mismatch_does_not_cascade() -> None:
    text = mutated("doug_v_emely.gcg", "DONATES +82 148", "DONATES +82 150")
    assert findings(text) == [(7, "total-mismatch")]
    text = mutated("doug_v_emely.gcg", "EAU +16 164", "EAU +16 166")
    assert findings(text) == [(10, "total-mismatch")]


def test_out_bonus_and_out_rack() -> None:
    text = mutated("doug_v_emely.gcg", "(OPEG) +14 345", "(OPEG) +12 343")
    assert findings(text) == [(30, "out-bonus-mismatch")]
    text = mutated("doug_v_emely.gcg", "(OPEG) +14 345", "(OPEGS) +16 347")
    assert findings(text) == [(30, "out-rack-mismatch")]


def test_illegal_placement_carries_the_engine_rule() -> None:
    assert findings(gcg(">a: CAT 1A CAT +10 10")) == [(3, "first-move-off-start")]
    assert findings(gcg(WINDY, ">b: AB 1A AB +4 4")) == [(4, "not-connected")]


def test_tiles_not_on_rack_and_tiles_not_in_bag() -> None:
    assert findings(gcg(">a: XYZ 8D WINDY +32 32")) == [(3, "tiles-not-on-rack")]
    codes = findings(gcg(">a: ZZ 8G ZZ +40 40"))
    assert codes == [(3, "rack-not-in-bag")]


def test_phony_taken_back() -> None:
    assert findings(gcg(WINDY, ">a: DINNVWY -- -32 0", ">b: DINNVWY 8D WINDY +32 32")) == []
    assert findings(gcg(WINDY, ">a: DINNVWY -- -30 2")) == [(4, "phony-score")]
    assert findings(gcg(WINDY, ">b: AB -- -32 -32")) == [(4, "nothing-to-withdraw")]


def test_adjustments() -> None:
    assert findings(gcg(WINDY, ">b: ?AEEOTT (?AEEOTT) -6 -6", ">b: NU (time) -10 -16",
                        ">a: X (challenge) +5 37")) == []
    assert findings(gcg(WINDY, ">b: ?AEEOTT (?AEEOTT) -5 -5")) == [(4, "end-penalty-mismatch")]
    assert findings(gcg(WINDY, ">b: NU (time) +10 10")) == [(4, "bad-adjustment")]


def test_pass_and_exchange() -> None:
    assert findings(gcg(">a: ABC - +0 0", ">b: ABCDEFG -ABC +0 0", ">a: ABC -3 +0 0")) == []
    assert findings(gcg(">a: ABC - +5 5")) == [(3, "score-mismatch")]
    assert findings(gcg(">a: ABC -XY +0 0")) == [(3, "tiles-not-on-rack")]


def test_exchange_needs_a_full_bag() -> None:
    text = mutated("guy_vs_bot.gcg", ">guy: CDDEOT - +0 454\n>bot: U", ">guy: CDDEOT -CD +0 454\n>bot: U")
    assert findings(text) == [(27, "exchange-bag-too-small")]


def test_turn_order() -> None:
    assert findings(gcg(WINDY, ">a: ABC - +0 32")) == [(4, "out-of-turn")]


def test_written_word_against_the_board() -> None:
    assert (4, "through-empty") in findings(gcg(WINDY, ">b: AB 9A A. +1 1"))
    assert (4, "through-mismatch") in findings(gcg(WINDY, ">b: JB E7 JXB +14 14"))
    assert findings(gcg(WINDY, ">b: JB E7 JIB +12 12")) == []  # Elise writes through letters
    assert findings(gcg(WINDY, ">b: JB E7 J(I)B +12 12")) == []
    assert (4, "word-mismatch") in findings(gcg(WINDY, ">b: AB 8I AB +15 15"))


def test_leaves_are_checked_on_request() -> None:
    record = load("incomplete.gcg")
    assert check_record(record, EN) == []
    codes = {f.code for f in check_record(record, EN, leaves=True)}
    assert codes == {"rack-mismatch"}


def test_three_players() -> None:
    record = parse_gcg("#player1 a A\n#player2 b B\n#player3 c C\n"
                       f"{WINDY}\n>b: ADEEGIL 7C GALE +16 16\n>c: ABC - +0 0\n"
                       ">a: AEJNOSV E3 JAVE..N +34 66\n")
    assert check_record(record, EN) == []


def test_replay_record_yields_each_state() -> None:
    steps = list(replay_record(load("doug_v_emely.gcg"), EN))
    assert [s.score for s in steps[:3]] == [32, 16, 34]
    tiles = sum(1 for t in steps[-1].state.cells if t is not None)
    assert tiles == 100 - 4  # every tile but doug's OPEG


def test_player_count_outside_the_ruleset() -> None:
    with pytest.raises(InputError, match="players"):
        check_record(parse_gcg("#player1 a A\n>a: ABC - +0 0\n"), EN)
