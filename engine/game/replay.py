"""Rebuild a match from its event log: start from the seed, re-apply each logged action, and
insist that the same events come out (a replay that diverges is an error, not a guess)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from wordarena.engine.errors import InputError
from wordarena.engine.game.actions import action_from_dict
from wordarena.engine.game.events import Event
from wordarena.engine.game.state import GameState, Lexicon
from wordarena.engine.game.turns import apply, start_game
from wordarena.engine.rulesets.model import Ruleset, WordCheck


def replay(
    events: Sequence[Event],
    lexicon_for: Callable[[str], Lexicon | None],
    *,
    ruleset_for: Callable[[str], Ruleset],
) -> GameState:
    """The state after ``events`` (a whole log, starting with ``game-started``), whose ruleset
    id ``ruleset_for`` resolves (``engine.families.replay`` passes the catalogue's)."""
    if not events or events[0].type != "game-started":
        raise InputError("an event log starts with game-started", "events[0]")
    head = events[0].data
    ruleset = ruleset_for(head["ruleset"])
    check = bool(head.get("check_words", True))
    word_check = WordCheck(head["word_check"]) if "word_check" in head else None
    state, produced = start_game(ruleset, int(head["players"]), int(head["seed"]),
                                 lexicon_for(ruleset.lexicon) if check else None, check, word_check,
                                 rules=int(head.get("rules", 1)),
                                 pass_and_play=bool(head.get("pass_and_play", False)))
    position = len(produced)
    for at, event in enumerate(events[1:], start=1):
        if "action" not in event.data:
            continue
        if at != position:
            raise InputError("the log holds events no action explains", f"events[{position}]")
        state, produced = apply(state, action_from_dict(event.data["action"]),
                                overtime=event.data.get("overtime"))
        logged = [e.to_dict() for e in events[at: at + len(produced)]]
        if len(logged) != len(produced) or [
                _as_logged(e.to_dict(), d) for e, d in zip(produced, logged, strict=True)] != logged:
            raise InputError("replaying the action gave different events", f"events[{at}]")
        position = at + len(produced)
    if position != len(events):
        raise InputError("the log holds events no action explains", f"events[{position}]")
    return state


#: Fields the engine's events gained after logs had been written: a log without them still
#: replays (a word's letter-by-letter scoring, ``letters``, came after its premiums).
LATER_FIELDS = frozenset({"letters"})


def _as_logged(produced: Any, logged: Any) -> Any:
    """``produced`` without the ``LATER_FIELDS`` that ``logged`` (the stored form) lacks."""
    if isinstance(produced, dict) and isinstance(logged, dict):
        return {k: _as_logged(v, logged[k]) if k in logged else v for k, v in produced.items()
                if k in logged or k not in LATER_FIELDS}
    if isinstance(produced, list) and isinstance(logged, list) and len(produced) == len(logged):
        return [_as_logged(p, q) for p, q in zip(produced, logged, strict=True)]
    return produced
