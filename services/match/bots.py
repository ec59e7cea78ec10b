"""Bot seats: the engine's computer players (``engine.bots.Bot``), levels 1..5 as the contract's
``SeatAssignment.bot_level`` defines them (1 beginner … 5 strong).

``choose`` is blocking (move generation) and is run in a worker thread by the match manager, so
one slow generation never stalls the event loop or other matches. The bot's random choices are
seeded from the match seed, the seat and the turn, so a bot's decision is repeatable for a given
position. In Word Tiles a bot seat that must decide on a pending play accepts or checks it (the
engine's ``Bot`` decides: levels 3+ check words they do not know).
"""

from __future__ import annotations

from wordarena.engine.bots import LEVELS, Bot
from wordarena.engine.game import Action, Exchange, GameState, Pass

__all__ = ["LEVELS", "choose", "safe_action"]


def choose(state: GameState, seat: int, level: int) -> Action:
    """The action of the bot of ``level`` sitting at ``seat`` (the seat to move, or the seat that
    must accept or check a pending play) in ``state``."""
    if seat != state.to_move:
        raise ValueError(f"seat {seat} is not to move (seat {state.to_move} is)")
    lvl = level if level in LEVELS else min(max(level, min(LEVELS)), max(LEVELS))
    bot = Bot(lvl, seed=(state.seed * 31 + seat) * 1009 + state.turn)
    return bot.choose(state)


def safe_action(state: GameState, seat: int) -> Action:
    """What a bot does when its chosen action is refused (which would be an engine bug): exchange
    the whole rack when the rules allow it, else pass."""
    rule = state.ruleset.exchange
    rack = state.racks[seat]
    used = state.exchanges[seat] if state.exchanges else 0
    if (state.pending is None and rack and len(state.bag) >= max(rule.min_bag, len(rack))
            and (rule.per_player is None or used < rule.per_player)):
        return Exchange(seat, tuple(rack))
    return Pass(seat)
