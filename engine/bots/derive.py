"""Deriving leave values by self-play (how ``data/leaves-<family>.json`` is made).

Expert bots (level 4, greedy) play each other. After every play made while the bag still holds
tiles, the tiles the player kept (its *leave*) are recorded with the score that player makes on
its next turn. A token's value is how much more than average the next turn scores when the
token is kept; the duplicate and vowel/consonant penalties are the average remaining surplus per
extra copy and per unit of imbalance. Run it with
``python -m engine.bots.derive FAMILY GAMES [SAMPLES.json]``.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from engine.bots.bot import Bot
from engine.bots.leaves import VOWELS, LeaveTable
from engine.bots.selfplay import play_game
from engine.game import Decide, Play
from engine.game.state import GameState
from engine.lexicon import load_lexicon
from engine.rulesets import get_ruleset
from engine.tiles import is_action

SHRINK = 20


def collect(family: str, games: int, seed: int = 0) -> list[tuple[tuple[str, ...], int]]:
    """(leave, next-turn score) samples from ``games`` expert self-play games."""
    ruleset = get_ruleset(family)
    lexicon = load_lexicon(ruleset.lexicon)
    samples: list[tuple[tuple[str, ...], int]] = []
    for g in range(games):
        play_game(ruleset, [Bot(4, seed + g, lexicon), Bot(4, seed + g + 1, lexicon)],
                  seed + g, lexicon, _recorder(samples))
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


def fit(family: str, samples: list[tuple[tuple[str, ...], int]], games: int) -> LeaveTable:
    """Leave values from samples (first-order: per token, then shape penalties)."""
    mean = sum(s for _, s in samples) / len(samples)
    by_token: dict[str, list[int]] = defaultdict(list)
    for leave, score in samples:
        for token in set(leave):
            by_token[token].append(score)
    # shrunk towards 0 (as if SHRINK more samples had scored the mean): rare tiles stay modest
    values = {t: round((sum(v) - mean * len(v)) / (len(v) + SHRINK), 2)
              for t, v in by_token.items() if len(v) >= 5}
    dup_res, bal_res = [], []
    for leave, score in samples:
        residual = score - mean - sum(values.get(t, 0.0) for t in set(leave))
        extra = sum(n - 1 for n in Counter(leave).values() if n > 1)
        if extra:
            dup_res.append(residual / extra)
        vowels = sum(1 for t in leave if t in VOWELS)
        imbalance = max(0, abs(vowels - (len(leave) - vowels)) - 1)
        if imbalance:
            bal_res.append(residual / imbalance)
    duplicate = round(min(0.0, sum(dup_res) / len(dup_res)), 2) if dup_res else -2.0
    balance = round(min(0.0, sum(bal_res) / len(bal_res)), 2) if bal_res else -1.0
    return LeaveTable(family, values, duplicate, balance, games)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    family, games = args[0], int(args[1])
    samples = collect(family, games)
    if len(args) > 2:  # keep the raw samples, to refit without replaying
        Path(args[2]).write_text(json.dumps(samples), encoding="utf-8")
    table = fit(family, samples, games)
    out = Path(__file__).resolve().parent / "data" / f"leaves-{family}.json"
    out.write_text(json.dumps(table.to_json(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{out}: {len(table.values)} tokens from {games} games")
    return 0


if __name__ == "__main__":
    sys.exit(main())
