"""Computer players: six levels (see ``bot``; 6, the hardest, simulates: ``simulation``,
``champion``), leave values derived by self-play (``leaves``, ``derive``) and bot-vs-bot series
(``selfplay``)."""

from wordarena.engine.bots.bot import HARDEST, LEVELS, Bot
from wordarena.engine.bots.leaves import LeaveTable, leave_table
from wordarena.engine.bots.selfplay import GameOutcome, SeriesStats, play_game, play_series

__all__ = [
    "HARDEST", "LEVELS", "Bot", "GameOutcome", "LeaveTable", "SeriesStats", "leave_table", "play_game",
    "play_series",
]
