"""The win estimate: the chance that a seat wins from its lead and the tiles still unseen, a
normal model of the final lead fitted per family to level-5 self-play (``bench/win_model.py``;
docs/bots.md, *The win estimate*). Level 6 ranks its candidates by it late in a game
(``engine.bots.simulation``); Hindsight reports it (``SimulatedPlay.win_chance``)."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class WinModel:
    """A normal model of the final lead of the seat whose chance to win is estimated: its
    deviation ``base`` + ``per_tile`` points per unseen tile (at least ``floor``), and having
    the move worth ``tempo`` points. Fitted per family to level-5 self-play by maximum
    likelihood (``bench/win_model.py``; docs/bots.md: scored on held-out games)."""

    floor: float
    base: float
    per_tile: float
    tempo: float


#: Per family (``bench/win_model.py``); the first guess, 4 points a tile and no tempo, predicted
#: the held-out games' winners worse (classic log-loss 0.537 against 0.470).
WIN_MODELS = {
    "classic": WinModel(8.0, 20.0, 1.1, 20.0),
    "scrabble": WinModel(8.0, 20.0, 1.1, 20.0),
    "wordtiles": WinModel(8.0, 30.0, 1.1, 18.0),
    "warofwords": WinModel(80.0, 0.0, 7.0, 20.0),  # its scores run ten times higher
}


def win_chance(
    lead: float, unseen: int, model: WinModel = WIN_MODELS["classic"], has_move: bool = True
) -> float:
    """Estimated chance to win with ``lead`` points ahead (of the best other seat) when
    ``unseen`` tiles are still unseen and the seat has the move (``has_move``) or not, by
    ``model``; a tie counts half. With nothing unseen the game is over and the lead decides."""
    if unseen == 0:
        return 1.0 if lead > 0 else 0.5 if lead == 0 else 0.0
    sigma = max(model.floor, model.base + model.per_tile * unseen)
    lead += model.tempo if has_move else -model.tempo
    return 0.5 * (1.0 + math.erf(lead / (sigma * math.sqrt(2.0))))
