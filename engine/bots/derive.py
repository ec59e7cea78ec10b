"""Deriving leave values by self-play (how ``data/leaves-<family>.json`` is made).

Expert bots (level 4, greedy) play each other (game ``g`` from seed ``g``, ``g`` = 0 ..
GAMES-1). At every other turn while the bag can still refill a rack, 8 racks drawn at random
(seeded ``derive/<family>/0``) from the tiles not on the board are scored by their best move on
that board (``collect_racks``). A ridge regression of that best score on the rack (counts of each
token, extra copies, vowel/consonant imbalance; unpenalised intercept) gives each token's value
and the two penalties (``fit``). Run it with
``python -m wordarena.engine.bots.derive FAMILY GAMES [SAMPLES.json]`` (``FAMILY 0 SAMPLES.json GAMES``
refits from kept samples without replaying). ``collect`` is the first, discarded method (the
next-turn score of the tiles greedy players kept; see docs/bots.md).
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from wordarena.engine.bots.bot import Bot
from wordarena.engine.bots.leaves import VOWELS, LeaveTable
from wordarena.engine.bots.selfplay import play_game
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Decide, Play
from wordarena.engine.game.state import GameState
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.movegen import generate
from wordarena.engine.tiles import is_action

RIDGE = 20.0


def collect(family: str, games: int, seed: int = 0) -> list[tuple[tuple[str, ...], int]]:
    """(leave, next-turn score) samples from ``games`` expert self-play games."""
    ruleset = get_ruleset(family)
    lexicon = load_lexicon(ruleset.lexicon)
    samples: list[tuple[tuple[str, ...], int]] = []
    for g in range(games):
        play_game(ruleset, [Bot(4, seed + g, lexicon), Bot(4, seed + g + 1, lexicon)],
                  seed + g, lexicon, _recorder(samples))
    return samples


def collect_racks(
    family: str, games: int, seed: int = 0, racks: int = 8, every: int = 2
) -> list[tuple[tuple[str, ...], int]]:
    """(rack, best score) samples: in expert self-play games, at every ``every``-th turn while
    the bag can refill a rack, ``racks`` random racks drawn from the tiles not on the board
    (letters only) are scored by their best move on that board."""
    ruleset = get_ruleset(family)
    lexicon = load_lexicon(ruleset.lexicon)
    rng = random.Random(f"derive/{family}/{seed}")
    samples: list[tuple[tuple[str, ...], int]] = []
    size = ruleset.rack_size
    turn = [0]

    def on_turn(before: GameState, action: Any, after: GameState) -> None:
        turn[0] += 1
        if turn[0] % every or len(before.bag) < size:
            return
        pool = [t for t in (*before.bag, *(t for r in before.racks for t in r)) if not is_action(t)]
        for _ in range(racks):
            rack = rng.sample(pool, min(size, len(pool)))
            moves = generate(ruleset, before.cells, rack, lexicon, before.board_effects)
            best = max((m.score for m in moves), default=0)
            samples.append((tuple(sorted(rack)), best))

    for g in range(games):
        play_game(ruleset, [Bot(4, seed + g, lexicon), Bot(4, seed + g + 1, lexicon)],
                  seed + g, lexicon, on_turn)
    return samples


def _recorder(samples: list[tuple[tuple[str, ...], int]]) -> Any:
    """A turn hook pairing each leave with its player's next score."""
    waiting: dict[int, tuple[str, ...]] = {}

    def on_turn(before: GameState, action: Any, after: GameState) -> None:
        seat = action.seat
        if isinstance(action, Decide):  # wordtiles: the opponent's verdict, not a turn
            return
        if not isinstance(action, Play):
            waiting.pop(seat, None)
            return
        pending = after.pending
        gained = pending.breakdown.total if pending is not None and pending.seat == seat else \
            after.scores[seat] - before.scores[seat]
        if seat in waiting:
            samples.append((waiting.pop(seat), gained))
        if before.bag:
            used = Counter(p.token for p in action.placements)
            kept = tuple(sorted((Counter(before.racks[seat]) - used).elements()))
            waiting[seat] = tuple(t for t in kept if not is_action(t))

    return on_turn


def _features(leave: tuple[str, ...], tokens: list[str]) -> list[float]:
    """Counts of each token, extra copies, vowel/consonant imbalance beyond one."""
    counts = Counter(leave)
    vowels = sum(1 for t in leave if t in VOWELS)
    extra = sum(n - 1 for n in counts.values() if n > 1)
    imbalance = max(0, abs(vowels - (len(leave) - vowels)) - 1)
    return [float(counts.get(t, 0)) for t in tokens] + [float(extra), float(imbalance)]


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (small dense systems)."""
    n = len(rhs)
    a = [[*row, rhs[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        div = a[col][col]
        for r in range(n):
            if r != col and a[r][col]:
                f = a[r][col] / div
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[i][n] / a[i][i] for i in range(n)]


def fit(family: str, samples: list[tuple[tuple[str, ...], int]], games: int) -> LeaveTable:
    """Ridge regression of the next-turn score on the kept tiles: one value per token, a
    penalty per extra copy and per unit of imbalance; an unpenalised intercept absorbs the
    average. The ridge (RIDGE) keeps rarely kept tiles near 0."""
    tokens = sorted({t for leave, _ in samples for t in leave})
    width = len(tokens) + 3  # intercept, tokens, duplicates, imbalance
    xtx = [[0.0] * width for _ in range(width)]
    xty = [0.0] * width
    for leave, score in samples:
        x = [1.0, *_features(leave, tokens)]
        nonzero = [(i, v) for i, v in enumerate(x) if v]
        for i, vi in nonzero:
            xty[i] += vi * score
            row = xtx[i]
            for j, vj in nonzero:
                row[j] += vi * vj
    for i in range(1, width):
        xtx[i][i] += RIDGE
    w = _solve(xtx, xty)
    raw = {t: w[1 + k] for k, t in enumerate(tokens)}
    # A tile is worth what it adds over an average tile drawn in its place: shift the values
    # so that the average tile of the set is worth 0.
    counts = get_ruleset(family).tiles.counts
    weight = sum(counts.get(t, 0) for t in raw) or 1
    mean = sum(v * counts.get(t, 0) for t, v in raw.items()) / weight
    values = {t: round(v - mean, 2) for t, v in raw.items()}
    return LeaveTable(family, values, round(min(0.0, w[-2]), 2), round(min(0.0, w[-1]), 2),
                      games)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    family, games = args[0], int(args[1])
    if games == 0 and len(args) > 2:  # refit from kept samples: FAMILY 0 SAMPLES.json GAMES
        samples = [(tuple(leave), int(score)) for leave, score in
                   json.loads(Path(args[2]).read_text(encoding="utf-8"))]
        games = int(args[3]) if len(args) > 3 else 0
    else:
        samples = collect_racks(family, games)
        if len(args) > 2:  # keep the raw samples, to refit without replaying
            Path(args[2]).write_text(json.dumps(samples), encoding="utf-8")
    out = Path(__file__).resolve().parent / "data" / f"leaves-{family}.json"
    table = fit(family, samples, games)
    if out.exists() and len(args) > 4:  # keep the shipped leave weight: ... GAMES keep
        scale = float(json.loads(out.read_text(encoding="utf-8")).get("scale", 1.0))
        table = replace(table, scale=scale)
    out.write_text(json.dumps(table.to_json(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{out}: {len(table.values)} tokens from {games} games")
    return 0


if __name__ == "__main__":
    sys.exit(main())
