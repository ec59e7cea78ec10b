"""Every record ``record_from_events`` writes of a self-play game re-checks clean with
``wordarena gcg check`` and replays (``parse_gcg`` → ``replay_record``) to the game's final
board and scores: 200 seeded games of each family under ``--soak``, a sample of 24 by default
(tests/soak.py; weak bots, so that each run stays short; War of Words on every board, Word Tiles
and War of Words with 2 to 4 players)."""

from __future__ import annotations

from pathlib import Path

import pytest
import soak

from wordarena.clients.cli.main import main
from wordarena.engine.board import Cells
from wordarena.engine.bots import Bot, GameOutcome, play_game
from wordarena.engine.families import get_ruleset
from wordarena.engine.interchange import (
    parse_gcg,
    record_from_events,
    record_ruleset_id,
    replay_record,
    write_gcg,
)
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.rulesets.catalog import list_rulesets
from wordarena.engine.rulesets.model import Ruleset

GAMES = soak.pick(200, 24)
NICKS = ("ann", "ben", "cat", "dan")


def board(cells: Cells) -> list[tuple[str, bool] | None]:
    """What a board shows: letter and blank per square (who played a tile is not recorded)."""
    return [None if t is None else (t.letter, t.blank) for t in cells]


def rulesets(family: str) -> list[Ruleset]:
    """The English rulesets of ``family``: War of Words on each of its boards, the others on
    their own board."""
    if family != "warofwords":
        return [get_ruleset(family, "en")]
    [entry] = [r for r in list_rulesets() if r["family"] == family and r["language"] == "en"]
    return [get_ruleset(family, "en", str(b)) for b in entry["boards"]]


def seated(ruleset: Ruleset, game: int) -> int:
    """Players in game ``game``: 2, or 2 to 4 in turn where the family allows it."""
    return min(ruleset.max_players, 2 + game % 3)


def play(family: str) -> list[tuple[Ruleset, int, GameOutcome]]:
    choices = rulesets(family)
    games = []
    lexicon = load_lexicon(choices[0].lexicon)
    for seed in range(GAMES):
        ruleset = choices[seed % len(choices)]
        bots = [Bot(1, seed * 10 + k, lexicon) for k in range(seated(ruleset, seed))]
        games.append((ruleset, seed, play_game(ruleset, bots, seed, lexicon)))
    return games


@pytest.mark.soak
@pytest.mark.parametrize("family", ["classic", "wordtiles", "scrabble", "warofwords"])
def test_every_selfplay_record_checks_clean_and_replays_to_the_final_position(
        family: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    by_ruleset: dict[str, list[str]] = {}
    for ruleset, seed, outcome in play(family):
        assert outcome.state is not None and outcome.state.over
        players = [(NICKS[s], f"Bot {s + 1}") for s in range(outcome.state.players)]
        record = record_from_events(outcome.events, players)
        text = write_gcg(record)
        path = tmp_path / f"{ruleset.id.replace('/', '_')}-{seed}.gcg"
        path.write_text(text, encoding="utf-8")
        by_ruleset.setdefault(ruleset.id, []).append(str(path))

        again = parse_gcg(text)
        assert again == record
        assert record_ruleset_id(again) == ruleset.id
        steps = list(replay_record(again, ruleset))
        assert board(steps[-1].state.cells) == board(outcome.state.cells), path.name
        totals = {m.seat: m.total for m in again.moves}
        assert tuple(totals.get(s, 0) for s in range(outcome.state.players)) == outcome.scores
    for ruleset_id, paths in by_ruleset.items():
        assert main(["gcg", "check", "--ruleset", ruleset_id, *paths]) == 0, ruleset_id
        out = capsys.readouterr().out.splitlines()
        assert out == [f"{p}: ok" for p in paths]
    assert sum(len(p) for p in by_ruleset.values()) == GAMES
