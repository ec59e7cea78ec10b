"""The pre-end-game: 1 to 7 tiles in the bag, 2 players.

The seat to move does not know which of the unseen tiles (the bag and the opponent's rack) are
in the bag. :func:`preendgame_choice` scores each candidate play over the possible bags:

1. **candidates**: the ``candidates`` best plays by equity (score + the leave's value, weighted
   as level 5 weighs it), the best play that empties the bag if not among them, and the pass;
2. **bags**: every distinct multiset of ``len(bag)`` tiles out of the unseen tiles, weighted by
   the number of ways to draw it, when there are at most ``max_bags`` of them; otherwise
   ``max_bags`` random draws (seeded: ``random.Random(f"preendgame/{seed}")``), each of weight
   1. The bag's order (which tiles a play draws first) is one seeded shuffle of the multiset;
3. **scoring**: for each candidate and bag, the hypothetical position (that bag, the opponent
   holding the rest) gets the candidate applied by the engine (``apply``); if the bag is then
   empty the end game is searched (:func:`engine.bots.endgame.solve_endgame`, ``node_limit``
   nodes each, so the outcome does not depend on the machine's speed); otherwise both sides
   play their best-scoring move until the bag is empty and the end game is searched the same
   way. Once the wall-clock budget is spent, the remaining bags are played out greedily to the
   end instead (a cheap rollout), and ``complete`` says so;
4. **choice**: the candidate with the best weighted mean final spread; ties by the share of
   bags won (a tie counting half), then by the candidate's order (``by_wins``: the share of
   bags won first, then the spread; ``bench/preendgame.py`` compares both with level 6).

Deterministic for a seed whenever it finishes within its budget (``complete``).
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from wordarena.engine.bots.endgame import ENDGAME_FAMILIES, solve_endgame, spread, supports
from wordarena.engine.bots.leaves import leave_table
from wordarena.engine.bots.simulation import candidates_of
from wordarena.engine.game.actions import Action, Decide, Pass
from wordarena.engine.game.play import replace_at
from wordarena.engine.game.state import GameState
from wordarena.engine.game.turns import apply
from wordarena.engine.movegen import generate_moves
from wordarena.engine.tiles import remove_tokens

CANDIDATES = 8
MAX_BAGS = 24
NODE_LIMIT = 300  # per end-game search: ~0.4-2 CPU s for a 1-2 tile bag (bench/results/bots-history.md)
MAX_TURNS = 60


@dataclass(frozen=True)
class Candidate:
    """One candidate's evaluation: its mean final spread and share of bags won."""

    action: Action
    mean: float
    win_share: float
    bags: int


@dataclass(frozen=True)
class PreendgameResult:
    """The chosen action and every candidate's evaluation (best first)."""

    action: Action
    candidates: tuple[Candidate, ...]
    complete: bool
    seconds: float


def possible_bags(
    unseen: list[str], size: int, max_bags: int, rng: random.Random
) -> list[tuple[tuple[str, ...], int]]:
    """(bag multiset, weight) for the bags of ``size`` tiles out of ``unseen`` (see step 2)."""
    counts = sorted(Counter(unseen).items())
    bags: list[tuple[tuple[str, ...], int]] = []
    for bag, weight in _multisets(counts, size):
        bags.append((bag, weight))
        if len(bags) > max_bags:
            break
    if len(bags) <= max_bags:
        return bags
    draws = []
    for _ in range(max_bags):
        pool = list(unseen)
        rng.shuffle(pool)
        draws.append((tuple(sorted(pool[:size])), 1))
    return draws


def _multisets(counts: list[tuple[str, int]], size: int) -> Iterator[tuple[tuple[str, ...], int]]:
    if size == 0:
        yield (), 1
        return
    if not counts:
        return
    (token, have), rest = counts[0], counts[1:]
    for take in range(min(have, size), -1, -1):
        for tail, weight in _multisets(rest, size - take):
            yield (token,) * take + tail, weight * math.comb(have, take)


def preendgame_choice(
    state: GameState,
    lexicon: Any,
    budget_s: float,
    seed: int = 0,
    *,
    candidates: int = CANDIDATES,
    max_bags: int = MAX_BAGS,
    node_limit: int = NODE_LIMIT,
    by_wins: bool = False,
) -> PreendgameResult:
    """The best action for the seat to move with 1-7 tiles in the bag (see the module doc):
    by mean final spread, then share of bags won; ``by_wins``: by share of bags won first
    (what a player who wants to win ranks by). Raises ``ValueError`` for another position."""
    if not applies(state):
        raise ValueError(
            "preendgame_choice needs a 2-player classic, scrabble or wordtiles "
            "game with 1 to rack-size tiles in the bag"
        )
    started = time.monotonic()
    rng = random.Random(f"preendgame/{seed}")
    worlds = scenarios(state, max_bags, rng)
    actions = candidate_actions(state, lexicon, candidates)
    results, complete = evaluate(worlds, actions, lexicon, started + budget_s, node_limit)

    def order(i: int) -> tuple[float, float, int]:
        c = results[i]
        return (-c.win_share, -c.mean, i) if by_wins else (-c.mean, -c.win_share, i)

    best_first = sorted(range(len(results)), key=order)
    ranked = tuple(results[i] for i in best_first)
    return PreendgameResult(ranked[0].action, ranked, complete, time.monotonic() - started)


def applies(state: GameState) -> bool:
    """Whether ``state`` is a pre-end-game this module plays: 2 players, a family the end-game
    search covers, 1 to rack-size tiles in the bag, no play pending."""
    return (
        state.players == 2
        and state.ruleset.family in ENDGAME_FAMILIES
        and not state.over
        and 1 <= len(state.bag) <= state.ruleset.rack_size
        and state.pending is None
    )


def scenarios(state: GameState, max_bags: int, rng: random.Random) -> list[tuple[GameState, int]]:
    """(hypothetical position, weight) per possible bag (step 2): that bag, in one seeded
    order, and the opponent holding the rest of the unseen tiles."""
    opp = 1 - state.to_move
    unseen = list(state.bag) + list(state.racks[opp])
    out = []
    for bag, weight in possible_bags(unseen, len(state.bag), max_bags, rng):
        order = list(bag)
        rng.shuffle(order)
        rack = remove_tokens(unseen, bag)
        out.append((state.evolve(bag=tuple(order), racks=replace_at(state.racks, opp, rack)), weight))
    return out


def evaluate(
    worlds: list[tuple[GameState, int]],
    actions: list[Action],
    lexicon: Any,
    deadline: float,
    node_limit: int,
) -> tuple[list[Candidate], bool]:
    """Each action's weighted mean final spread and share of bags won over ``worlds`` (step 3),
    in the order given; and whether every play-out was searched rather than rolled out."""
    complete = True
    results = []
    for action in actions:
        total, won, weights = 0.0, 0.0, 0
        for hypo, weight in worlds:
            final, finished = play_out(hypo, action, lexicon, deadline, node_limit)
            complete = complete and finished
            total += weight * final
            won += weight * (1.0 if final > 0 else 0.5 if final == 0 else 0.0)
            weights += weight
        results.append(Candidate(action, total / weights, won / weights, weights))
    return results, complete


def candidate_actions(state: GameState, lexicon: Any, count: int) -> list[Action]:
    """The ``count`` best plays by equity, the best play that empties the bag, and the pass."""
    seat = state.to_move
    moves = generate_moves(state, seat, lexicon)
    table = leave_table(state.ruleset.family, state.ruleset.language)
    chosen = [c.move for c in candidates_of(state, seat, moves, table, count, None)
              if c.move is not None]
    empties = next((m for m in moves if m.tile_count >= len(state.bag)), None)
    if empties is not None and empties not in chosen:
        chosen.append(empties)
    actions: list[Action] = [m.to_play(seat) for m in chosen]
    return [*actions, Pass(seat)]


def play_out(
    hypo: GameState, action: Action, lexicon: Any, deadline: float, node_limit: int
) -> tuple[int, bool]:
    """(final spread for the mover of ``hypo`` after ``action``, whether it was searched as
    planned rather than rolled out greedily for lack of time)."""
    seat = hypo.to_move
    state, _ = apply(hypo, action)
    for _ in range(MAX_TURNS):
        if state.over:
            return spread(state, seat), True
        if supports(state):
            if time.monotonic() > deadline:
                return greedy_finish(state, seat, lexicon), False
            result = solve_endgame(
                state, lexicon, max(0.0, deadline - time.monotonic()), node_limit=node_limit
            )
            mine = result.value if state.to_move == seat else -result.value
            return mine, True
        state, _ = apply(state, greedy_action(state, lexicon))
    return spread(state, seat), True  # pragma: no cover - games end well before


def greedy_action(state: GameState, lexicon: Any) -> Action:
    """The best-scoring play (accepting a pending play; passing without a play)."""
    seat = state.to_move
    if state.pending is not None:
        return Decide(seat, True)
    moves = generate_moves(state, seat, lexicon)
    return moves[0].to_play(seat) if moves else Pass(seat)


def greedy_finish(state: GameState, seat: int, lexicon: Any) -> int:
    """``seat``'s final spread when both sides play their best-scoring move to the end."""
    for _ in itertools.repeat(None, MAX_TURNS):
        if state.over:
            break
        state, _ = apply(state, greedy_action(state, lexicon))
    return spread(state, seat)
