"""Monte Carlo simulation of candidate plays (bot level 6, Hindsight's "best by simulation").

The top ``candidates`` plays by static equity (level 5's: score + leave value, see
:func:`static_equity`), and the best exchange when the rules allow one, are each played out
over random *worlds*: the tiles the seat has not seen (the bag and the other racks, as one pool
— the seat's view only: never the real racks of the others nor the bag's order) are shuffled by
a seeded RNG and dealt to the other seats (as many tiles as each holds now, which every player
sees) and to the bag. In each world the candidate is played and every other seat answers with
its best-equity play (2 plies, ``SimSettings.plies``); the result is the candidate's equity
(score + leave) less the best answer's equity (its score + the tiles it keeps) — what the
candidate gives away, world by world. In a pre-end-game world where that leaves the seat to
move with the bag empty, the seat's play that goes out and the game's end are played instead
(``SimSettings.horizon``; the leaves would count nothing there). (``plies`` 3 adds the seat's
own best-equity play, valued by its score and the tiles it keeps, as macondo looks ahead;
4 the replies again, so both sides have played twice: bench/results/bots-history.md. The first design's third
ply valued the seat's whole rack, the tiles it drew included, and was measured weaker.) Every
candidate sees the same worlds (common random numbers), and the choice is made on paired
differences against the static choice (``advantage``): a candidate replaces level 5's play when
it beats it world by world on average (by more than ``confidence`` standard errors; 0 by
default). When the game is close (few tiles left in the pool, see ``CLOSE_POOL``) the
differences are those of an estimate of the chance to win, a normal model of the final spread
fitted per family to self-play (``win_chance``, ``WIN_MODELS``); estimates within a hundredth of
a per cent of each other (a decided game) leave the choice to the spread.

The iterations run in rounds (one world for every live candidate per round) until the time
budget or the iteration cap is reached, or one candidate is *clearly* best: after
``min_iterations``, every other's difference to it, world by world, is below 0 by more than
``PAIRED_Z`` standard errors; candidates clearly worse than the best so far are dropped on the
way (``prune``: by what ranks them, so in a close game by the win estimate, not by the spread;
``prune="rank"``, the rule before 6 December 2026, compared unpaired means, whose errors carry
the luck every candidate shares in a world, and searched twice as long for the same choices:
``bench/sim_noise.py``). The choice is
deterministic for a given seed and number of rounds (a fixed ``iterations`` cap with no time
budget is fully repeatable); a time budget makes the number of rounds depend on the machine.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from wordarena.engine.bots import endgame
from wordarena.engine.bots.leaves import LeaveTable
from wordarena.engine.bots.winmodel import WIN_MODELS, win_chance
from wordarena.engine.game.actions import Action, Decide, Exchange, Pass
from wordarena.engine.game.play import replace_at
from wordarena.engine.game.state import GameState
from wordarena.engine.game.turns import apply
from wordarena.engine.movegen import Move, generate_moves
from wordarena.engine.tiles import remove_tokens

DEFAULT_BUDGET_S = 1.5  # think time per move of a level-6 bot: with move generation and the
# last round it overshoots by, a move stays under 2 s (bench/bot_latency.py)
#: the think times (milliseconds) a table or a bot seat may ask for (the contract's bot_think_ms)
THINK_MS_MIN, THINK_MS_MAX = 100, 30_000
CLOSE_POOL = 20  # unseen tiles at or below which candidates are ranked by the win estimate
WIN_TIE = 1e-4  # win estimates closer than this tie (a decided game): the spread decides
CONFIDENCE = 0.0  # standard errors a candidate must beat the static choice by (``advantage``):
# 2.0 with three plies (their noise), where level 6 then nearly always kept level 5's play
REPLY_SCAN = 100  # best-scoring replies whose equity is compared in a simulated ply
EQUITY_SCAN = 400  # level 5 (and the candidates) weigh the equity of this many best-scoring moves
HORIZONS = ("out", "leave")  # ``SimSettings.horizon``
HORIZON = "out"
PRUNES = ("rank", "spread", "paired")  # ``SimSettings.prune``
PAIRED_Z = 3.0  # prune "paired": standard errors of the paired difference that drop a candidate
Clock = Callable[[], float]


@dataclass(frozen=True)
class SimSettings:
    """How much to simulate: candidates, iterations per candidate, time budget (seconds; 0 =
    none, then only ``iterations`` bounds the search)."""

    candidates: int = 8
    iterations: int = 400
    min_iterations: int = 12
    budget_s: float = DEFAULT_BUDGET_S
    #: the candidate, every other seat's reply, (3:) the seat's own next play, (4:) the replies
    #: again … (``play_out``)
    plies: int = 2
    #: how a two-ply play-out ends when the bag is empty at its horizon (2 players): "out" —
    #: the seat's best play that goes out and the game's end, else the racks' face values (the
    #: opponent's less the seat's); "leave" — the leaves, weighted by the bag, as mid-game
    #: (nothing once it is empty). ``bench/sim_horizon.py``: "out" loses fewer points.
    horizon: str = HORIZON
    confidence: float = CONFIDENCE  # standard errors a challenger must beat the static choice by
    #: what drops a clearly worse candidate (``prune``): "paired" — what ranks the candidates
    #: (the win estimate in a close game), by their differences to the leader's world by world;
    #: "rank" — the same by unpaired means ± 2 SE (before 6 December 2026); "spread" — always
    #: the spread, unpaired (before 5 December 2026)
    prune: str = "paired"
    #: unseen tiles at or below which the candidates are ranked by the win estimate, not the
    #: spread (a large number: throughout the game, as macondo ranks by win share)
    close_pool: int = CLOSE_POOL

    def __post_init__(self) -> None:
        if self.horizon not in HORIZONS:
            raise ValueError(f"horizon must be one of {HORIZONS}, not {self.horizon!r}")
        if self.prune not in PRUNES:
            raise ValueError(f"prune must be one of {PRUNES}, not {self.prune!r}")
        if self.plies < 2:
            raise ValueError(f"plies must be at least 2 (the candidate and the replies), not {self.plies}")


def mean_se(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` and its standard error (infinite below two values)."""
    n = len(values)
    if n < 2:
        return (values[0] if n else 0.0), math.inf
    mean = sum(values) / n
    return mean, math.sqrt(sum((x - mean) ** 2 for x in values) / (n - 1) / n)


@dataclass
class Candidate:
    """One candidate (a play, or the exchange when ``move`` is None) and its simulated results."""

    move: Move | None
    equity: float  # static equity: score (0 for an exchange) + leave value
    exchange: tuple[str, ...] = ()  # the tiles thrown back when ``move`` is None
    spreads: list[float] = field(default_factory=list)
    wins: list[float] = field(default_factory=list)
    live: bool = True

    @property
    def n(self) -> int:
        return len(self.spreads)

    @property
    def mean(self) -> float:
        return sum(self.spreads) / self.n if self.spreads else self.equity

    @property
    def stderr(self) -> float:
        return mean_se(self.spreads)[1]

    @property
    def win(self) -> float:
        return sum(self.wins) / len(self.wins) if self.wins else 0.5


@dataclass(frozen=True)
class SimResult:
    """The candidates ranked best first, the rounds run and whether one was clearly best."""

    ranked: tuple[Candidate, ...]
    rounds: int
    decided: bool  # stopped because one candidate was clearly best

    @property
    def best(self) -> Candidate | None:
        return self.ranked[0] if self.ranked else None


def leave_weight(state: GameState) -> float:
    """How much the leave counts against the score: fully while the bag can refill a rack,
    less as it runs out, nothing once it is empty (kept tiles then only cost points)."""
    return min(1.0, len(state.bag) / state.ruleset.rack_size)


def static_equity(state: GameState, seat: int, move: Move, table: LeaveTable) -> float:
    """Level 5's equity of ``move``: its score plus the (weighted) value of the tiles kept."""
    return move.score + leave_weight(state) * table.after(state.racks[seat], move.tokens)


class LeaveMemo:
    """Leave values of one table for a simulation (memoised by the table, ``LeaveTable.after``:
    the same racks and leaves come back in every ply, and evaluating them was 70 % of a classic
    simulation's time before the memo), and the bound of :meth:`ceiling`."""

    def __init__(self, table: LeaveTable) -> None:
        self.table = table

    def leave(self, rack: tuple[str, ...], used: tuple[str, ...]) -> float:
        """The value of what is left of ``rack`` after playing ``used``."""
        return self.table.after(rack, used)

    def ceiling(self, rack: tuple[str, ...]) -> float:
        """An upper bound of any leave of ``rack``: the positive parts of its terms (tile
        values per copy, per-tile duplicate values per extra copy, pair values of two different
        tiles on the rack; the balance penalty is never positive), times the table's scale,
        plus a hair for the rounding of a sum taken in another order."""
        table = self.table
        if table.duplicate > 0 or table.balance > 0 or table.scale < 0:
            return math.inf  # no bound: scan every move
        values, duplicates = table.values, table.duplicates
        counts: dict[str, int] = {}
        for t in rack:
            counts[t] = counts.get(t, 0) + 1
        total = 0.0
        for t, n in counts.items():
            total += max(0.0, values.get(t, 0.0)) * n
            if n > 1:
                total += max(0.0, duplicates.get(t, table.duplicate)) * (n - 1)
        if table.pairs:
            kept = sorted(counts)
            for k, a in enumerate(kept):
                for b in kept[k + 1 :]:
                    total += max(0.0, table.pairs.get(f"{a} {b}", 0.0))
        return table.scale * total + 1e-9


def best_equity_move(
    state: GameState, seat: int, moves: Sequence[Move], leaves: LeaveMemo, scan: int = EQUITY_SCAN
) -> Move | None:
    """The move of highest static equity among the ``scan`` best-scoring ``moves``."""
    best, best_eq = None, -math.inf
    rack = state.racks[seat]
    weight = leave_weight(state)
    # moves come best-scoring first: once a score plus the best leave the rack could keep
    # cannot beat the best equity found, no later move can
    bound = weight * leaves.ceiling(rack)
    leave = leaves.leave
    for move in moves[:scan]:
        score = move.score
        if score + bound <= best_eq:
            break
        eq = score + weight * leave(rack, move.tokens)
        if eq > best_eq:
            best, best_eq = move, eq
    return best


def unseen_pool(state: GameState, seat: int) -> list[str]:
    """The tiles ``seat`` has not seen (bag and other racks), sorted: their split between the
    racks and the bag, and the bag's order, are exactly what the seat cannot know."""
    pool = list(state.bag)
    for other, rack in enumerate(state.racks):
        if other != seat:
            pool.extend(rack)
    pool.sort()
    return pool


def candidates_of(
    state: GameState,
    seat: int,
    moves: Sequence[Move],
    table: LeaveTable,
    count: int,
    exchange: tuple[tuple[str, ...], float] | None,
) -> list[Candidate]:
    """The ``count`` plays of best static equity, and the exchange ``exchange`` (tiles kept,
    equity) when given."""
    scored = sorted(
        ((static_equity(state, seat, m, table), i, m) for i, m in enumerate(moves[:EQUITY_SCAN])),
        key=lambda t: (-t[0], t[1]),
    )
    found = [Candidate(m, eq) for eq, _, m in scored[:count]]
    if exchange is not None:
        kept, eq = exchange
        found.append(Candidate(None, leave_weight(state) * eq, remove_tokens(state.racks[seat], kept)))
    return found


def simulate(
    state: GameState,
    seat: int,
    candidates: list[Candidate],
    lexicon: Any,
    table: LeaveTable,
    settings: SimSettings,
    seed: int,
    clock: Clock = time.perf_counter,
) -> SimResult:
    """Play every candidate out over the same seeded worlds (module doc) and rank them."""
    if len(candidates) <= 1:
        return SimResult(tuple(candidates), 0, True)
    started = clock()
    pool = unseen_pool(state, seat)
    leaves = LeaveMemo(table)
    close = len(pool) <= settings.close_pool
    base = state.scores[seat] - max(s for i, s in enumerate(state.scores) if i != seat)
    model = WIN_MODELS.get(state.ruleset.family, WIN_MODELS["classic"])
    has_move = settings.plies == 2  # the horizon: every other seat has answered (3: the seat too)
    rounds, decided = 0, False
    out_of_time = False
    while rounds < settings.iterations and not out_of_time:
        world = deal(state, seat, pool, random.Random(f"sim/{seed}/{rounds}"))
        for cand in candidates:
            # the budget is checked before every play-out, not only between rounds: a round
            # costs tens of milliseconds a candidate on a loaded machine
            if settings.budget_s and rounds and clock() - started >= settings.budget_s:
                out_of_time = True
                break
            if cand.live:
                spread, left = play_out(world, seat, cand, lexicon, leaves, settings.plies,
                                        settings.horizon)
                cand.spreads.append(spread)
                cand.wins.append(win_chance(base + spread, left, model, has_move))
        if out_of_time:  # an unfinished round is dropped: every candidate keeps the same worlds
            for cand in candidates:
                del cand.spreads[rounds:], cand.wins[rounds:]
            break
        rounds += 1
        if rounds >= settings.min_iterations:
            decided = prune(candidates, close and settings.prune != "spread",
                            settings.prune == "paired")
            if decided:
                break

    reference = max(candidates, key=lambda c: c.equity)  # level 5's choice

    def rank(c: Candidate) -> tuple[bool, float, float]:
        # win estimates closer than a hundredth of a per cent are a tie (a decided game, say):
        # then the spread decides
        edge = advantage(c, reference, close, settings.confidence)
        return (c.live, round(edge, 4) if close else edge, c.mean)  # 4 places: WIN_TIE

    return SimResult(tuple(sorted(candidates, key=rank, reverse=True)), rounds, decided)


def advantage(cand: Candidate, reference: Candidate, close: bool, confidence: float = CONFIDENCE) -> float:
    """How surely ``cand`` beats ``reference`` (the best by static equity): the mean of their
    differences world by world (spread, or win estimate when ``close``) minus ``confidence``
    standard errors of it; 0 for the reference itself. With two plies the differences are
    paired and quiet, and the default margin is 0 (the mean decides); the three-ply play-out
    needed 2 (its noise made a challenger beat level 5's play by chance on most turns)."""
    if cand is reference:
        return 0.0
    mine, theirs = (cand.wins, reference.wins) if close else (cand.spreads, reference.spreads)
    diffs = [a - b for a, b in zip(mine, theirs, strict=False)]
    if len(diffs) < 2:
        return -math.inf
    mean, se = mean_se(diffs)
    return mean - confidence * se


def prune(candidates: list[Candidate], close: bool = False, paired: bool = False) -> bool:
    """Drop the candidates clearly worse than the leader by what ranks them (``simulate``): the
    spread, or when ``close`` the win estimate — unless every estimate ties (within
    ``WIN_TIE``: a decided game), where the spread decides again. Clearly worse: the mean + 2
    SE below the leader's mean - 2 SE; when ``paired``, the mean of the differences to the
    leader's, world by world, + ``PAIRED_Z`` SE below 0 (the worlds' shared luck cancels, so
    the contenders keep more of the worlds). True when only the leader is left."""
    live = [c for c in candidates if c.live]
    wins = [c.win for c in live]
    by_win = close and max(wins) - min(wins) > WIN_TIE
    if paired:
        _drop_paired(live, by_win)
        return sum(1 for c in candidates if c.live) == 1
    stats = [mean_se(c.wins) if by_win else (c.mean, c.stderr) for c in live]
    lead_mean, lead_se = max(stats, key=lambda ms: ms[0])
    floor = lead_mean - 2 * lead_se
    for cand, (mean, se) in zip(live, stats, strict=True):
        if mean + 2 * se < floor and (not by_win or lead_mean - mean > WIN_TIE):
            cand.live = False
    return sum(1 for c in candidates if c.live) == 1


def _drop_paired(live: list[Candidate], by_win: bool) -> None:
    """``prune`` "paired": every live candidate has a result for every round so far."""
    leader = max(live, key=lambda c: c.win if by_win else c.mean)
    for cand in live:
        mine, theirs = (cand.wins, leader.wins) if by_win else (cand.spreads, leader.spreads)
        mean, se = mean_se([a - b for a, b in zip(mine, theirs, strict=True)])
        if mean + PAIRED_Z * se < 0 and (not by_win or -mean > WIN_TIE):
            cand.live = False


def deal(state: GameState, seat: int, pool: list[str], rng: random.Random) -> GameState:
    """A world consistent with what ``seat`` sees: the unseen ``pool`` shuffled and dealt to the
    other racks (their current sizes) and the bag; its own seed, so that no random effect of
    the real game is foreseen."""
    tiles = list(pool)
    rng.shuffle(tiles)
    racks = list(state.racks)
    at = 0
    for other, rack in enumerate(state.racks):
        if other != seat:
            racks[other] = tuple(tiles[at : at + len(rack)])
            at += len(rack)
    return state.evolve(racks=tuple(racks), bag=tuple(tiles[at:]), seed=rng.getrandbits(63))


def play_out(
    world: GameState, seat: int, cand: Candidate, lexicon: Any, leaves: LeaveMemo, plies: int = 2,
    horizon: str = HORIZON,
) -> tuple[float, int]:
    """(spread gained over the plies + the leave values at the horizon, tiles still unseen
    afterwards — 0 when the play-out ended the game) of ``cand`` in ``world``.

    The plies alternate: the candidate (1), every other seat's best-equity reply (2), the
    seat's own best-equity play (3), the replies again (4) … The horizon's value is the spread
    plus the tiles the seat kept at its last play (after the candidate: not the ones it drew,
    those are the same luck for every candidate) less what the leading opponent kept at its
    last reply — the spread in equity, as level 5 would weigh it. ``plies`` 2 is the default;
    3 is macondo's look-ahead; an even number gives both sides the same number of plays. When
    the seat is to move with the bag empty (2 players), ``horizon`` "out" ends the play-out
    instead (``_end_horizon``). The last ply is scored without being applied where that gives
    the same score (``_final_reply``; the seat's own last play: ``static_equity``)."""
    first: Action = cand.move.to_play(seat) if cand.move is not None else Exchange(seat, cand.exchange)
    used = cand.move.tokens if cand.move is not None else cand.exchange
    kept = {seat: leave_weight(world) * leaves.leave(world.racks[seat], used)}  # at the last play
    state = settle(apply(world, first)[0])
    unapplied = (seat, 0, 0)  # the last ply when it was not applied: (who, score, tiles)
    ply = 1
    while ply < plies and not state.over:
        ply += 1
        if ply % 2:  # the seat's own play
            if horizon == "out" and endgame.supports(state):
                break  # valued by ``_end_horizon`` below
            move = best_reply(state, seat, lexicon, leaves)
            kept[seat] = leave_weight(state) * leaves.leave(
                state.racks[seat], move.tokens if move is not None else ())
            if ply == plies:  # not applied: War of Words effects act between turns, after it
                unapplied = (seat, move.score, move.tile_count) if move is not None else unapplied
                break
            state = settle(apply(state, move.to_play(seat) if move is not None else Pass(seat))[0])
            continue
        state, unapplied = _replies(state, seat, lexicon, leaves, kept,
                                    ply == plies and (horizon == "leave" or bool(state.bag)))
    scores = state.result.scores if state.result is not None else state.scores
    who, score, tiles = unapplied
    scores = replace_at(scores, who, scores[who] + score)
    before = world.scores[seat] - max(s for i, s in enumerate(world.scores) if i != seat)
    lead = max(range(len(scores)), key=lambda i: -math.inf if i == seat else scores[i])
    spread = float(scores[seat] - scores[lead] - before)
    # an end game the exact search covers (2 players, bag empty; not War of Words), seat to move
    if horizon == "out" and not tiles and state.to_move == seat and endgame.supports(state):
        return _end_horizon(state, seat, lexicon, before, spread)
    if state.over:  # the lead is final (``win_chance`` of nothing unseen)
        return spread, 0
    spread += kept[seat]
    spread -= kept.get(lead, 0.0)
    left = len(state.bag) + sum(len(r) for i, r in enumerate(state.racks) if i != seat)
    # the unapplied last ply's tiles leave the unseen pool (the seat's: as many as it draws)
    return spread, left - (tiles if who != seat else min(tiles, len(state.bag)))


def _replies(
    state: GameState, seat: int, lexicon: Any, leaves: LeaveMemo, kept: dict[int, float],
    last: bool,
) -> tuple[GameState, tuple[int, int, int]]:
    """Every other seat answers once with its best-equity play; what each keeps goes into
    ``kept``. On the play-out's ``last`` ply a reply ``_final_reply`` allows is scored without
    being applied: returned as (who, score, tiles), else (seat, 0, 0). (With the bag empty,
    horizon "out" needs the racks after the reply, so the caller passes ``last`` False.)"""
    while not state.over and state.to_move != seat:
        who = state.to_move
        move = best_reply(state, who, lexicon, leaves)
        if move is not None:
            kept[who] = leave_weight(state) * leaves.leave(state.racks[who], move.tokens)
            if last and _final_reply(state, who, move):
                return state, (who, move.score, move.tile_count)
        state = settle(apply(state, move.to_play(who) if move is not None else Pass(who))[0])
    return state, (seat, 0, 0)


def _end_horizon(
    state: GameState, seat: int, lexicon: Any, before: float, spread: float
) -> tuple[float, int]:
    """The ``horizon="out"`` value of a play-out that left the seat to move with the bag empty:
    when it can go out, its best-scoring play that does and the game's end as the engine scores
    it (exact: nothing is left unseen); else the spread so far plus the opponent's rack's face
    value less the seat's (the end-game search's own guess at its horizon, ``endgame``)."""
    size = len(state.racks[seat])
    for move in generate_moves(state, seat, lexicon):
        if move.tile_count == size:
            ended = settle(apply(state, move.to_play(seat))[0])
            scores = ended.result.scores if ended.result is not None else ended.scores
            return float(scores[seat] - scores[1 - seat] - before), 0
    return spread + state.rack_value(1 - seat) - state.rack_value(seat), len(state.racks[1 - seat])


def _final_reply(state: GameState, who: int, move: Move) -> bool:
    """Whether a two-ply play-out may count the opponent's reply as its score without applying
    it: two players, and the play cannot end the game (it does not empty the rack while the bag
    is empty). The generator's score is what ``apply`` scores (``generate_moves``); action
    tiles' effects (War of Words) act between turns, so there the replies are always applied."""
    return (state.players == 2 and not state.ruleset.tiles.has_actions
            and (bool(state.bag) or move.tile_count < len(state.racks[who])))


def settle(state: GameState) -> GameState:
    """Word Tiles: the next player accepts a pending play (a simulated play is a real word)."""
    while state.pending is not None and not state.over:
        state = apply(state, Decide(state.to_move, True))[0]
    return state


def best_reply(state: GameState, who: int, lexicon: Any, leaves: LeaveMemo) -> Move | None:
    """The best-equity play of ``who`` in a simulated world (None: it has none)."""
    moves = generate_moves(state, who, lexicon, limit=REPLY_SCAN)
    return best_equity_move(state, who, moves, leaves, REPLY_SCAN)
