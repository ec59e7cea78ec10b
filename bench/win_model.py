"""How well ``winmodel.win_chance`` predicts who wins: positions of level-5 self-play games
(game ``seed`` for seeds ``--first`` ...), each seen by the seat to move — its lead (its score less
the best other's) and the tiles it has not seen (bag and other racks) — against how the game
ended for that seat (a win 1, a tie ½, a loss 0).

Fitted on the even games by maximum likelihood (a grid): the worth of having the move, the
deviation of a normal model of the final lead per band of unseen tiles, and the line
``sigma = max(FLOOR, A + B × unseen)`` (a ``WinModel``). Printed per band: the positions, the
share won, the shipped model's mean estimate and the fitted deviation; then the log-loss and
Brier score on the odd games (held out) of the first guess, of ``win_chance`` as shipped
(``WIN_MODELS``) and of the fitted line.

    .venv/bin/python bench/win_model.py [--family classic] [--games 600] [--first 100000]

A figure script, not a timed test.
"""

from __future__ import annotations

import argparse
import math

from wordarena.engine.bots import Bot
from wordarena.engine.bots.selfplay import play_game
from wordarena.engine.bots.simulation import unseen_pool
from wordarena.engine.bots.winmodel import WIN_MODELS, WinModel, win_chance
from wordarena.engine.families import get_ruleset
from wordarena.engine.game.state import GameState
from wordarena.engine.lexicon import load_lexicon

#: (game, unseen tiles, lead of the seat to move, how the game ended for it)
Sample = tuple[int, int, float, float]
BANDS = ((0, 7), (8, 14), (15, 20), (21, 30), (31, 45), (46, 60), (61, 200))
#: the estimate before it was fitted: 4 points of deviation a tile (at least 8), no tempo
GUESS = WinModel(8.0, 0.0, 4.0, 0.0)


def collect(family: str, first: int, games: int) -> list[Sample]:
    """The positions of ``games`` level-5 self-play games (module doc)."""
    ruleset = get_ruleset(family)
    lexicon = load_lexicon(ruleset.lexicon)
    out: list[Sample] = []
    for g in range(first, first + games):
        seen: list[tuple[int, int, float]] = []

        def on_turn(before: GameState, _action: object, _after: GameState) -> None:
            if before.pending is not None:
                return
            seat = before.to_move
            lead = before.scores[seat] - max(s for i, s in enumerate(before.scores) if i != seat)
            seen.append((seat, len(unseen_pool(before, seat)), float(lead)))  # noqa: B023

        outcome = play_game(ruleset, [Bot(5, g, lexicon), Bot(5, g + 1, lexicon)], g, lexicon, on_turn)
        final = outcome.scores
        for seat, unseen, lead in seen:
            mine, theirs = final[seat], max(s for i, s in enumerate(final) if i != seat)
            out.append((g, unseen, lead, 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0))
    return out


def scores(samples: list[Sample], model: WinModel) -> tuple[float, float]:
    """(log-loss, Brier score) of ``win_chance`` by ``model`` on ``samples`` (the seat to move)."""
    loss = brier = 0.0
    for _, unseen, lead, won in samples:
        p = min(max(win_chance(lead, unseen, model), 1e-6), 1 - 1e-6)
        loss -= won * math.log(p) + (1 - won) * math.log(1 - p)
        brier += (p - won) ** 2
    return loss / len(samples), brier / len(samples)


#: the grids' unit, in points: 1 for the crossword families; War of Words' scores run ten times higher
UNIT = {"warofwords": 10.0}


def fit_sigma(samples: list[Sample], tempo: float, unit: float = 1.0) -> tuple[float, float]:
    """(deviation, log-loss) of the normal model with ``tempo`` that best predicts ``samples``."""
    fits = ((scores(samples, WinModel(s, 0.0, 0.0, tempo))[0], s)
            for s in (unit * x for x in range(4, 400, 4)))
    loss, sigma = min(fits)
    return sigma, loss


def fit_tempo(bands: list[list[Sample]], unit: float = 1.0) -> float:
    """The worth of having the move that, with each band's own deviation, predicts best."""
    return min((unit * t for t in range(0, 31, 2)),
               key=lambda t: sum(fit_sigma(band, t, unit)[1] * len(band) for band in bands))


def fit_line(samples: list[Sample], tempo: float, unit: float = 1.0) -> tuple[float, float, float]:
    """(floor, a, b) of ``sigma = max(floor, a + b × unseen)`` by maximum likelihood (a grid)."""
    best, arg = math.inf, (8.0, 0.0, 4.0)
    for floor in (unit * f for f in (8, 12, 16, 20, 25, 30)):
        for a in (unit * a for a in range(0, 61, 5)):
            for b10 in range(5, 61, 2):
                b = unit * b10 / 10
                loss = scores(samples, WinModel(floor, a, b, tempo))[0]
                if loss < best:
                    best, arg = loss, (floor, float(a), b)
    return arg


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", default="classic", choices=("classic", "scrabble", "wordtiles", "warofwords"))
    ap.add_argument("--games", type=int, default=600)
    ap.add_argument("--first", type=int, default=100_000)
    args = ap.parse_args()
    samples = collect(args.family, args.first, args.games)
    train = [s for s in samples if s[0] % 2 == 0]
    test = [s for s in samples if s[0] % 2 == 1]
    print(f"{args.family}: {len(samples)} positions of {args.games} level-5 games "
          f"(fitted on {len(train)}, scored on {len(test)})")
    bands = [[s for s in train if lo <= s[1] <= hi] for lo, hi in BANDS]
    unit = UNIT.get(args.family, 1.0)
    shipped = WIN_MODELS[args.family]
    tempo = fit_tempo([b for b in bands if len(b) >= 30], unit)
    print(f"  the move is worth {tempo:.0f} points (fitted)")
    print("  unseen   positions  won   win_chance  fitted sigma  (the guess's)")
    for (lo, hi), band in zip(BANDS, bands, strict=True):
        if len(band) < 30:
            continue
        won = sum(s[3] for s in band) / len(band)
        est = sum(win_chance(s[2], s[1], shipped) for s in band) / len(band)
        mid = (lo + min(hi, 100)) / 2
        sigma = fit_sigma(band, tempo, unit)[0]
        print(f"  {lo:3d}-{hi:<3d}  {len(band):9d}  {won:.3f}  {est:.3f}       {sigma:6.0f}"
              f"        ({max(GUESS.floor, GUESS.per_tile * mid):.0f})")
    floor, a, b = fit_line(train, tempo, unit)
    guess, current = scores(test, GUESS), scores(test, shipped)
    fitted = scores(test, WinModel(floor, a, b, tempo))
    print(f"  the guess (sigma = 4 × unseen, no tempo): log-loss {guess[0]:.4f}, Brier {guess[1]:.4f}")
    print(f"  win_chance as shipped: log-loss {current[0]:.4f}, Brier {current[1]:.4f}")
    print(f"  fitted (sigma = max({floor:.0f}, {a:.0f} + {b:.1f} × unseen), the move worth {tempo:.0f}): "
          f"log-loss {fitted[0]:.4f}, Brier {fitted[1]:.4f}")


if __name__ == "__main__":
    main()
