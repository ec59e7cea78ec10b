"""Bot seats. Uses the engine's bots (``engine.bots``) or best-move analysis when they are
available; until then a fallback that exchanges (or passes) keeps matches moving."""

from __future__ import annotations

from typing import Any

from engine.game import Action, Exchange, GameState, Pass


def choose(state: GameState, seat: int, level: int) -> Action:
    """The bot's action for ``seat`` (blocking; run in a thread)."""
    try:  # the engine's bots, once they land
        from engine import bots as engine_bots  # type: ignore[attr-defined]

        pick: Any = getattr(engine_bots, "choose_action", None) or getattr(engine_bots, "choose", None)
        if pick is not None:
            return pick(state, seat, level)  # type: ignore[no-any-return]
    except ImportError:
        pass
    return fallback(state, seat)


def fallback(state: GameState, seat: int) -> Action:
    """Exchange the whole rack when the rules allow it, else pass."""
    rule = state.ruleset.exchange
    rack = state.racks[seat]
    used = state.exchanges[seat] if state.exchanges else 0
    if rack and len(state.bag) >= max(rule.min_bag, len(rack)) and (
            rule.per_player is None or used < rule.per_player):
        return Exchange(seat, tuple(rack))
    return Pass(seat)
