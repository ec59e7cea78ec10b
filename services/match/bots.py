"""Bot seats. Uses the engine's bots (``engine.bots``) when they are available; until then a
simple greedy player: the highest-scoring play it finds among one-tile plays next to the tiles on
the board and short words over the start square, else an exchange, else a pass."""

from __future__ import annotations

import itertools
from typing import Any

from engine.errors import EngineError
from engine.game import Action, Exchange, GameState, Pass, Play, apply
from engine.placement import Placement
from engine.tiles import BLANK, WILDCARD, is_action


def choose(state: GameState, seat: int, level: int) -> Action:
    """The bot's action for ``seat`` (blocking; run in a thread)."""
    try:  # the engine's bots, once they land
        from engine import bots as engine_bots  # type: ignore[attr-defined]

        pick: Any = getattr(engine_bots, "choose_action", None) or getattr(engine_bots, "choose", None)
        if pick is not None:
            return pick(state, seat, level)  # type: ignore[no-any-return]
    except ImportError:
        pass
    play = greedy_play(state, seat)
    return play if play is not None else fallback(state, seat)


def _score(state: GameState, action: Play) -> int | None:
    try:
        new, _ = apply(state, action)
    except EngineError:
        return None
    return new.scores[action.seat] - state.scores[action.seat]


def greedy_play(state: GameState, seat: int, max_tries: int = 4000) -> Play | None:
    """The best play found by a small search (see the module doc), or None."""
    layout = state.ruleset.board
    letters = sorted({t for t in state.racks[seat] if not is_action(t) and t not in (BLANK, WILDCARD)})
    best: tuple[int, Play] | None = None
    tries = 0
    if all(cell is None for cell in state.cells):
        start = layout.start if layout.start is not None else layout.index(layout.rows // 2, layout.cols // 2)
        r0, c0 = divmod(start, layout.cols)
        rack = [t for t in state.racks[seat] if t in letters]
        for n in (2, 3, 4, 5):
            for perm in set(itertools.permutations(rack, n)):
                for off in range(n):
                    if c0 - off < 0 or c0 - off + n > layout.cols:
                        continue
                    play = Play(seat, tuple(Placement(r0, c0 - off + k, ch) for k, ch in enumerate(perm)))
                    tries += 1
                    s = _score(state, play)
                    if s is not None and (best is None or s > best[0]):
                        best = (s, play)
                    if tries > max_tries:
                        return best[1] if best else None
        return best[1] if best else None
    for i, cell in enumerate(state.cells):
        if cell is not None:
            continue
        r, c = divmod(i, layout.cols)
        near = any(
            layout.in_bounds(r + dr, c + dc) and state.cells[layout.index(r + dr, c + dc)] is not None
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
        )
        if not near:
            continue
        for ch in letters:
            play = Play(seat, (Placement(r, c, ch),))
            tries += 1
            s = _score(state, play)
            if s is not None and (best is None or s > best[0]):
                best = (s, play)
            if tries > max_tries:
                return best[1] if best else None
    return best[1] if best else None


def fallback(state: GameState, seat: int) -> Action:
    """Exchange the whole rack when the rules allow it, else pass."""
    rule = state.ruleset.exchange
    rack = state.racks[seat]
    used = state.exchanges[seat] if state.exchanges else 0
    if rack and len(state.bag) >= max(rule.min_bag, len(rack)) and (
            rule.per_player is None or used < rule.per_player):
        return Exchange(seat, tuple(rack))
    return Pass(seat)
