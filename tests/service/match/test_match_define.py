"""Define over real gRPC on loopback, against a small WordNet database the test writes itself
(WordNet's own file format: index.<pos> gives synset offsets, data.<pos> the glosses), so every
expected value is written here by hand."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from grpc_helpers import refused
from match_harness import Harness

from wordarena.services.common.errors import detail
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m

QUIZ_NOUN = ('03 n 01 quiz 0 000 | an examination consisting of a few short questions; '
             '"the teacher gave a quiz"')
QUIZ_VERB = "31 v 01 quiz 0 000 | examine someone's knowledge of something"
ZAX_NOUN = "03 n 01 zax 0 000 | a hatchet for cutting roof slates"
RILE_VERB = "37 v 01 rile 0 000 | cause annoyance in"  # a verb only: found after no noun


def _write_wordnet(directory: Path) -> None:
    """index.noun / index.verb and data.noun / data.verb with the entries above."""
    entries_by_pos = {"noun": [("quiz", QUIZ_NOUN), ("zax", ZAX_NOUN)],
                      "verb": [("quiz", QUIZ_VERB), ("rile", RILE_VERB)]}
    for pos, entries in entries_by_pos.items():
        data, index = b"  1 This is a header line of the WordNet licence.\n", []
        for lemma, rest in entries:
            offset = len(data)
            data += f"{offset:08d} {rest}\n".encode()
            index.append(f"{lemma} {pos[0]} 1 1 @ 1 0 {offset:08d}  \n")
        (directory / f"data.{pos}").write_bytes(data)
        (directory / f"index.{pos}").write_text("  1 header\n" + "".join(sorted(index)), encoding="utf-8")
    for pos in ("adj", "adv"):
        (directory / f"data.{pos}").write_text("", encoding="utf-8")
        (directory / f"index.{pos}").write_text("", encoding="utf-8")


async def test_define_gives_each_sense_with_its_part_of_speech_gloss_and_examples(
        harness: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wordnet = tmp_path / "wordnet"
    wordnet.mkdir()
    _write_wordnet(wordnet)
    monkeypatch.setenv("WORDARENA_WORDNET_DIR", str(wordnet))
    srv = await harness.start()
    alice = harness.player(srv, "alice")

    got = await alice.stub.Define(m.DefineRequest(word="Quiz"), metadata=alice.md)
    assert got.word == "QUIZ" and got.source == "WordNet 3.0"
    assert [(d.part_of_speech, d.text, list(d.examples)) for d in got.definitions] == [
        ("noun", "an examination consisting of a few short questions", ["the teacher gave a quiz"]),
        ("verb", "examine someone's knowledge of something", []),
    ]
    zax = await alice.stub.Define(m.DefineRequest(word="zax", language="en"), metadata=alice.md)
    assert [(d.part_of_speech, d.text) for d in zax.definitions] == [
        ("noun", "a hatchet for cutting roof slates")]
    rile = await alice.stub.Define(m.DefineRequest(word="RILE"), metadata=alice.md)
    assert [(d.part_of_speech, d.text) for d in rile.definitions] == [("verb", "cause annoyance in")]

    # A word the dictionary lacks: NOT_FOUND naming it.
    err = await refused(alice.stub.Define(m.DefineRequest(word="qoph"), metadata=alice.md))
    assert err.code() == grpc.StatusCode.NOT_FOUND and "QOPH" in (err.details() or "")
    # Empty, over-long or not a word: INVALID_ARGUMENT.
    for word in ("", "A" * 33, "quiz!"):
        err = await refused(alice.stub.Define(m.DefineRequest(word=word), metadata=alice.md))
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, word
    # No dictionary for the language: FAILED_PRECONDITION DICTIONARY_UNAVAILABLE.
    err = await refused(alice.stub.Define(m.DefineRequest(word="casa", language="es"), metadata=alice.md))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert detail(err, e.RuleViolation).code == e.RULE_CODE_DICTIONARY_UNAVAILABLE
    # Without a token: UNAUTHENTICATED.
    err = await refused(alice.stub.Define(m.DefineRequest(word="quiz")))
    assert err.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_define_without_a_dictionary_installed_is_dictionary_unavailable(
        harness: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from wordarena.services.match import define

    monkeypatch.setenv("WORDARENA_WORDNET_DIR", str(tmp_path))  # empty: no index.noun
    monkeypatch.setattr(define, "WORDNET_DIRS", ())
    srv = await harness.start()
    alice = harness.player(srv, "alice")
    err = await refused(alice.stub.Define(m.DefineRequest(word="quiz"), metadata=alice.md))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert detail(err, e.RuleViolation).code == e.RULE_CODE_DICTIONARY_UNAVAILABLE
