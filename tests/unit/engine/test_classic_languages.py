"""Classic in every language with a system word list: a few real moves of a game in Spanish,
Italian, Portuguese, German and French, words checked against that language's lexicon.

"All diacritics are ignored but Ñ is accepted. K and W are absent" (Spanish), "The letters J, K,
W, X and Y are absent" (Italian), "Ç is a separate tile … K, W and Y are absent" (Portuguese),
"Umlauts (Ä, Ö and Ü) are accepted … Eszett (ß) is … replaced by SS" (German), "Ligatures are
represented with two letters" (French): words-with-friends-classic.txt."""

from __future__ import annotations

import os

import pytest

from wordarena.engine.errors import Rule, RuleError
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Play, apply, set_rack, start_game
from wordarena.engine.lexicon import SOURCES, load_lexicon
from wordarena.engine.movegen import generate_moves
from wordarena.engine.notation import placements_from_word

LANGUAGES = ("es", "it", "pt", "de", "fr")


def _lexicon(language: str):
    source = SOURCES[language]
    if not source.sources[0].exists():
        message = f"{source.sources[0]} missing: apt-get install {source.debian_package}"
        if os.environ.get("CI"):
            pytest.fail(message + " (scripts/setup installs it)")
        pytest.skip(message)
    return load_lexicon(language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_classic_game_in_each_language_plays_real_words(language: str) -> None:
    lexicon = _lexicon(language)
    ruleset = get_ruleset("classic", language)
    state, _ = start_game(ruleset, 2, seed=11, lexicon=lexicon)
    played = 0
    for _ in range(6):
        moves = generate_moves(state)
        if not moves:
            break
        state, events = apply(state, moves[0].to_play(state.to_move))
        words = events[0].data["words"]
        assert words and all(w in lexicon for w in words), words
        assert all(set(w) <= set(ruleset.tiles.letters) for w in words)
        played += 1
    assert played >= 4
    assert state.scores[0] > 0 and state.scores[1] > 0


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_word_of_another_language_is_refused(language: str) -> None:
    lexicon = _lexicon(language)
    ruleset = get_ruleset("classic", language)
    word = next(w for w in ("HOUSE", "BRIDGE", "DOG", "THE", "PLUG")
                if w not in lexicon and all(ruleset.tiles.has_letter(t) for t in w))
    state, _ = start_game(ruleset, 2, seed=3, lexicon=lexicon)
    state = set_rack(state, 0, tuple(word))
    placements = placements_from_word(ruleset.board, state.cells, "8E", word)
    with pytest.raises(RuleError) as err:
        apply(state, Play(0, placements))
    assert err.value.rule is Rule.WORD_NOT_IN_LEXICON and err.value.words == (word,)


def test_spanish_n_tilde_words_are_playable() -> None:
    lexicon = _lexicon("es")
    ruleset = get_ruleset("classic", "es")
    assert "AÑO" in lexicon and ruleset.tiles.has_letter("Ñ")
    state, _ = start_game(ruleset, 2, seed=5, lexicon=lexicon)
    state = set_rack(state, 0, ("A", "Ñ", "O"))
    state, events = apply(state, Play(0, placements_from_word(ruleset.board, state.cells, "8G", "AÑO")))
    assert events[0].data["words"] == ["AÑO"]
    assert events[0].data["score"] == sum(ruleset.tiles.value(t) for t in "AÑO")


def test_german_umlaut_words_are_playable() -> None:
    lexicon = _lexicon("de")
    ruleset = get_ruleset("classic", "de")
    word = next(w for w in ("ÄRGER", "ÖL", "ÜBER", "SCHÖN") if w in lexicon)
    state, _ = start_game(ruleset, 2, seed=5, lexicon=lexicon)
    state = set_rack(state, 0, tuple(word))
    state, events = apply(state, Play(0, placements_from_word(ruleset.board, state.cells, "8G", word)))
    assert events[0].data["words"] == [word]
