"""Analysis on top of move generation: Hindsight, Word Strength and the Tile Bag.

* ``hindsight``  the best moves a seat could have played instead of what it played (``hindsight``)
* ``simulated``  Hindsight's "best by simulation": the best plays judged by the level-6 bot's
  simulation, from what the seat could see (``best_by_simulation``)
* ``record``     Hindsight over a whole game record, turn by turn (``review_record``)
* ``strength``   Word Strength: is a tentative play valid (which words fail), its score, its rank
  among every legal move of the rack, the best alternative (``word_strength``)
* ``tilebag``    the tiles a seat has not seen (bag + other racks), by letter (``tile_bag``)
* ``sight``      the moves a seat can see: none that reaches under a cloud (``visible_moves``)
* ``position``   refuse racks with tiles the ruleset lacks, or more tiles than the set has,
  naming the field (``check_position``)
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
