"""Normalisation rules per language (engine.lexicon.normalize), one rule per test."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordarena.engine.lexicon import ALPHABETS, Reason, normalize, normalize_word
from wordarena.engine.lexicon.normalize import normalize_by_rules


def reason(raw: str, language: str, **kw: bool) -> Reason | None:
    return normalize(raw, language, **kw).reason


# -- every language ------------------------------------------------------------------------


@pytest.mark.parametrize("language", sorted(ALPHABETS))
def test_every_language_uppercases_plain_words(language: str) -> None:
    assert normalize_word("tram", language) == "TRAM"


@pytest.mark.parametrize("language", sorted(ALPHABETS))
def test_every_language_rejects_hyphens_apostrophes_digits_spaces(language: str) -> None:
    assert reason("abat-jour", language) is Reason.HYPHEN
    assert reason("-ness", language) is Reason.HYPHEN
    assert reason("aujourd'hui", language) is Reason.APOSTROPHE
    assert reason("rock’n", language) is Reason.APOSTROPHE
    assert reason("mp3", language) is Reason.DIGIT
    assert reason("ad hoc", language) is Reason.SPACE


@pytest.mark.parametrize("language", sorted(ALPHABETS))
def test_every_language_rejects_abbreviations(language: str) -> None:
    assert reason("etc.", language) is Reason.ABBREVIATION
    assert reason("NATO", language) is Reason.ABBREVIATION
    assert reason("U.S.A.", language) is Reason.ABBREVIATION


@pytest.mark.parametrize("language", sorted(ALPHABETS))
def test_every_language_drops_words_shorter_than_two_letters(language: str) -> None:
    assert reason("a", language) is Reason.TOO_SHORT
    assert reason("", language) is Reason.EMPTY
    assert reason("   ", language) is Reason.EMPTY


@pytest.mark.parametrize("language", sorted(ALPHABETS))
def test_every_language_rejects_letters_of_other_scripts(language: str) -> None:
    assert reason("привет", language) is Reason.FOREIGN_LETTER
    assert reason("a+b", language) is Reason.SYMBOL


@pytest.mark.parametrize("language", sorted(ALPHABETS))
def test_every_language_output_is_within_its_alphabet(language: str) -> None:
    alphabet = set(ALPHABETS[language])
    for raw in ("éléphant", "straße", "mañana", "cœur", "ação", "żółć", "über", "ærø"):
        word = normalize_word(raw, language)
        if word is not None:  # None: the word cannot be written in this language
            assert set(word) <= alphabet, (raw, word)


@pytest.mark.parametrize("language", sorted(ALPHABETS))
def test_every_language_normalises_decomposed_input_like_composed(language: str) -> None:
    decomposed = "cafe\u0301"  # e + combining acute
    assert normalize_word(decomposed, language) == normalize_word("café", language)


def test_proper_nouns_are_rejected_when_the_list_has_lowercase_words() -> None:
    assert reason("Aachen", "en") is Reason.PROPER_NOUN
    assert reason("Madrid", "es") is Reason.PROPER_NOUN
    assert reason("McDonald", "pt") is Reason.MIXED_CASE


def test_capitals_carry_no_meaning_in_an_all_caps_list() -> None:
    assert normalize_word("AARDVARK", "en", case_marks_proper=False) == "AARDVARK"
    assert normalize_word("Aardvark", "en", case_marks_proper=False) == "AARDVARK"


# -- English -------------------------------------------------------------------------------


def test_english_us_and_gb_use_the_26_latin_letters_and_fold_loanword_accents() -> None:
    for language in ("en", "en-gb"):
        assert len(ALPHABETS[language]) == 26
        assert normalize_word("café", language) == "CAFE"
        assert normalize_word("naïve", language) == "NAIVE"
        assert normalize_word("colour", language) == "COLOUR"


# -- Spanish -------------------------------------------------------------------------------


def test_spanish_keeps_n_tilde_and_rejects_k_w() -> None:
    assert normalize_word("mañana", "es") == "MAÑANA"
    assert reason("kilo", "es") is Reason.EXCLUDED_LETTER
    assert reason("whisky", "es") is Reason.EXCLUDED_LETTER
    assert "K" not in ALPHABETS["es"] and "W" not in ALPHABETS["es"]


def test_spanish_drops_other_diacritics() -> None:
    assert normalize_word("árbol", "es") == "ARBOL"
    assert normalize_word("pingüino", "es") == "PINGUINO"
    assert normalize_word("canción", "es") == "CANCION"


def test_spanish_has_no_digraph_tiles() -> None:
    assert normalize_word("llorar", "es") == "LLORAR"
    assert normalize_word("perro", "es") == "PERRO"
    assert normalize_word("chico", "es") == "CHICO"
    assert all(len(letter) == 1 for letter in ALPHABETS["es"])


# -- Italian -------------------------------------------------------------------------------


def test_italian_drops_diacritics() -> None:
    assert normalize_word("perché", "it") == "PERCHE"
    assert normalize_word("città", "it") == "CITTA"
    assert normalize_word("così", "it") == "COSI"


def test_italian_rejects_j_k_w_x_y() -> None:
    for raw in ("jeans", "kiwi", "web", "taxi", "yogurt"):
        assert reason(raw, "it") is Reason.EXCLUDED_LETTER, raw
    assert not set("JKWXY") & set(ALPHABETS["it"])


# -- Portuguese ----------------------------------------------------------------------------


def test_portuguese_keeps_c_cedilla_and_drops_other_diacritics() -> None:
    assert normalize_word("ação", "pt") == "AÇAO"
    assert normalize_word("você", "pt") == "VOCE"
    assert normalize_word("pássaro", "pt") == "PASSARO"


def test_portuguese_rejects_k_w_y() -> None:
    for raw in ("kiwi", "darwinismo", "yoga"):
        assert reason(raw, "pt") is Reason.EXCLUDED_LETTER, raw
    assert not set("KWY") & set(ALPHABETS["pt"])


# -- German --------------------------------------------------------------------------------


def test_german_keeps_umlauts() -> None:
    assert normalize_word("über", "de") == "ÜBER"
    assert normalize_word("Äpfel", "de") == "ÄPFEL"
    assert normalize_word("schön", "de") == "SCHÖN"


def test_german_spells_eszett_as_ss() -> None:
    assert normalize_word("Straße", "de") == "STRASSE"
    assert normalize_word("groß", "de") == "GROSS"


def test_german_drops_other_diacritics() -> None:
    assert normalize_word("Café", "de") == "CAFE"
    assert normalize_word("Señor", "de") == "SENOR"


def test_german_capitalised_nouns_are_not_proper_nouns() -> None:
    assert normalize_word("Haus", "de") == "HAUS"
    assert reason("ADAC", "de") is Reason.ABBREVIATION
    assert reason("BahnCard", "de") is Reason.MIXED_CASE


# -- French --------------------------------------------------------------------------------


def test_french_drops_diacritics() -> None:
    assert normalize_word("élève", "fr") == "ELEVE"
    assert normalize_word("garçon", "fr") == "GARCON"
    assert normalize_word("forêt", "fr") == "FORET"


def test_french_ligatures_become_two_letters() -> None:
    assert normalize_word("cœur", "fr") == "COEUR"
    assert normalize_word("nævus", "fr") == "NAEVUS"
    assert normalize_word("ŒUVRE", "fr", case_marks_proper=False) == "OEUVRE"


# -- Polish --------------------------------------------------------------------------------


def test_polish_keeps_its_letters() -> None:
    assert normalize_word("żółć", "pl") == "ŻÓŁĆ"
    assert normalize_word("gęś", "pl") == "GĘŚ"
    assert normalize_word("źdźbło", "pl") == "ŹDŹBŁO"
    assert normalize_word("koń", "pl") == "KOŃ"
    assert normalize_word("mąka", "pl") == "MĄKA"


def test_polish_rejects_q_v_x() -> None:
    for raw in ("quiz", "video", "xero"):
        assert reason(raw, "pl") is Reason.EXCLUDED_LETTER, raw


def test_unknown_language_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="unknown language"):
        normalize_word("word", "xx")


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(ALPHABETS)),
    st.text(alphabet="abcñçäößéœłżAÑZ-' .", min_size=0, max_size=8),
    st.booleans(),
)
def test_fast_path_agrees_with_the_full_rules(language: str, raw: str, case: bool) -> None:
    full = normalize_by_rules(raw, language, ALPHABETS[language], case)
    assert normalize(raw, language, case_marks_proper=case).word == full.word
