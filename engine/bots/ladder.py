"""How the weaker levels are weakened: like people, not by playing at random.

A level below 4 has a smaller vocabulary and misses bingos. Its vocabulary is the lexicon's
words up to a length (``VOCABULARY``), of which it knows a share: a word is known when a hash
of the word and the level falls under that share, so a level knows the same words in every
game (a person's vocabulary does not change from turn to turn) and a stronger level knows
every word a weaker one knows. It plays the best-scoring move whose main word it knows, and
sees a bingo (a play of the whole rack) only with the chance ``SEES_BINGO``.

In ``wordtiles`` the pending play of an opponent is checked from what the lexicon says (the
bots know it: a play is a phantom exactly when one of its words is not in the lexicon):
a phantom is caught with the chance ``CATCH`` of the level, and a weaker level doubts a valid
play whose main word is outside its vocabulary with the chance ``DOUBT`` (a check that fails
costs it its turn: one way to stay beatable).
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence

from wordarena.engine.board import Cells
from wordarena.engine.movegen import Move

#: level -> (longest main word it plays, share of the words up to that length it knows)
VOCABULARY: dict[int, tuple[int, float]] = {1: (4, 0.5), 2: (5, 0.7), 3: (7, 0.85)}
#: level -> chance it sees a bingo it could play (4 and 5 always do)
SEES_BINGO: dict[int, float] = {1: 0.0, 2: 0.0, 3: 0.5}
#: wordtiles: level -> chance of checking a pending play that is a phantom
CATCH: dict[int, float] = {1: 0.3, 2: 0.5, 3: 0.8, 4: 1.0, 5: 1.0}
#: wordtiles: level -> chance of checking a valid play whose main word it does not know
DOUBT: dict[int, float] = {1: 0.3, 2: 0.2, 3: 0.1}


def knows(level: int, word: str) -> bool:
    """Whether a level's vocabulary holds ``word`` (every word from level 4 up)."""
    limit = VOCABULARY.get(level)
    if limit is None:
        return True
    longest, share = limit
    if len(word) > longest:
        return False
    # One hash per word (not per level): a stronger level's vocabulary holds a weaker one's.
    return zlib.crc32(word.encode("utf-8")) % 1000 < share * 1000


def main_word(move: Move, cells: Cells) -> str:
    """The main word ``move`` lays on ``cells`` (its new letters with the board's around)."""
    cols = move.cols
    new = {i: letter for i, letter, _ in move.tiles}
    step = 1 if move.across else cols
    first = move.tiles[0][0]
    row = first // cols

    def letter(i: int) -> str | None:
        if i < 0 or i >= len(cells) or (move.across and i // cols != row):
            return None
        if i in new:
            return new[i]
        tile = cells[i]
        return None if tile is None else tile.letter

    start = first
    while letter(start - step) is not None:
        start -= step
    out = []
    i = start
    while (ch := letter(i)) is not None:
        out.append(ch)
        i += step
    return "".join(out)


def human_pick(
    level: int, moves: Sequence[Move], cells: Cells, bingo: int, rng: random.Random
) -> Move | None:
    """The best-scoring move (``moves`` best first) a weaker level finds: its main word in
    the level's vocabulary, a bingo (``bingo`` tiles or more) only when the level sees it
    (one draw per turn)."""
    sees_bingo = rng.random() < SEES_BINGO.get(level, 1.0)
    for move in moves:
        if move.tile_count >= bingo and not sees_bingo:
            continue
        if knows(level, main_word(move, cells)):
            return move
    return None


def checks(level: int, phantom: bool, main: str, rng: random.Random) -> bool:
    """Wordtiles: whether a level checks a pending play (``phantom``: one of its words is not
    in the lexicon; ``main``: its main word)."""
    if phantom:
        return rng.random() < CATCH.get(level, 1.0)
    if knows(level, main):
        return False
    return rng.random() < DOUBT.get(level, 0.0)
