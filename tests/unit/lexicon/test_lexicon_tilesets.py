"""The derived classic tile sets (es, it, pt, de, fr) and scripts/derive-tilesets."""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

import pytest

from wordarena.engine.lexicon import ALPHABETS, SOURCES

ROOT = Path(__file__).resolve().parents[3]
TILESETS = ROOT / "engine" / "rulesets" / "data" / "tilesets"
DERIVED = ("es", "it", "pt", "de", "fr")
WWF_VALUES = {1, 2, 3, 4, 5, 8, 10}
ABSENT = {"es": "KW", "it": "JKWXY", "pt": "KWY", "de": "", "fr": ""}


def script() -> ModuleType:
    path = ROOT / "scripts" / "derive-tilesets"
    loader = importlib.machinery.SourceFileLoader("derive_tilesets", str(path))
    spec = importlib.util.spec_from_loader("derive_tilesets", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def tileset(language: str) -> dict:
    return json.loads((TILESETS / f"classic-{language}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("language", DERIVED)
def test_derived_tileset_shape(language: str) -> None:
    doc = tileset(language)
    assert doc["id"] == f"classic-{language}" and doc["language"] == language
    tiles = doc["tiles"]
    assert list(tiles) == ["?", *ALPHABETS[language]]  # blank first, then alphabet order
    assert tiles["?"] == [2, 0]
    assert sum(count for count, _ in tiles.values()) == 104
    for letter, (count, value) in tiles.items():
        if letter != "?":
            assert count >= 1 and value in WWF_VALUES, letter
    for letter in ABSENT[language]:
        assert letter not in tiles
    assert "scripts/derive-tilesets" in doc["derivation"]


def test_spanish_and_portuguese_sets_have_their_own_letters() -> None:
    assert "Ñ" in tileset("es")["tiles"]
    assert "Ç" in tileset("pt")["tiles"]
    assert {"Ä", "Ö", "Ü"} <= set(tileset("de")["tiles"])


def test_apportion_gives_the_total_with_at_least_one_each() -> None:
    derive = script()
    counts = derive.apportion({"A": 1000, "B": 10, "C": 0, "D": 500}, total=20)
    assert sum(counts.values()) == 20
    assert counts["B"] == 1 and counts["C"] == 1
    assert list(counts) == ["A", "B", "C", "D"]
    assert derive.apportion({"X": 1, "Y": 1}, total=3) == {"X": 2, "Y": 1}  # ties: earlier


def test_rarity_values_follow_the_wwf_scale() -> None:
    derive = script()
    freq = {chr(ord("A") + i): 1000 - i for i in range(26)}  # A most frequent, Z rarest
    values = derive.rarity_values(freq)
    assert sorted(values.values()) == sorted(derive.WWF_VALUE_SCALE)
    assert values["A"] == 1 and values["Z"] == 10
    small = derive.rarity_values({"A": 9, "B": 5, "C": 1})
    assert small["A"] < small["B"] < small["C"]


@pytest.mark.parametrize("language", DERIVED)
def test_committed_tileset_is_what_the_script_derives(language: str) -> None:
    path = SOURCES[language].sources[0]
    if not path.exists():
        pytest.skip(f"{path} missing: apt-get install {SOURCES[language].debian_package}")
    recorded = re.search(r"sha256 ([0-9a-f]{12})", tileset(language)["derivation"])
    assert recorded is not None
    derive = script()
    doc, _ = derive.derive(language)
    if hashlib.sha256(path.read_bytes()).hexdigest()[:12] == recorded.group(1):
        expected = (TILESETS / f"classic-{language}.json").read_text(encoding="utf-8")
        assert derive.to_json(doc) == expected
        return
    # Another version of the word list than the committed set was derived from: the counts and
    # values may move a little, but the alphabet, the tile total and the blanks may not.
    committed = tileset(language)["tiles"]
    assert set(doc["tiles"]) == set(committed)
    assert sum(n for n, _ in doc["tiles"].values()) == sum(n for n, _ in committed.values())
    assert doc["tiles"]["?"] == committed["?"]
