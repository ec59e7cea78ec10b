"""Analysis on top of move generation: Hindsight, Word Strength and the Tile Bag.

* :func:`hindsight` — the best moves a seat could have played instead of what it played;
* :func:`word_strength` — is a tentative play valid (which words fail), its score, its rank
  among every legal move of the rack, and the best alternative;
* :func:`tile_bag` — the tiles a seat has not seen (bag + other racks), by letter;
* :func:`best_by_simulation` — Hindsight's "best by simulation": the best plays judged by the
  level-6 bot's simulation, from what the seat could see;
* :func:`check_position` — refuse racks with tiles the ruleset lacks, or more tiles than the set
  has, naming the field.
"""

from wordarena.engine.analysis.hindsight import Hindsight, hindsight
from wordarena.engine.analysis.position import check_position
from wordarena.engine.analysis.simulated import SimulatedAlternative, best_by_simulation
from wordarena.engine.analysis.strength import Strength, rank_text, word_strength
from wordarena.engine.analysis.tilebag import tile_bag

__all__ = [
    "Hindsight", "SimulatedAlternative", "Strength", "best_by_simulation", "check_position",
    "hindsight", "rank_text", "tile_bag", "word_strength",
]
