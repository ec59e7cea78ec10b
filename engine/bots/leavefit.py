"""Fitting a leave table to self-play rack samples (``engine.bots.derive`` collects them).

Each sample is a random rack and the score of its best move on a self-play board; they come
aggregated per distinct rack (count, sum, sum of squares of the best score). A weighted ridge
regression (λ = ``RIDGE``, intercept not penalised) of the best score on the rack's features
gives the leave table. Two models are fitted on nine tenths of the distinct racks (split by a
hash of the rack) and compared by their mean squared error on the other tenth:

* ``tokens``: one value per token, one penalty per extra copy of any tile, one per unit of
  vowel/consonant imbalance beyond one (the first shipped model);
* ``duplicates``: the same plus, per token, its own value for each extra copy (two I's are
  worse than two E's, as in published leave tables); the ridge pulls a token's own duplicate
  value towards the shared penalty, so rarely duplicated tiles keep the shared one.

The better model on the held-out tenth is refitted on all racks and shipped. Values are shifted
so that the average tile of the set is worth 0 (a kept tile is worth what it adds over an
average tile drawn in its place); the shared duplicate and imbalance penalties are clamped to
at most 0.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from typing import Any

from wordarena.engine.bots.leaves import LeaveTable, shape
from wordarena.engine.families import get_ruleset

RIDGE = 20.0
HOLD_OUT = 10  # one distinct rack in HOLD_OUT (by hash) is held out to compare the models
MODELS = ("tokens", "duplicates")

Row = tuple[str, float, float, float]  # rack key, count, sum, sum of squares


def _features(key: str, tokens: dict[str, int], model: str) -> list[tuple[int, float]]:
    """The nonzero features of a rack as (column, value); column 0 is the intercept."""
    counts, imbalance = shape(key.split(" "))
    n_tok = len(tokens)
    out: list[tuple[int, float]] = [(0, 1.0)]
    extra = 0
    for t, n in counts.items():
        out.append((1 + tokens[t], float(n)))
        if n > 1:
            extra += n - 1
            if model == "duplicates":
                out.append((1 + n_tok + tokens[t], float(n - 1)))
    width = 1 + n_tok * (2 if model == "duplicates" else 1)
    if extra:
        out.append((width, float(extra)))
    if imbalance:
        out.append((width + 1, float(imbalance)))
    return out


def _width(n_tok: int, model: str) -> int:
    return 1 + n_tok * (2 if model == "duplicates" else 1) + 2


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


def solve(rows: Iterable[Row], tokens: dict[str, int], model: str) -> list[float]:
    """The ridge weights of ``model`` over ``rows`` (weighted by each rack's count)."""
    width = _width(len(tokens), model)
    xtx = [[0.0] * width for _ in range(width)]
    xty = [0.0] * width
    for key, count, total, _ in rows:
        feats = _features(key, tokens, model)
        for i, vi in feats:
            xty[i] += vi * total
            row = xtx[i]
            w = vi * count
            for j, vj in feats:
                row[j] += w * vj
    for i in range(1, width):
        xtx[i][i] += RIDGE
    return _solve(xtx, xty)


def held_out_error(
    rows: Iterable[Row], tokens: dict[str, int], model: str, weights: list[float]
) -> tuple[float, float]:
    """(mean squared error, samples) of ``weights`` on ``rows``."""
    sse = 0.0
    n = 0.0
    for key, count, total, squares in rows:
        p = sum(weights[i] * v for i, v in _features(key, tokens, model))
        sse += squares - 2 * p * total + count * p * p
        n += count
    return (sse / n if n else 0.0), n


def table_from(
    family: str, language: str, tokens: dict[str, int], model: str, weights: list[float], games: int
) -> LeaveTable:
    """The leave table of fitted ``weights``."""
    n_tok = len(tokens)
    raw = {t: weights[1 + k] for t, k in tokens.items()}
    counts = get_ruleset(family, language).tiles.counts
    total = sum(counts.get(t, 0) for t in raw) or 1
    mean = sum(v * counts.get(t, 0) for t, v in raw.items()) / total
    values = {t: round(v - mean, 2) for t, v in raw.items()}
    width = _width(n_tok, model)
    shared = min(0.0, weights[width - 2])
    duplicates = {}
    if model == "duplicates":
        duplicates = {t: round(weights[width - 2] + weights[1 + n_tok + k], 2) for t, k in tokens.items()}
    return LeaveTable(
        family,
        values,
        round(shared, 2),
        round(min(0.0, weights[width - 1]), 2),
        games,
        1.0,
        duplicates,
        language,
    )


def fit_file(data: dict[str, Any]) -> tuple[LeaveTable, str]:
    """The leave table of a samples file (``derive``'s), by the better model on held-out
    racks, and a one-line report of the comparison."""
    family, language, games = str(data["family"]), str(data["language"]), int(data["games"])
    rows: list[Row] = [(k, float(v[0]), float(v[1]), float(v[2])) for k, v in data["samples"].items()]
    tokens = {t: k for k, t in enumerate(sorted({t for r in rows for t in r[0].split(" ")}))}
    train = [r for r in rows if zlib.crc32(r[0].encode()) % HOLD_OUT]
    test = [r for r in rows if not zlib.crc32(r[0].encode()) % HOLD_OUT]
    errors = {}
    for model in MODELS:
        errors[model] = held_out_error(test, tokens, model, solve(train, tokens, model))
    mean = sum(r[2] for r in train) / (sum(r[1] for r in train) or 1)
    base, _ = held_out_error(test, tokens, "tokens", [mean] + [0.0] * (_width(len(tokens), "tokens") - 1))
    best = min(MODELS, key=lambda m: errors[m][0])
    table = table_from(family, language, tokens, best, solve(rows, tokens, best), games)
    samples = int(sum(r[1] for r in rows))
    report = (
        f"{games} games, {samples} samples ({len(rows)} racks); held-out MSE over "
        f"{int(errors[best][1])} samples: mean only {base:.1f}, "
        + ", ".join(f"{m} {errors[m][0]:.2f}" for m in MODELS)
        + f" -> {best}"
    )
    return table, report
