"""What keeping a War of Words action tile for later is worth.

A bot that spends an action tile whenever the engine shows a gain wastes a Bomb on 3 points
that two turns later would have taken 25. Each turn it holds a tile of a kind, the best use of
that tile on that board is a draw from a distribution; measured by self-play
(:func:`collect`: level-5 players, the gains ``engine.bots.tactics.candidates`` finds for each
kind held, 0 when it finds none) and shipped as quantiles in ``data/keep-<family>-<lang>.json``.

With ``k`` more turns to use it, the worth of holding a tile is the value of an optimal stop
over ``k`` draws: ``V(0) = 0`` and ``V(k) = E[max(g, V(k - 1))]`` (spend it at a turn whose
gain beats what waiting is worth, else keep it). A bot spends the tile now only when the gain
beats ``V(k - 1)`` — early in the game only its best chances, near the end any gain.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from wordarena.engine.game.state import GameState
from wordarena.engine.warofwords.catalog import spec_of

QUANTILES = 40  # points of each kind's distribution kept in the shipped table
DEFAULT_TILES_PER_TURN = 3.0  # tiles a player draws a turn, when the table does not say


@dataclass(frozen=True)
class KeepTable:
    """Per action kind, quantiles of the best gain a held tile of that kind offers a turn."""

    gains: dict[str, tuple[float, ...]] = field(default_factory=dict)
    tiles_per_turn: float = DEFAULT_TILES_PER_TURN  # drawn per player turn, to count turns left
    games: int = 0  # self-play games measured
    _worth: dict[tuple[str, int], float] = field(default_factory=dict, compare=False, repr=False)

    def worth(self, kind: str, turns: int) -> float:
        """``V(turns)``: holding a tile of ``kind`` with ``turns`` more turns to use it (0 for a
        kind the table does not know: it is spent on any gain, as before)."""
        key = (kind, turns)
        found = self._worth.get(key)
        if found is None:
            draws = self.gains.get(kind, ())
            value = 0.0
            for _ in range(max(0, turns) if draws else 0):
                value = sum(max(g, value) for g in draws) / len(draws)
            found = self._worth[key] = value
        return found

    def turns_left(self, state: GameState) -> int:
        """The mover's turns after this one while tiles can still be drawn (each player draws
        about ``tiles_per_turn`` a turn); the turns of the end game are not counted."""
        return int(len(state.bag) / (self.tiles_per_turn * state.players))

    def keep(self, state: GameState, kind: str) -> float:
        """What the mover gives up by spending a tile of ``kind`` now."""
        return self.worth(kind, self.turns_left(state))


@cache
def keep_table(family: str, language: str) -> KeepTable:
    """The shipped table of ``family``/``language`` (English's when the language has none; an
    empty one, worth nothing, when the family has none)."""
    for lang in (language, "en"):
        path = resources.files("wordarena.engine.bots") / "data" / f"keep-{family}-{lang}.json"
        if path.is_file():
            return read_table(path.read_text())
    return KeepTable()


def read_table(text: str) -> KeepTable:
    """A table from its JSON (as :func:`main` writes it)."""
    raw = json.loads(text)
    return KeepTable({k: tuple(v) for k, v in raw["gains"].items()}, raw["tiles_per_turn"],
                     raw["games"])


def kind(token: str) -> str | None:
    """The action kind of a rack token (``@bomb`` -> ``bomb``), None for a letter."""
    spec = spec_of(token)
    return None if spec is None else spec.name


def kind_of(placements: Sequence[Any]) -> str | None:
    """The action kind a candidate's placements put down (a Portal pair is one ``portal``)."""
    return next((k for p in placements if (k := kind(p.letter)) is not None), None)


def quantiles(values: Sequence[float], n: int = QUANTILES) -> list[float]:
    """``n`` evenly spaced quantiles (midpoints of ``n`` equal shares) of ``values``."""
    ordered = sorted(values)
    return [round(ordered[min(len(ordered) - 1, int((i + 0.5) * len(ordered) / n))], 2)
            for i in range(n)]


def collect(games: int, seed: int = 0, language: str = "en") -> dict[str, Any]:
    """Plays ``games`` level-5 War of Words games and measures, at every turn a player holds
    action tiles while the bag is not empty, the best gain ``tactics.candidates`` finds for each
    kind it holds (0 when none gains), beside the play the bot chose. The table's raw form."""
    from wordarena.engine.bots.bot import Bot
    from wordarena.engine.bots.selfplay import play_game
    from wordarena.engine.bots.tactics import candidates
    from wordarena.engine.families import get_ruleset
    from wordarena.engine.game.actions import Play
    from wordarena.engine.lexicon import load_lexicon
    from wordarena.engine.movegen import generate_moves

    ruleset = get_ruleset("warofwords", language)
    lexicon = load_lexicon(ruleset.lexicon)
    gains: dict[str, list[float]] = defaultdict(list)
    drawn = turns = 0

    def on_turn(before: GameState, action: Any, after: GameState) -> None:
        nonlocal drawn, turns
        seat = before.to_move
        turns += 1
        drawn += max(0, len(before.bag) - len(after.bag))
        held = {k for t in before.racks[seat] if (k := kind(t)) is not None}
        if not held or not before.bag or before.pending is not None:
            return
        letters = tuple(p for p in action.placements if kind(p.letter) is None) \
            if isinstance(action, Play) else ()
        best: dict[str, float] = dict.fromkeys(held, 0.0)
        for c in candidates(before, seat, letters, generate_moves(before, seat)):
            kind = kind_of(c.placements)
            if kind in best:
                best[kind] = max(best[kind], c.gain)
        for kind, gain in best.items():
            gains[kind].append(gain)

    for g in range(games):
        play_game(ruleset, [Bot(5, seed + g, lexicon), Bot(5, seed + g + 1, lexicon)], seed + g,
                  lexicon, on_turn=on_turn)
    return {"games": games, "tiles_per_turn": round(drawn / max(turns, 1), 3),
            "gains": {k: quantiles(v) for k, v in sorted(gains.items())},
            "samples": {k: len(v) for k, v in sorted(gains.items())}}


def main(argv: list[str] | None = None) -> int:
    """``python -m wordarena.engine.bots.actionkeep GAMES OUT.json [--seed N]``."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", type=int)
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    table = collect(args.games, args.seed)
    lines = [f'  "{k}": {json.dumps(v)}' for k, v in table["gains"].items()]
    head = {k: v for k, v in table.items() if k != "gains"}
    with open(args.out, "w") as f:  # a kind's quantiles on one line each
        f.write(json.dumps(head)[:-1] + ', "gains": {\n' + ",\n".join(lines) + "\n}}\n")
    print(json.dumps(table["samples"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
