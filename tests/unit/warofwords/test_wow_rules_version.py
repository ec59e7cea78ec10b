"""Rules versions: a game recorded under rules version 1 (before Quicksand re-scored words, the
supply held 9 Lightning tiles and inactive players' letters were deducted) replays exactly as it
was played; a new game records version 2 and plays by it."""

from __future__ import annotations

from collections import Counter

from wow_helpers import ANY, game, play, points, put

from wordarena.engine.families import get_ruleset, replay
from wordarena.engine.game import Pass, apply, start_game
from wordarena.engine.game.state import RULES

FIELD = get_ruleset("warofwords", "en", "warofwords-field")


def _played(rules: int, turns: int = 6) -> list:
    """The event log of a game of passes under ``rules``."""
    state, events = start_game(FIELD, 2, 4, ANY, True, rules=rules)  # type: ignore[arg-type]
    for _ in range(turns):
        state, more = apply(state, Pass(state.to_move))
        events += more
        if state.over:
            break
    return events


def test_a_version_1_log_replays_with_the_version_1_supply():
    events = _played(1)
    assert "rules" not in events[0].data  # as logs written before versions were recorded
    state = replay(events, lambda _: ANY)
    assert state.rules == 1
    dealt = Counter(state.bag) + Counter(t for r in state.racks for t in r)
    assert dealt["@lightning"] == 3 and sum(dealt.values()) == 150


def test_a_new_game_records_version_2_and_its_supply():
    events = _played(RULES)
    assert RULES == 2 and events[0].data["rules"] == 2
    state = replay(events, lambda _: ANY)
    assert state.rules == 2
    dealt = Counter(state.bag) + Counter(t for r in state.racks for t in r)
    assert dealt["@lightning"] == 9 and sum(dealt.values()) == 156


def test_quicksand_under_version_1_still_rescores_each_letter_alone(monkeypatch):
    """A version 1 game's Quicksand credits stay what they were: the letter under a 1x1
    Quicksand alone (Z: 10), where version 2 scores the word ZA through it (10 + 1, +10 for the
    Bonus Letter A)."""
    from wordarena.engine.warofwords import arena

    monkeypatch.setattr(arena.Arena, "chance", lambda self, p: False)
    tiles = [("5B", "ZA", 1)]
    new = game(board="warofwords-desert", racks=[("@quicksand", "E"), ("B",)], tiles=tiles,
               bonus_letter="A")
    old = new.evolve(rules=1)
    _, events = play(new, 0, put("B5", "@quicksand"))
    assert points(events, "quicksand") == {1: 10 + 1 + 10}
    _, events = play(old, 0, put("B5", "@quicksand"))
    assert points(events, "quicksand") == {1: 10}
