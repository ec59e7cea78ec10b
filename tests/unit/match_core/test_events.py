"""The stored events' codec (services/match/core/events.py): every event of every stored-log
fixture (logs written by earlier versions, tests/service/match/stored_logs) decodes into a typed
event, and encodes back to the payload it was read from — the codec loses nothing of any
version it reads, so a log rewritten by today's code still replays as written."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from wordarena.engine.families import parse_ruleset_id
from wordarena.engine.tiles import Tile
from wordarena.services.match.core import events as ev

LOGS = sorted((Path(__file__).parents[2] / "service" / "match" / "stored_logs").glob("*.json"))


def _rows(path: Path) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    dump = json.loads(path.read_text())
    return [(m["match"], m["events"]) for m in dump["matches"]]


def _payload(row: dict[str, Any]) -> dict[str, Any]:
    raw = row["payload"]
    text = base64.b64decode(raw["b64"]).decode() if isinstance(raw, dict) else raw
    decoded: dict[str, Any] = json.loads(text)
    return decoded


@pytest.mark.parametrize("path", LOGS, ids=[p.stem for p in LOGS])
def test_every_stored_event_decodes_and_encodes_back_to_its_payload(path: Path) -> None:
    kinds = set()
    for _, rows in _rows(path):
        for row in rows:
            payload = _payload(row)
            typed = ev.decode(row["seq"], row["time"], row["kind"], payload)
            kinds.add(row["kind"])
            again = ev.encode(typed)
            assert again.pop("v") == ev.VERSION
            payload.pop("v", None)
            assert again == payload, (row["seq"], row["kind"])
    # the fixtures hold the kinds a real game writes
    assert {"match-started", "turn-played", "turn-passed", "chat", "game-over"} <= kinds


def test_a_version_0_board_change_was_placed_by_its_own_event() -> None:
    old = ev.decode(7, 0.0, "turn-played", {"engine": [], "board": [[40, "A", False, 1], [41]]})
    assert old.board == (ev.SquareChange(40, Tile("A", False, 1), 7), ev.SquareChange(41))


def test_a_version_0_log_gets_the_notation_of_its_plays() -> None:
    ruleset = parse_ruleset_id("scrabble/en")
    play = {"type": "play", "seat": 0,
            "data": {"placed": [[112, "H", False], [113, "I", False]], "across": True, "score": 10}}
    first = ev.decode(1, 0.0, "turn-played", {"engine": [play], "board": [[112, "H", False, 0],
                                                                          [113, "I", False, 0]]})
    assert first.notation == ""
    (upgraded,) = ev.upgrade_log(ruleset, [first])
    assert upgraded.notation == "8H HI"
    assert ev.encode(upgraded)["notation"] == "8H HI"


def test_a_field_of_a_newer_writer_is_kept() -> None:
    after = {"scores": [0, 0], "to_move": 0, "bag": 86, "turn": 1, "zero_run": 0, "rack_sizes": [7, 7],
             "seats": ["playing", "playing"], "exchanges": [0, 0], "racks": [[], []], "pending": [],
             "rack_changed": [], "future_field": 3}
    typed = ev.decode(2, 0.0, "turn-passed", {"engine": [], "after": after, "board": []})
    assert ev.encode(typed)["after"] == after
