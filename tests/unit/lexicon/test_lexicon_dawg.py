"""The flat-array DAWG: exactness, the node walk, minimality, and the file format's errors."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordarena.engine.lexicon import ALPHABETS, Lexicon, LexiconError, compile_words, load_lexicon

ABC = ("A", "B", "C")
small_words = st.sets(st.text(alphabet="ABC", min_size=1, max_size=7), min_size=1, max_size=60)


def walk_all(lex: Lexicon) -> set[str]:
    """Every word reachable by children(), spelled by the walk itself (not lex.words())."""
    found: set[str] = set()
    stack = [(lex.root, "")]
    while stack:
        node, spelled = stack.pop()
        if lex.is_terminal(node) and spelled:
            found.add(spelled)
        for letter, child in lex.children(node):
            stack.append((child, spelled + letter))
    return found


@settings(max_examples=200, deadline=None)
@given(small_words, st.lists(st.text(alphabet="ABC", min_size=0, max_size=8), max_size=30))
def test_contains_equals_set_membership(words: set[str], probes: list[str]) -> None:
    lex = compile_words(words, "en", ABC)
    assert len(lex) == len(words)
    for probe in [*probes, *words]:
        assert (probe in lex) == (probe in words), probe


@settings(max_examples=200, deadline=None)
@given(small_words)
def test_children_walk_enumerates_exactly_the_set(words: set[str]) -> None:
    lex = compile_words(words, "en", ABC)
    assert walk_all(lex) == words
    assert list(lex.words()) == sorted(words)


@settings(max_examples=100, deadline=None)
@given(small_words)
def test_reversed_prefixes_hold_every_prefix_spelled_backwards(words: set[str]) -> None:
    lex = compile_words(words, "en", ABC)
    backwards = lex.reversed_prefixes
    assert backwards is not None and backwards.reversed_prefixes is None
    expected = {word[:end][::-1] for word in words for end in range(1, len(word) + 1)}
    assert set(backwards.words()) == expected
    # reading a string backwards: its children are the letters that precede it in some word
    for word in words:
        tail = word[-2:]
        node = backwards.walk(tail[::-1])
        preceding = {word[i - 1] for word in words for i in range(1, len(word))
                     if word[i:i + len(tail)] == tail}
        assert set(backwards.child_letters(node)) == preceding


def test_reversed_prefixes_can_be_left_out() -> None:
    lex = compile_words({"CAB", "CAT"}, "en", (*ABC, "T"), reversed_prefixes=False)
    assert lex.reversed_prefixes is None
    assert Lexicon.from_bytes(lex.to_bytes()).reversed_prefixes is None


@settings(max_examples=100, deadline=None)
@given(small_words)
def test_file_round_trip_is_exact(words: set[str]) -> None:
    lex = compile_words(words, "en", ABC)
    again = Lexicon.from_bytes(lex.to_bytes())
    assert list(again.words()) == sorted(words)
    assert again.to_bytes() == lex.to_bytes()
    assert (again.language, again.alphabet) == ("en", ABC)
    assert again.reversed_prefixes is not None and lex.reversed_prefixes is not None
    assert list(again.reversed_prefixes.words()) == list(lex.reversed_prefixes.words())


@settings(max_examples=100, deadline=None)
@given(small_words)
def test_child_and_child_map_agree_with_children(words: set[str]) -> None:
    lex = compile_words(words, "en", ABC)
    for node in range(lex.node_count):
        pairs = list(lex.children(node))
        assert lex.child_map(node) == dict(pairs)
        assert lex.child_letters(node) == "".join(letter for letter, _ in pairs)
        for letter in ABC:
            assert lex.child(node, letter) == dict(pairs).get(letter, -1)


def test_dawg_is_minimal_on_shared_suffixes() -> None:
    # Four words, two prefixes x two suffixes: a trie has 11 nodes, the minimal DAWG 5.
    lex = compile_words({"CATS", "CAT", "BATS", "BAT"}, "en", ABC + tuple("STX"))
    assert lex.node_count == 5
    assert lex.walk("CA") == lex.walk("BA")


def test_children_come_in_alphabet_order_not_code_point_order() -> None:
    lex = compile_words({"AÑO", "AZO", "ANO", "ACA"}, "es", ALPHABETS["es"])
    assert lex.child_letters(lex.walk("A")) == "CNÑZ"
    assert list(lex.words()) == ["ACA", "ANO", "AÑO", "AZO"]


def test_walk_and_membership_edge_cases() -> None:
    lex = compile_words({"AB", "ABC"}, "en", ALPHABETS["en"])
    assert "" not in lex
    assert "A" not in lex
    assert "ab" not in lex  # words are upper case
    assert 42 not in lex
    assert lex.walk("Z") == -1
    assert lex.child(lex.root, "Z") == -1
    assert lex.is_terminal(lex.walk("AB"))
    assert not lex.is_terminal(lex.walk("A"))
    assert list(lex.words("AB")) == ["AB", "ABC"]
    assert list(lex.words("Q")) == []


def test_compiler_rejects_letters_outside_the_alphabet() -> None:
    with pytest.raises(LexiconError, match="outside the alphabet"):
        compile_words({"KILO"}, "es", ALPHABETS["es"])
    with pytest.raises(LexiconError, match="empty word"):
        compile_words({""}, "en", ALPHABETS["en"])


def test_compile_is_deterministic() -> None:
    words = [f"{a}{b}{c}" for a in "ABCD" for b in "EFG" for c in "HIJKL"]
    one = compile_words(words, "en", ALPHABETS["en"]).to_bytes()
    random.Random(7).shuffle(words)
    assert compile_words(words, "en", ALPHABETS["en"]).to_bytes() == one


def test_default_english_random_sample_present_and_nonwords_absent() -> None:
    lex = load_lexicon("en")
    rng = random.Random(2024)
    sample = rng.sample(list(lex.words("CA")), 500)
    assert all(word in lex for word in sample)
    for word in sample[:200]:
        assert word + "QX" not in lex  # no English word ends in QX
        assert "Q" + word[1:] + "JJ" not in lex
    for word in ("AARDVARK", "QI", "ZA", "ZEN", "TEXTING", "QUIXOTIC"):
        assert word in lex, word
    for word in ("AARDVARKZ", "XQZ", "QQ", "ZZZZZZ"):
        assert word not in lex, word


# -- malformed files -----------------------------------------------------------------------


@pytest.fixture
def good_bytes() -> bytes:
    return compile_words({"CAB", "CAT", "AT"}, "en", ALPHABETS["en"]).to_bytes()


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "bad.dawg"
    path.write_bytes(data)
    return path


def test_malformed_too_short(tmp_path: Path) -> None:
    path = write(tmp_path, b"WADA")
    with pytest.raises(LexiconError, match=r"bad\.dawg: not a compiled lexicon: file too short"):
        Lexicon.load(path)


def test_malformed_bad_magic(tmp_path: Path, good_bytes: bytes) -> None:
    path = write(tmp_path, b"NOTADAWG" + good_bytes[8:])
    with pytest.raises(LexiconError, match="bad magic"):
        Lexicon.load(path)


def test_malformed_wrong_version(tmp_path: Path, good_bytes: bytes) -> None:
    data = good_bytes[:8] + struct.pack("<H", 99) + good_bytes[10:]
    with pytest.raises(LexiconError, match="unsupported lexicon format version 99"):
        Lexicon.load(write(tmp_path, data))


def test_malformed_truncated(tmp_path: Path, good_bytes: bytes) -> None:
    with pytest.raises(LexiconError, match="truncated"):
        Lexicon.load(write(tmp_path, good_bytes[:-3]))


def test_malformed_corrupt_payload(tmp_path: Path, good_bytes: bytes) -> None:
    data = bytearray(good_bytes)
    data[-5] ^= 0xFF
    with pytest.raises(LexiconError, match="checksum mismatch"):
        Lexicon.load(write(tmp_path, bytes(data)))


def test_malformed_header_strings(tmp_path: Path, good_bytes: bytes) -> None:
    data = bytearray(good_bytes)
    data[struct.calcsize("<8sHHIIIIII")] = 200  # language length past the header
    with pytest.raises(LexiconError, match="header too short for the language field"):
        Lexicon.load(write(tmp_path, bytes(data)))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(LexiconError, match=r"nope\.dawg: cannot read compiled lexicon"):
        Lexicon.load(tmp_path / "nope.dawg")


def test_text_file_is_not_a_lexicon(tmp_path: Path) -> None:
    with pytest.raises(LexiconError, match="bad magic"):
        Lexicon.load(write(tmp_path, b"aardvark\nabacus\nzebra\nzen\n" * 4))


def test_malformed_reversed_prefixes(tmp_path: Path, good_bytes: bytes) -> None:
    # the reversed-prefix section is a whole file of its own after the payload
    plain = compile_words({"CAB", "CAT", "AT"}, "en", ALPHABETS["en"], reversed_prefixes=False)
    with pytest.raises(LexiconError, match=r"\(reversed prefixes\): not a compiled lexicon"):
        Lexicon.load(write(tmp_path, plain.to_bytes() + b"junk"))
    # only one level: nothing may follow the reversed prefixes
    with pytest.raises(LexiconError, match=r"\(reversed prefixes\): oversized"):
        Lexicon.load(write(tmp_path, good_bytes + plain.to_bytes()))


class _Listed:
    """A lexicon that only answers ``in``: ``resolve_word`` then tries every filling in turn."""

    def __init__(self, lex: Lexicon) -> None:
        self.lex = lex

    def __contains__(self, word: object) -> bool:
        return word in self.lex


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_wildcard_reading_is_the_first_filling_in_letter_order(data) -> None:
    """War of Words' wildcards: the DAWG's one-walk reading (``first_reading``) is the reading
    that trying every filling, letters in the given order, finds first, or None for both; on
    words of the English list with 1-3 letters replaced, and on strings that spell nothing."""
    from wordarena.engine.tiles import WILDCARD
    from wordarena.engine.words import resolve_word

    lex = load_lexicon("en")
    letters = data.draw(st.permutations(list(ALPHABETS["en"])))
    if data.draw(st.booleans()):
        word = data.draw(st.sampled_from(_SOME_WORDS))
    else:
        word = data.draw(st.text(alphabet="AEIOUSTRNXQZ", min_size=2, max_size=9))
    holes = data.draw(st.sets(st.integers(0, len(word) - 1), min_size=1, max_size=min(3, len(word))))
    text = "".join(WILDCARD if i in holes else ch for i, ch in enumerate(word))
    expected = resolve_word(text, _Listed(lex), letters)
    assert resolve_word(text, lex, letters) == expected
    if word in lex:
        assert expected is not None


_SOME_WORDS = ("QI", "ZA", "CAT", "JINX", "QUARTZ", "RETAINS", "STRAINED", "OXYPHENBUTAZONE",
               "AA", "EXCEPTIONAL", "WHIZZ", "ZYZZYVA")
