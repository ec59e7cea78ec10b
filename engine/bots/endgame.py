"""The end game: an exact search once the bag is empty in a 2-player game.

With the bag empty both racks are known (the opponent holds the unseen tiles), so the rest of
the game is a finite two-player game of perfect information. :func:`solve_endgame` searches it
with negamax and alpha-beta:

* **values** are spreads: a node's value is how much the seat to move gains on its opponent
  from there to the end of the game; the root's value plus the current spread is the final
  spread under best play by both;
* **positions** are light (board, both racks, seat to move, run of zero turns, whether anyone
  has scored): a full ``GameState`` per node cost ~1.3 ms in ``apply`` (profiled), most of a node.
  A play's score is the generator's (``generate`` promises ``apply``'s score); a turn extends
  the run of zero turns when its kind is in the family's ``zero_turns.counts``; the run's limit
  is the engine's ``zero_turn_limit``; and the end of the game — going out, or the run reaching
  its limit — is scored by the engine's own ``end_game`` (rack transfer, doubling or deduction,
  overtime penalties), cached per pair of racks. The test suite checks the whole against a
  brute-force minimax that plays every move with the engine's ``apply``;
* **moves** are every play of the native generator (generated once per board and rack, cached)
  plus the pass. No move is pruned (no top-K): exactness needs every move;
* **iterative deepening** on the number of turns, with a guess at the horizon (the racks'
  values: who is likely to go out); the search is **exact** when an iteration finishes without
  reaching its horizon anywhere;
* **principal variation search**: the first move with the full window, the others with a null
  window (is it better than the best so far?), searched again only when it is;
* **ordering**: the transposition table's best move, then the killer of the ply, then plays that
  go out, then by score; the pass last;
* **transposition table** keyed by the tiles laid since the root (an XOR of hashes of
  (square, letter, blank)), both racks, the seat to move, the run of zero turns and whether
  anyone has scored (classic's 0-0 rule): all the rest of the game depends on. Entries keep an
  exact value or a lower / upper bound, the depth and whether their subtree reached a horizon
  (an entry that did not is valid at any depth);
* **two implementations**: this module is the reference; ``engine.bots.endgame_native`` runs
  the same search in C (same moves, order, windows and table rules: the same value, move, line
  and node count), used by :func:`solve_endgame` when the extension is built;
* **budget**: ``budget_s`` of wall-clock time (and optionally a node limit, which is
  repeatable); when it runs out, the best root move of the iteration it cut short is returned
  with ``exact=False`` — among the root moves that iteration searched to its end; the first is
  the last finished iteration's best, so another comes back only when it did better — or,
  when not even one was, the last finished iteration's best move.

Families: ``classic``, ``scrabble`` and ``wordtiles`` (:data:`ENDGAME_FAMILIES`), 2 players, no
play pending. In ``wordtiles`` a valid play is accepted or checked; checking a valid play loses
the checker's turn, which is the same as accepting and passing (both a zero turn), so the
search plays accept-or-pass and the caller decides a pending play before calling. War of Words
is not covered: its action tiles, Rain / Whirlwind moves and board effects are not produced by
the move generator, and its effects act between turns, so a search over letter plays and passes
would not be exact there.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from wordarena.engine.board import Cells, with_tiles
from wordarena.engine.bots import endgame_native
from wordarena.engine.game.actions import Action, Decide, Pass
from wordarena.engine.game.endgame import end_game, zero_turn_limit
from wordarena.engine.game.state import GameState
from wordarena.engine.game.turns import apply
from wordarena.engine.movegen import Move, generate
from wordarena.engine.movegen.native_bridge import implementation
from wordarena.engine.rulesets.model import WordCheck
from wordarena.engine.tiles import Tile

#: Families whose end game the search plays exactly (see the module doc).
ENDGAME_FAMILIES = frozenset({"classic", "scrabble", "wordtiles"})

EXACT, LOWER, UPPER = 0, 1, 2
INFINITY = 1 << 30
CLOCK_EVERY = 256  # nodes between two looks at the clock
CACHE_LIMIT = 200_000  # generated move lists kept (then the cache starts again)
PASS = Move(0, (), False, 0)  # the pass, in the search's lists of moves (no tiles)

Racks = tuple[tuple[str, ...], tuple[str, ...]]


class OutOfTime(Exception):
    """The budget ran out in the middle of an iteration."""


@dataclass(frozen=True)
class EndgameResult:
    """The outcome of an end-game search for the seat to move.

    ``action`` is the move to make; ``value`` the final spread (the seat's final score minus its
    opponent's) after ``pv`` (the principal variation, ``action`` first) when both play it;
    ``exact`` is True when the search finished (``value`` is then the game's value); ``nodes``
    the positions visited; ``depth`` the turns of the last finished iteration (when the search
    is cut short, ``action`` and ``value`` may come from the next one, in part searched)."""

    action: Action
    value: int
    pv: tuple[Action, ...]
    exact: bool
    nodes: int
    depth: int
    seconds: float = 0.0


@dataclass
class Entry:
    """A transposition-table entry (values relative to the node: the mover's future gain)."""

    depth: int
    flag: int
    value: int
    best: Move  # the best move (``PASS``: the pass), for ordering and the variation
    horizon: bool  # the subtree reached the depth limit somewhere


def end_adjustment(
    root: GameState, racks: Racks, reason: str, out_seat: int | None
) -> tuple[int, int]:
    """What the engine's ``end_game`` adds to each seat's score when the game ends from
    ``root`` with ``racks`` for ``reason`` (both searches' one source for the end's rule)."""
    state = root.evolve(racks=racks)
    ended, _ = end_game(state, reason, [], out_seat)
    assert ended.result is not None
    got = tuple(a - b for a, b in zip(ended.result.scores, state.scores, strict=True))
    return got[0], got[1]


def spread(state: GameState, seat: int) -> int:
    """``seat``'s score minus its opponent's (2 players)."""
    return state.scores[seat] - state.scores[1 - seat]


def supports(state: GameState) -> bool:
    """True when :func:`solve_endgame` plays this position exactly: a 2-player game of a
    family in :data:`ENDGAME_FAMILIES`, both seats active, the bag empty, no play pending."""
    return (
        state.players == 2
        and state.ruleset.family in ENDGAME_FAMILIES
        and len(state.active_seats) == 2
        and not state.bag
        and not state.over
        and state.pending is None
    )


def after_move(rack: tuple[str, ...], move: Move) -> tuple[str, ...]:
    """The (sorted) rack left after ``move``."""
    left = list(rack)
    for _, letter, blank in move.tiles:
        left.remove("?" if blank else letter)
    return tuple(left)


@dataclass
class Search:
    """One end-game search from ``root`` (its tables live as long as it does)."""

    root: GameState
    lexicon: Any
    deadline: float
    node_limit: int | None = None  # stop after this many nodes too (repeatable, unlike time)
    cutoffs: bool = True  # False: the table orders moves but never ends a search (the tests' check)
    nodes: int = 0
    tt: dict[Any, Entry] = field(default_factory=dict)
    moves: dict[Any, list[Move]] = field(default_factory=dict)
    ends: dict[Any, tuple[int, int]] = field(default_factory=dict)
    killers: dict[int, Move] = field(default_factory=dict)
    # the current iteration's best root move so far and its value (its subtree searched to the
    # end of the iteration): what an iteration cut short by the budget has found
    partial: tuple[Move, int] | None = None

    def __post_init__(self) -> None:
        root = self.root
        self.counts = root.ruleset.zero_turns.counts
        # The engine's limits of a zero-turn run: while every score is 0, and after.
        self.limits = (
            zero_turn_limit(root.evolve(scores=(1, 0))),
            zero_turn_limit(root.evolve(scores=(0, 0))),
        )
        self.effects = root.board_effects

    # -- the rules ------------------------------------------------------------------------

    def final(self, racks: Racks, reason: str, out_seat: int | None) -> tuple[int, int]:
        """What the engine's ``end_game`` adds to each seat's score (cached per racks)."""
        key = (racks, reason, out_seat)
        found = self.ends.get(key)
        if found is None:
            found = self.ends[key] = end_adjustment(self.root, racks, reason, out_seat)
        return found

    def generated(self, cells: Cells, board: int, rack: tuple[str, ...]) -> list[Move]:
        """The rack's plays on the board, best-scoring first (generated once, then cached)."""
        key = (board, rack)
        moves = self.moves.get(key)
        if moves is None:
            moves = generate(self.root.ruleset, cells, rack, self.lexicon, self.effects,
                             ordered=True)
            if len(self.moves) > CACHE_LIMIT:
                self.moves.clear()
            self.moves[key] = moves
        return moves

    # -- the search -----------------------------------------------------------------------

    def tick(self) -> None:
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise OutOfTime
        if self.nodes % CLOCK_EVERY == 0 and time.monotonic() > self.deadline:
            raise OutOfTime

    def step(
        self, cells: Cells, board: int, racks: Racks, seat: int, run: int, scored: bool, move: Move
    ) -> tuple[int, Node | None]:
        """(the mover's gain, the next position or None when the game ends) after ``move``."""
        gain = move.score
        rack = racks[seat]
        if move.tiles:
            kind = "word" if gain else "scoreless"
            left = after_move(rack, move)
        else:
            kind, left = "pass", rack
        child_racks: Racks = (left, racks[1]) if seat == 0 else (racks[0], left)
        child_run = run + 1 if kind in self.counts else 0
        scored = scored or gain > 0
        other = 1 - seat
        if move.tiles and not left:  # went out (the bag is empty)
            end = self.final(child_racks, "out", seat)
            return gain + end[seat] - end[other], None
        if child_run >= self.limits[0 if scored else 1]:
            end = self.final(child_racks, "zero-turns", None)
            return gain + end[seat] - end[other], None
        change = 0
        if move.tiles:
            for tile in move.tiles:
                change ^= hash(tile)
            cells = with_tiles(cells, [(i, Tile(letter, blank, seat)) for i, letter, blank in move.tiles])
        return gain, (cells, board ^ change, child_racks, other, child_run, scored)

    def negamax(self, node: Node, depth: int, alpha: int, beta: int, ply: int) -> tuple[int, bool]:
        """(the mover's future gain, whether a horizon was reached) within ``(alpha, beta)``:
        an exact value inside the window, a bound outside it."""
        self.tick()
        cells, board, racks, seat, run, scored = node
        if depth == 0:  # a guess: whoever goes out gains the other's rack
            return self.points(racks[1 - seat]) - self.points(racks[seat]), True
        key = node[1:]
        entry = self.tt.get(key)
        killer = self.killers.get(ply)
        leads = [killer]
        if entry is not None:
            leads.append(entry.best)
            usable = self.cutoffs and (entry.depth >= depth or not entry.horizon)
            if usable and (
                entry.flag == EXACT
                or (entry.flag == LOWER and entry.value >= beta)
                or (entry.flag == UPPER and entry.value <= alpha)
            ):
                return entry.value, entry.horizon
        rack = racks[seat]
        ordered = order(self.generated(cells, board, rack), len(rack), leads)
        alpha0, best, best_move, horizon = alpha, -INFINITY, PASS, False
        for n, move in enumerate(ordered):
            gain, child = self.step(cells, board, racks, seat, run, scored, move)
            if child is None:
                value, reached = gain, False
            elif n == 0:
                sub, reached = self.negamax(child, depth - 1, gain - beta, gain - alpha, ply + 1)
                value = gain - sub
            else:  # principal variation search: prove it no better than alpha, else search it
                sub, reached = self.negamax(child, depth - 1, gain - alpha - 1, gain - alpha, ply + 1)
                value = gain - sub
                if alpha < value < beta:
                    sub, again = self.negamax(child, depth - 1, gain - beta, gain - value, ply + 1)
                    value, reached = gain - sub, reached or again
            horizon = horizon or reached
            if value > best:
                best, best_move = value, move
                if ply == 0:
                    self.partial = (move, value)
            if value > alpha:
                alpha = value
            if alpha >= beta:
                self.killers[ply] = move
                break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        self.tt[key] = Entry(depth, flag, best, best_move, horizon)
        return best, horizon

    def points(self, rack: tuple[str, ...]) -> int:
        """The face value of a rack's tiles."""
        value = self.root.ruleset.tiles.value
        return sum(value(t) for t in rack)

    def variation(self, node: Node, first: Move, limit: int = 40) -> list[Move]:
        """The best line from the table: ``first``, then each position's best move."""
        line = [first]
        _, child = self.step(*node, first)
        while child is not None and len(line) < limit:
            entry = self.tt.get(child[1:])
            if entry is None:
                break
            line.append(entry.best)
            _, child = self.step(*child, entry.best)
        return line


Node = tuple[Cells, int, Racks, int, int, bool]  # board, its hash, racks, seat, zero run, scored


def order(moves: list[Move], size: int, leads: list[Move | None]) -> list[Move]:
    """The moves to try, best guess first: ``leads`` (last first: the table's best move, then
    the killer), plays that go out (best-scoring first), the other plays, the pass."""
    ordered = [m for m in moves if len(m.tiles) == size]
    ordered += [m for m in moves if len(m.tiles) != size]
    ordered.append(PASS)
    for lead in leads:
        if lead is not None and lead in ordered:
            ordered.remove(lead)
            ordered.insert(0, lead)
    return ordered


def solve_endgame(
    state: GameState,
    lexicon: Any,
    budget_s: float,
    seed: int = 0,
    *,
    node_limit: int | None = None,
    table_cutoffs: bool = True,
    engine: str = "auto",
) -> EndgameResult:
    """The best move for the seat to move with the bag empty (see the module doc).

    ``budget_s``: seconds of wall-clock time; ``node_limit``: at most this many nodes (a
    budget that does not depend on the machine's speed); ``seed`` is accepted for the bots'
    common signature (the search is deterministic). ``table_cutoffs=False`` keeps the
    transposition table for move ordering only (slower; the tests compare the two). Raises
    ``ValueError`` when the position is not one the search covers (:func:`supports`).

    ``engine``: ``auto`` runs the native search (C, ``engine.bots.endgame_native``) when the
    extension is built and ``WORDARENA_MOVEGEN`` is not ``python``, else this module's;
    ``native`` or ``python`` asks for one (``native``: ``ValueError`` when it cannot run). Both
    find the same value, move and line (the same search, ordering and table rules; the
    tests compare them), the native one about 10 times faster per node (bench/results/bots-history.md)."""
    del seed
    if not supports(state):
        raise ValueError(
            "solve_endgame needs a 2-player classic, scrabble or wordtiles game "
            "with the bag empty and no play pending"
        )
    started = time.monotonic()
    lex = lexicon if lexicon is not None else state.lexicon
    seat = state.to_move
    base = spread(state, seat)
    if engine == "native" or (engine == "auto" and implementation() == "native"):
        raw = endgame_native.run(
            state, lex, budget_s, node_limit, table_cutoffs,
            lambda r0, r1, reason, out: end_adjustment(state, (r0, r1), reason, out),
        )
        if raw is not None:
            value, exact, nodes, depth, found = raw
            line = [PASS if move is None else move for move in found]
            played = actions(line, seat, state)
            return EndgameResult(
                played[0], base + value, played, exact, nodes, depth, time.monotonic() - started
            )
        if engine == "native":
            raise ValueError("the native end-game search is not built or cannot take this position")
    search = Search(state, lex, started + budget_s, node_limit, cutoffs=table_cutoffs)
    racks: Racks = (tuple(sorted(state.racks[0])), tuple(sorted(state.racks[1])))
    root: Node = (state.cells, 0, racks, seat, state.zero_run, any(state.scores))
    best: tuple[Move, int] | None = None
    exact, finished, depth = False, 0, 0
    while not exact:
        depth += 1
        search.partial = None
        try:
            value, horizon = search.negamax(root, depth, -INFINITY, INFINITY, 0)
        except OutOfTime:
            # cut short: its best root move so far, when one was searched to its end (the first
            # is the last iteration's best, so another comes back only when it did better)
            if search.partial is not None:
                best = search.partial
            break
        best, finished, exact = (search.tt[root[1:]].best, value), depth, not horizon
    if best is None:  # not even one move searched in time: the best-scoring move
        moves = search.generated(state.cells, 0, racks[seat])
        move = moves[0] if moves else PASS
        best = (move, search.step(*root, move)[0])
    move, value = best
    line = search.variation(root, move)
    return EndgameResult(
        actions(line, seat, state)[0],
        base + value,
        actions(line, seat, state),
        exact,
        search.nodes,
        finished,
        time.monotonic() - started,
    )


def actions(line: list[Move], seat: int, state: GameState) -> tuple[Action, ...]:
    """A line of moves as the engine's actions, the first by ``seat``. In ``wordtiles`` each
    play is followed by the opponent's accept (its check of a valid play is a pass)."""
    deferred = state.ruleset.word_check is WordCheck.DEFERRED
    out: list[Action] = []
    for move in line:
        if not move.tiles:
            out.append(Pass(seat))
        else:
            out.append(move.to_play(seat))
            if deferred:
                out.append(Decide(1 - seat, True))
        seat = 1 - seat
    return tuple(out)


def played(state: GameState, line: Iterable[Action]) -> GameState:
    """``state`` after each action of ``line`` applied by the engine (a principal variation:
    in ``wordtiles`` it carries the opponent's accepts)."""
    for action in line:
        state, _ = apply(state, action)
    return state


def action_value(
    state: GameState,
    lexicon: Any,
    action: Action,
    *,
    node_limit: int | None = None,
    engine: str = "auto",
) -> tuple[int, bool]:
    """(the final spread for the seat to move when it plays ``action`` and both play best
    from there, whether that is exact): the engine applies ``action`` — in ``wordtiles`` a play
    is then accepted by the opponent (its check of a valid play is accepting and passing, which
    the search plays) — and the search solves the position after it (no time limit; at most
    ``node_limit`` nodes). Comparable with :attr:`EndgameResult.value`: an action is optimal
    when its value equals the root's exact value."""
    seat = state.to_move
    after = played(state, [action])
    if after.pending is not None:
        after = played(after, [Decide(after.to_move, True)])
    if after.over:
        return spread(after, seat), True
    result = solve_endgame(after, lexicon, math.inf, node_limit=node_limit, engine=engine)
    return (result.value if after.to_move == seat else -result.value), result.exact
