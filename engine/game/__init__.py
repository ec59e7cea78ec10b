"""The state machine: ``start_game``, ``apply(state, action) -> (state, events)`` (``replay`` of a
log: ``engine.families.replay``, which knows every family's hooks);
``evaluate_play``, the one judge of a play (``apply``, preview and Word Strength call it), and
the hooks a rule family plugs into the loop (``FamilyHooks``, held by ``Ruleset.hooks``)."""

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
from wordarena.engine.game.play import FamilyHooks, PlayVerdict, evaluate_play
from wordarena.engine.game.state import GameResult, GameState, PendingPlay, Seat, set_rack
from wordarena.engine.game.turns import apply, start_game

__all__ = [
    "Action", "Decide", "Event", "Exchange", "FamilyHooks", "GameResult", "GameState", "Kick",
    "Leave", "Outcome", "Pass", "PendingPlay", "Play", "PlayVerdict", "Resign", "Seat", "TimeOut",
    "action_from_dict", "action_to_dict", "apply", "evaluate_play", "outcomes",
    "set_rack", "start_game",
]
