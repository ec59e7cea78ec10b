"""The state machine: ``start_game``, ``apply(state, action) -> (state, events)``, ``replay``."""

from wordarena.engine.game.actions import (
    Action,
    Decide,
    Exchange,
    Kick,
    Leave,
    Pass,
    Play,
    Resign,
    TimeOut,
    action_from_dict,
    action_to_dict,
)
from wordarena.engine.game.events import Event
from wordarena.engine.game.outcome import Outcome, outcomes
from wordarena.engine.game.replay import replay
from wordarena.engine.game.state import GameResult, GameState, PendingPlay, Seat, set_rack
from wordarena.engine.game.turns import apply, start_game

__all__ = [
    "Action", "Decide", "Event", "Exchange", "GameResult", "GameState", "Kick", "Leave", "Outcome",
    "Pass", "PendingPlay", "Play", "Resign", "Seat", "TimeOut", "action_from_dict",
    "action_to_dict", "apply", "outcomes", "replay", "set_rack", "start_game",
]
