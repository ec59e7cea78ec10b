"""The state machine: ``start_game``, ``apply(state, action) -> (state, events)``.

* ``turns``    the one game loop: ``start_game`` and ``apply``
* ``state``    ``GameState``: the immutable state of a match, its seats and pending play
* ``actions``  what a player can do (``Play``, ``Pass``, ``Exchange``, ``Resign``, ``Decide``, ``Leave``,
  ``Kick``, ``TimeOut``), each naming its seat
* ``events``   ``Event``: what happened, as JSON-ready data (a match's log is a list of them)
* ``play``     ``evaluate_play``, the one judge of a play (``apply``, preview and Word Strength call
  it), and the hooks a rule family plugs into the loop (``FamilyHooks``, held by ``Ruleset.hooks``)
* ``endgame``  turn bookkeeping and the end of the game: zero-turn runs, going out, final adjustments
* ``outcome``  who won: each seat's outcome under its family's rules (the one decision)
* ``replay``   rebuild a match from its event log, insisting the same events come out (with every
  family's hooks: ``engine.families.replay``)
* ``rng``      seeded randomness: the n-th random decision of a match from (seed, n) alone
"""

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
