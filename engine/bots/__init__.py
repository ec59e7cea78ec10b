"""Computer players: five levels (see ``bot``), leave values derived by self-play
(``leaves``, ``derive``) and bot-vs-bot series (``selfplay``)."""

from engine.bots.bot import LEVELS, Bot
from engine.bots.leaves import LeaveTable, leave_table
from engine.bots.selfplay import GameOutcome, SeriesStats, play_game, play_series

__all__ = [
    "LEVELS", "Bot", "GameOutcome", "LeaveTable", "SeriesStats", "leave_table", "play_game",
    "play_series",
]
