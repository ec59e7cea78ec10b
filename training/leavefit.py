"""Fitting a leave table to self-play rack samples (``training.derive_leaves`` collects them).

Each sample is a random rack and the score of its best move on a self-play board; they come
aggregated per distinct rack (count, sum, sum of squares of the best score). Four models are
fitted on nine tenths of the distinct racks (split by a hash of the rack) and compared on the
other tenth by how well they predict a rack's best score from each of its leaves (every
subset of its tiles: the training mean + the leave's value; ``leave_error``):

* ``tokens``: a weighted ridge regression (λ = ``RIDGE``, intercept not penalised) of the
  best score on one value per token, one penalty per extra copy of any tile, one per unit of
  vowel/consonant imbalance beyond one (the first shipped model); values shifted so that the
  average tile of the set is worth 0, penalties clamped to at most 0;
* ``duplicates``: the same plus, per token, its own value for each extra copy; the ridge
  pulls it towards the shared penalty;
* ``pairs``: the same plus a value per pair of different tokens;
* ``means`` (``means_table``): the leave's worth read off the samples — the mean best score
  of the racks holding a tile (two copies, two different tiles) less the mean of all racks,
  the duplicate and pair values as what they add over the single values, shrunk by
  n / (n + ``SHRINK``).

The best model is refitted on all racks and shipped (``means``, in every ruleset measured so
far: docs/bots.md).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from typing import Any

from wordarena.engine.bots.leaves import LeaveTable, shape
from wordarena.engine.families import get_ruleset

RIDGE = 20.0
TEST_RACKS = 3000  # held-out racks the models are compared on (each with all its leaves)
SHRINK = 200.0  # samples at which a measured duplicate or pair value is trusted half
HOLD_OUT = 10  # one distinct rack in HOLD_OUT (by hash) is held out to compare the models
MODELS = ("tokens", "duplicates", "pairs")

Row = tuple[str, float, float, float]  # rack key, count, sum, sum of squares


def _pair(i: int, j: int, n_tok: int) -> int:
    """The index of the pair of tokens ``i < j`` among all pairs."""
    return i * n_tok - i * (i + 1) // 2 + (j - i - 1)


def _blocks(n_tok: int, model: str) -> tuple[int, int, int]:
    """(first duplicate column, first pair column, width without the two penalties)."""
    dups = 1 + n_tok
    pairs = dups + (n_tok if model in ("duplicates", "pairs") else 0)
    end = pairs + (n_tok * (n_tok - 1) // 2 if model == "pairs" else 0)
    return dups, pairs, end


def _features(key: str, tokens: dict[str, int], model: str) -> list[tuple[int, float]]:
    """The nonzero features of a rack as (column, value); column 0 is the intercept."""
    counts, imbalance = shape(key.split(" "))
    n_tok = len(tokens)
    dups, pairs, end = _blocks(n_tok, model)
    out: list[tuple[int, float]] = [(0, 1.0)]
    extra = 0
    for t, n in counts.items():
        out.append((1 + tokens[t], float(n)))
        if n > 1:
            extra += n - 1
            if model != "tokens":
                out.append((dups + tokens[t], float(n - 1)))
    if model == "pairs":
        present = sorted(tokens[t] for t in counts)
        for x, i in enumerate(present):
            for j in present[x + 1 :]:
                out.append((pairs + _pair(i, j, n_tok), 1.0))
    if extra:
        out.append((end, float(extra)))
    if imbalance:
        out.append((end + 1, float(imbalance)))
    return out


def _width(n_tok: int, model: str) -> int:
    return _blocks(n_tok, model)[2] + 2


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


def held_out_errors(
    rows: Iterable[Row], tokens: dict[str, int], model: str, weights: list[float]
) -> list[float]:
    """The squared error of ``weights`` summed over each rack's samples, per rack of ``rows``."""
    out = []
    for key, count, total, squares in rows:
        p = sum(weights[i] * v for i, v in _features(key, tokens, model))
        out.append(squares - 2 * p * total + count * p * p)
    return out


def _gain(base: list[float], other: list[float], counts: list[float]) -> tuple[float, float]:
    """How much lower ``other``'s mean squared error is than ``base``'s, and its standard
    error (racks as the independent units)."""
    n = sum(counts)
    diff = [a - b for a, b in zip(base, other, strict=True)]
    mean = sum(diff) / n
    var = sum((d - c * mean) ** 2 for d, c in zip(diff, counts, strict=True))
    return mean, var**0.5 / n


def table_from(
    family: str, language: str, tokens: dict[str, int], model: str, weights: list[float], games: int
) -> LeaveTable:
    """The leave table of fitted ``weights``."""
    n_tok = len(tokens)
    dups, pairs, end = _blocks(n_tok, model)
    raw = {t: weights[1 + k] for t, k in tokens.items()}
    counts = get_ruleset(family, language).tiles.counts
    total = sum(counts.get(t, 0) for t in raw) or 1
    mean = sum(v * counts.get(t, 0) for t, v in raw.items()) / total
    values = {t: round(v - mean, 2) for t, v in raw.items()}
    shared = weights[end]
    duplicates = {}
    if model != "tokens":
        duplicates = {t: round(shared + weights[dups + k], 2) for t, k in tokens.items()}
    synergy = {}
    if model == "pairs":
        order = sorted(tokens, key=lambda t: tokens[t])
        for x, a in enumerate(order):
            for b in order[x + 1 :]:
                synergy[f"{a} {b}"] = round(weights[pairs + _pair(tokens[a], tokens[b], n_tok)], 2)
    return LeaveTable(
        family,
        values,
        round(min(0.0, shared), 2),
        round(min(0.0, weights[end + 1]), 2),
        games,
        1.0,
        duplicates,
        language,
        synergy,
    )


def means_table(
    family: str, language: str, rows: Iterable[Row], games: int, shrink: float = SHRINK
) -> LeaveTable:
    """The ``means`` model: a leave's value read directly off the samples. A rack drawn at
    random that holds the leave is the leave plus a random draw, so the mean best score of the
    racks holding a tile, less the mean of all racks, is what keeping that tile is worth; the
    same for two copies of a tile (less twice the single value: its duplicate value) and for
    two different tiles (less both single values: their pair value). Duplicate and pair values
    are shrunk towards 0 by ``n / (n + shrink)`` (n: the samples holding them)."""
    single: dict[str, list[float]] = {}
    double: dict[str, list[float]] = {}
    pair: dict[str, list[float]] = {}
    n_all = s_all = 0.0
    for key, count, total, _ in rows:
        n_all += count
        s_all += total
        counts, _ = shape(key.split(" "))
        kept = sorted(counts)
        for k, t in enumerate(kept):
            e = single.setdefault(t, [0.0, 0.0])
            e[0] += count
            e[1] += total
            if counts[t] > 1:
                e = double.setdefault(t, [0.0, 0.0])
                e[0] += count
                e[1] += total
            for u in kept[k + 1 :]:
                e = pair.setdefault(f"{t} {u}", [0.0, 0.0])
                e[0] += count
                e[1] += total
    mu = s_all / n_all
    values = {t: round(e[1] / e[0] - mu, 2) for t, e in single.items()}

    def shrunk(e: list[float], base: float) -> float:
        return round((e[1] / e[0] - mu - base) * e[0] / (e[0] + shrink), 2)

    duplicates = {t: shrunk(e, 2 * values[t]) for t, e in double.items()}
    pairs: dict[str, float] = {}
    for name, e in pair.items():
        a, b = name.split(" ")
        pairs[name] = shrunk(e, values[a] + values[b])
    return LeaveTable(family, values, 0.0, 0.0, games, 1.0, duplicates, language, pairs)


def leave_error(table: LeaveTable, rows: Iterable[Row], mu: float, tiles: int) -> tuple[float, float]:
    """How well ``table`` predicts a rack's best score from part of it: over ``rows``, each
    rack's leaves of 1 to ``tiles`` - 1 tiles (every subset of its tiles), predicted as
    ``mu`` + the leave's value. (Sum of squared errors, samples.)"""
    sse = n = 0.0
    for key, count, total, squares in rows:
        rack = key.split(" ")
        size = len(rack)
        if size != tiles:
            continue
        for mask in range(1, (1 << size) - 1):
            p = mu + table.value([rack[i] for i in range(size) if mask >> i & 1])
            sse += squares - 2 * p * total + count * p * p
            n += count
    return sse, n


def fit_file(data: dict[str, Any], model: str | None = None) -> tuple[LeaveTable, str]:
    """The leave table of a samples file (``derive``'s), by the model that predicts the
    held-out racks' best scores from their leaves best, and a one-line report; ``model``
    (one of ``MODELS`` or ``means``) skips the comparison."""
    family, language, games = str(data["family"]), str(data["language"]), int(data["games"])
    rows: list[Row] = [(k, float(v[0]), float(v[1]), float(v[2])) for k, v in data["samples"].items()]
    if model == "means":
        table = means_table(family, language, rows, games)
        return table, f"{games} games, {int(sum(r[1] for r in rows))} samples ({len(rows)} racks): means"
    tokens = {t: k for k, t in enumerate(sorted({t for r in rows for t in r[0].split(" ")}))}
    train = [r for r in rows if zlib.crc32(r[0].encode()) % HOLD_OUT]
    test = [r for r in rows if not zlib.crc32(r[0].encode()) % HOLD_OUT][:TEST_RACKS]
    tiles = get_ruleset(family, language).rack_size
    mu = sum(r[2] for r in train) / (sum(r[1] for r in train) or 1)
    models = MODELS if model is None else (model,)
    tables = {m: table_from(family, language, tokens, m, solve(train, tokens, m), games) for m in models}
    if model is None:
        tables["means"] = means_table(family, language, train, games)
    base, n = leave_error(LeaveTable(family), test, mu, tiles)
    mse = {m: leave_error(t, test, mu, tiles)[0] / n for m, t in tables.items()}
    best = min(mse, key=lambda m: mse[m])
    if best == "means":
        table = means_table(family, language, rows, games)
    else:
        table = table_from(family, language, tokens, best, solve(rows, tokens, best), games)
    samples = int(sum(r[1] for r in rows))
    report = (
        f"{games} games, {samples} samples ({len(rows)} racks); held-out leave MSE "
        f"({int(n)} leave samples): no leave {base / n:.1f}, "
        + ", ".join(f"{m} {v:.2f}" for m, v in mse.items())
        + f" -> {best}"
    )
    return table, report
