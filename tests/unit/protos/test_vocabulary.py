"""The contract's comments speak the catalogue's vocabulary: every example a .proto comment
quotes (ruleset ids, board ids, language codes, rule ids) is a real value of the engine's
catalogue, and every seat range a comment states for a family is the range the ruleset has.
A sentence in a .proto comment is a promise: a made-up example ("wwf", "river_delta") is a lie
a client author will type in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from wordarena.engine.errors import Rule
from wordarena.engine.families import get_ruleset
from wordarena.engine.rulesets import list_rulesets
from wordarena.engine.rulesets.catalog import DEFAULT_BOARD

PROTOS = Path(__file__).resolve().parents[3] / "protos" / "wordarena" / "v1"
QUOTED = re.compile(r'"([^"\n]*)"')
LANGUAGE_LIKE = re.compile(r"\A[a-z]{2}(?:[-_][A-Za-z]{2})?\Z")
ID_LIKE = re.compile(r"\A[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*\Z")
#: Quoted lower-case words that are not catalogue values: WordNet's parts of speech, gRPC's
#: metadata key of rich error details.
OTHER_WORDS = {"noun", "verb", "adjective", "adverb", "grpc-status-details-bin"}

FAMILY_NAMES = {"classic": "classic", "wordtiles": "wordtiles", "warofwords": "warofwords",
                "scrabble": "scrabble", "Word Tiles": "wordtiles", "War of Words": "warofwords",
                "Words With Friends": "classic", "Scrabble": "scrabble"}


def _comments() -> list[tuple[str, int, str]]:
    """(file, line number, comment text) of every comment line of the contract."""
    out = []
    for path in sorted(PROTOS.glob("*.proto")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            _, sep, comment = line.partition("//")
            if sep:
                out.append((path.name, n, comment.strip()))
    return out


def _catalogue() -> tuple[set[str], set[str], set[str]]:
    entries = list_rulesets()
    return ({e["family"] for e in entries}, {b for e in entries for b in e["boards"]},
            {e["language"] for e in entries})


def _seat_range(family: str) -> tuple[int, int]:
    rs = get_ruleset(family, "en", DEFAULT_BOARD[family])
    return rs.min_players, rs.max_players


def test_every_quoted_example_is_a_catalogue_value() -> None:
    families, boards, languages = _catalogue()
    rules = {r.value if hasattr(r, "value") else str(r) for r in Rule}
    wrong = []
    for name, n, text in _comments():
        quoted = QUOTED.findall(text)
        for q in quoted:
            if LANGUAGE_LIKE.match(q):
                # an input form in another case is quoted only beside the form servers answer
                ok = q in languages or (q.lower() in languages and q.lower() in quoted)
            elif ID_LIKE.match(q):
                ok = q in families | boards | rules | OTHER_WORDS
            else:
                continue
            if not ok:
                wrong.append(f"{name}:{n}: {q!r}")
    assert not wrong, "quoted examples that are not catalogue values:\n" + "\n".join(wrong)


def test_the_ruleset_ref_examples_name_every_family_and_real_boards_and_languages() -> None:
    families, boards, languages = _catalogue()
    common = (PROTOS / "common.proto").read_text(encoding="utf-8")
    ref = common[common.index("message RulesetRef") : common.index("message Square")]
    quoted = set(QUOTED.findall(ref))
    assert families <= quoted  # every ruleset id is named
    assert {b for b in quoted if b in boards} >= {"classic", "scrabble", "wordtiles"}
    assert any(b.startswith("warofwords-") for b in quoted)
    assert {"en", "en-gb"} <= quoted & languages


SEATS = re.compile(
    r"(?P<fams>(?:classic|wordtiles|warofwords|scrabble)"
    r"(?:(?:, | and )(?:classic|wordtiles|warofwords|scrabble))*)"
    r": (?P<lo>\d)(?:\.\.(?P<hi>\d))?(?![.\d])"
)
PLAYERS = re.compile(r"(?P<lo>\d)(?:-|\.\.| to )(?P<hi>\d) players")


def test_every_seat_range_a_comment_states_for_a_family_is_the_rulesets() -> None:
    stated = 0
    wrong = []
    for name, n, text in _comments():
        for m in SEATS.finditer(text):
            lo = int(m["lo"])
            hi = int(m["hi"] or lo)
            for fam in re.split(r", | and ", m["fams"]):
                stated += 1
                if _seat_range(fam) != (lo, hi):
                    wrong.append(f"{name}:{n}: {fam} {lo}..{hi}, the ruleset says {_seat_range(fam)}")
        for m in PLAYERS.finditer(text):
            fams = {f for label, f in FAMILY_NAMES.items() if label in text}
            if name == "common.proto":
                assert len(fams) <= 1, f"{name}:{n}: ambiguous family"
            for fam in fams:
                stated += 1
                if _seat_range(fam) != (int(m["lo"]), int(m["hi"])):
                    got = f"{m['lo']}..{m['hi']}"
                    wrong.append(f"{name}:{n}: {fam} {got}, the ruleset says {_seat_range(fam)}")
    assert not wrong, "\n".join(wrong)
    assert stated >= 4  # TableSettings.seats states every family's range


@pytest.mark.parametrize("family", ["classic", "wordtiles", "warofwords", "scrabble"])
def test_table_settings_seats_states_each_familys_range(family: str) -> None:
    lobby = (PROTOS / "lobby.proto").read_text(encoding="utf-8")
    seats_doc = lobby[lobby.index("message TableSettings") : lobby.index("int32 seats = 2;")]
    assert family in seats_doc
