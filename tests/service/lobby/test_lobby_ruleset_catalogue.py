"""DescribeRuleset over real loopback gRPC, read as a client that knows only the contract: every
ruleset / language / board that ListRulesets offers can be drawn and its tiles shown from the
answer alone, and what is drawn is the independent reference (``shared/reference``) where it has
the board or tile set, else the shipped data file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lobby_harness import LobbyEnv

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import lobby_pb2

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

REPO = Path(__file__).resolve().parents[3]
REFERENCE = Path("/work/shared/reference/rulesets.json")
if not REFERENCE.exists():  # a checkout elsewhere: the reference is beside the repo
    REFERENCE = REPO.parent / "shared" / "reference" / "rulesets.json"
DATA = REPO / "engine" / "rulesets" / "data"


def _reference() -> dict[str, Any]:
    if not REFERENCE.exists():
        pytest.skip("shared/reference/rulesets.json is not available")
    return dict(json.loads(REFERENCE.read_text(encoding="utf-8")))

#: reference game per board id (boards the reference has)
REFERENCE_BOARDS = {
    "classic": "words_with_friends",
    "wordtiles": "literaki",
    "scrabble": "scrabble",
    "superscrabble": "super_scrabble",
}


def _reference_tiles(ref: dict[str, Any], tileset_id: str) -> dict[str, list[int]] | None:
    """The reference's tiles for a tile set id, where it has them."""
    return {
        "classic-en": ref["words_with_friends"]["tiles"],
        # "same 104-tile bag assumed" for British English (reference notes)
        "classic-en-gb": ref["words_with_friends"]["tiles"],
        "scrabble-en": ref["scrabble"]["tiles"],
        "scrabble-pl": ref["scrabble"]["tiles_by_locale"]["pl"],
        "wordtiles-pl": ref["literaki"]["tiles"],
    }.get(tileset_id)


def _layout_char(sq: c.BoardSquare) -> str:
    """A square in the reference legend (README.md of shared/reference)."""
    p = sq.premium
    if sq.HasField("premium"):
        if p.kind == c.PREMIUM_KIND_LETTER:
            return {2: "d", 3: "t", 4: "q"}[p.factor]
        if p.kind == c.PREMIUM_KIND_WORD:
            return {2: "D", 3: "T", 4: "Q"}[p.factor]
        if p.kind == c.PREMIUM_KIND_COLOUR:
            assert p.factor == 3
            return {
                c.TILE_COLOUR_YELLOW: "y",
                c.TILE_COLOUR_GREEN: "g",
                c.TILE_COLOUR_BLUE: "b",
                c.TILE_COLOUR_RED: "r",
            }[p.colour]
        raise AssertionError(f"unexpected premium {p}")
    if sq.is_star:
        return "S"
    if sq.terrain == c.TERRAIN_KIND_WATER:
        return "w"
    if sq.terrain == c.TERRAIN_KIND_SAND:
        return ":"
    if sq.scenery == c.SCENERY_KIND_TITANIUM:
        return "%"
    if sq.scenery:
        return "#"
    return "."


ACTION_NAMES = {"blackhole": "BLACK_HOLE", "nuke": "NUCLEAR_BOMB", "pirate": "PIRATE_SHIP"}


def _token(t: c.Tile) -> str:
    """A TileCount's tile as a data-file token (letter, ``?``, ``*``, ``@name``, ``@3W``)."""
    if t.action == c.ACTION_KIND_LETTER_MULTIPLIER:
        return f"@{t.action_factor}L"
    if t.action == c.ACTION_KIND_WORD_MULTIPLIER:
        return f"@{t.action_factor}W"
    if t.action:
        name = c.ActionKind.Name(t.action).removeprefix("ACTION_KIND_")
        back = {v: k for k, v in ACTION_NAMES.items()}
        return "@" + back.get(name, name.lower())
    if t.is_blank:
        assert t.letter == "?"
        return "?"
    if t.is_wildcard:
        return "*"
    return t.letter


async def _every_offer(env: LobbyEnv) -> list[tuple[lobby_pb2.RulesetSummary, str, str]]:
    listed = await env.stub.ListRulesets(lobby_pb2.ListRulesetsRequest())
    assert {s.ruleset_id for s in listed.rulesets} == {"classic", "wordtiles", "warofwords", "scrabble"}
    return [(s, lang, board) for s in listed.rulesets for lang in s.languages for board in s.board_ids]


async def test_every_offered_board_can_be_drawn_exactly_from_describe_ruleset(env: LobbyEnv) -> None:
    ref = _reference()
    seen_boards: set[str] = set()
    for summary, lang, board in await _every_offer(env):
        got = await env.stub.DescribeRuleset(
            lobby_pb2.DescribeRulesetRequest(
                ruleset=c.RulesetRef(ruleset_id=summary.ruleset_id, language=lang, board_id=board)
            )
        )
        bv = got.ruleset.board
        where = f"{summary.ruleset_id}/{lang}/{board}"
        assert bv.board_id == board, where
        assert len(bv.squares) == bv.rows * bv.cols, where
        for i, sq in enumerate(bv.squares):
            assert (sq.square.row, sq.square.col) == divmod(i, bv.cols), where
            assert not sq.HasField("tile") and not sq.hidden, where
        layout = ["".join(_layout_char(sq) for sq in bv.squares[r * bv.cols : (r + 1) * bv.cols])
                  for r in range(bv.rows)]
        if board in REFERENCE_BOARDS:
            expected = ref[REFERENCE_BOARDS[board]]
            assert layout == expected["layout"], where
            x, y = expected["start_square"]
            assert bv.HasField("start_square"), where
            assert (bv.start_square.row, bv.start_square.col) == (y, x), where
            assert bv.squares[y * bv.cols + x].is_start, where
        else:  # War of Words boards: not public, the shipped file is the only statement of them
            data = json.loads((DATA / "boards" / f"{board}.json").read_text(encoding="utf-8"))
            assert layout == data["layout"], where
            assert not bv.HasField("start_square"), where
            water = [sq for sq in bv.squares if sq.terrain == c.TERRAIN_KIND_WATER]
            assert all(sq.water_patch_id >= 1 for sq in water), where
            patches = {sq.water_patch_id for sq in water}
            assert {w.patch_id for w in bv.water_patches} == patches, where
            if data.get("joined_water"):
                assert len(patches) <= 1, where
        seen_boards.add(board)
    assert set(REFERENCE_BOARDS) <= seen_boards
    assert any(b.startswith("warofwords-") for b in seen_boards)


async def test_every_offered_tile_set_is_shown_with_counts_values_and_alphabet(env: LobbyEnv) -> None:
    ref = _reference()
    compared_with_reference = 0
    for summary, lang, board in await _every_offer(env):
        if board != summary.board_ids[0]:
            continue  # the tile set depends on the language only
        ref_ = c.RulesetRef(ruleset_id=summary.ruleset_id, language=lang)
        got = (await env.stub.DescribeRuleset(lobby_pb2.DescribeRulesetRequest(ruleset=ref_))).ruleset
        where = f"{summary.ruleset_id}/{lang}"
        tiles: dict[str, list[int]] = {}
        for tc in got.tiles:
            token = _token(tc.tile)
            assert token not in tiles, f"{where}: {token} listed twice"
            assert tc.count >= 1, where
            tiles[token] = [tc.count, tc.tile.value]
        tileset_id = f"{summary.ruleset_id}-{lang}"
        expected = _reference_tiles(ref, tileset_id)
        if expected is not None:
            compared_with_reference += 1
        else:
            data = json.loads((DATA / "tilesets" / f"{tileset_id}.json").read_text(encoding="utf-8"))
            expected = data["tiles"]
        assert tiles == {k: list(v) for k, v in expected.items()}, where
        letters = {t for t in expected if t not in ("?", "*") and not t.startswith("@")}
        assert set(got.alphabet) == letters, where
        assert got.rack_size in (7, 8) and got.bingo and got.challenge_modes, where
        assert got.summary.ruleset_id == summary.ruleset_id and got.summary.name, where
    assert compared_with_reference == 5


async def test_features_and_rules_text_let_a_client_switch_its_tools_on(env: LobbyEnv) -> None:
    for summary, lang, board in await _every_offer(env):
        if board != summary.board_ids[0] or lang != summary.languages[0]:
            continue
        got = (await env.stub.DescribeRuleset(
            lobby_pb2.DescribeRulesetRequest(ruleset=c.RulesetRef(ruleset_id=summary.ruleset_id))
        )).ruleset
        features = set(got.features)
        assert {lobby_pb2.FEATURE_TILE_BAG, lobby_pb2.FEATURE_PREVIEW, lobby_pb2.FEATURE_CHAT,
                lobby_pb2.FEATURE_HINDSIGHT} <= features, summary.ruleset_id
        # English has a dictionary; word strength needs words checked when played
        assert lobby_pb2.FEATURE_DEFINE in features
        assert (lobby_pb2.FEATURE_WORD_STRENGTH in features) == (summary.ruleset_id != "wordtiles")
        assert got.rules_text.startswith("# "), summary.ruleset_id
        assert summary.name in got.rules_text
        assert f"{got.rack_size} tiles" in got.rules_text
    classic_gb = (await env.stub.DescribeRuleset(
        lobby_pb2.DescribeRulesetRequest(ruleset=c.RulesetRef(ruleset_id="classic", language="en-gb"))
    )).ruleset
    assert lobby_pb2.FEATURE_DEFINE in classic_gb.features
    classic_fr = (await env.stub.DescribeRuleset(
        lobby_pb2.DescribeRulesetRequest(ruleset=c.RulesetRef(ruleset_id="classic", language="fr"))
    )).ruleset
    assert lobby_pb2.FEATURE_DEFINE not in classic_fr.features  # no French dictionary is installed
