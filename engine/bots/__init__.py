"""Computer players: six levels, from a beginner to a simulating champion.

* ``bot``            ``Bot``: the six levels and how each picks its move
* ``ladder``         how levels below 4 are weakened: a smaller vocabulary, missed bingos
* ``leaves``         leave values: what the tiles a player keeps are worth (shipped in ``data/``;
  derived by ``training.derive_leaves``)
* ``tactics``        how a bot uses its War of Words action tiles
* level 6 ("champion")
  * ``champion``       its choice: the simulated pick while the bag has tiles, the exact end game after
  * ``simulation``     Monte Carlo simulation of candidate plays (also Hindsight's "best by simulation")
  * ``winmodel``       the win estimate level 6 ranks candidates by late in a game
  * ``preendgame``     the pre-end-game: 1 to 7 tiles in the bag, 2 players
  * ``endgame``        the exact end-game search once the bag is empty (2 players)
  * ``endgame_native`` the same search in C: the arrays it is handed
* ``selfplay``       bots playing each other: one game, or a series with win rates and spreads
* ``endcorpus``      end-game and pre-end-game positions from seeded self-play, for tests and benches
"""

from wordarena.engine.bots.bot import HARDEST, LEVELS, Bot
from wordarena.engine.bots.leaves import LeaveTable, leave_table
from wordarena.engine.bots.selfplay import GameOutcome, SeriesStats, play_game, play_series

__all__ = [
    "HARDEST", "LEVELS", "Bot", "GameOutcome", "LeaveTable", "SeriesStats", "leave_table", "play_game",
    "play_series",
]
