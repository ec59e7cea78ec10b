"""Bots: six levels, from a beginner with a small vocabulary to a simulating player.

=====  ==========  =====================================================================
level  name        plays
=====  ==========  =====================================================================
1      beginner    the best-scoring move among words of up to 4 letters it knows (half
                   of them); never a bingo
2      casual      the same up to 5 letters (70 % of them known); never a bingo
3      club        the same up to 7 letters (85 % known); sees a bingo half the time
4      expert      the best-scoring move
5      strong      the best *equity*: score + value of the tiles kept (self-play leaves);
                   exchanges a bad rack when the exchange beats every play; with the
                   bag empty (2 players), the exact end-game search at a node budget
                   (``engine.bots.endgame``); in a 3-4 player ``classic`` end game, the
                   best spread after the opponent's reply
6      champion    simulation (``engine.bots.simulation``): level 5's 8 best candidates by
                   equity, each played out 2 plies deep over random draws of the unseen
                   tiles, chosen by its equity less the best answer's (win estimate when
                   close), within a time budget (``think_s``); the end game as
                   ``engine.bots.champion`` says
=====  ==========  =====================================================================

The weaker levels are weakened like people (``engine.bots.ladder``), not by random moves.
Every level passes or exchanges within its family's limits when it has no play, and in
``wordtiles`` decides on a pending play from what the lexicon says of it (``ladder.checks``).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from wordarena.engine.bots.champion import endgame_action, simulated_pick
from wordarena.engine.bots.ladder import checks, human_pick
from wordarena.engine.bots.leaves import LeaveTable, leave_table
from wordarena.engine.bots.simulation import (
    EQUITY_SCAN,
    LeaveMemo,
    SimSettings,
    best_equity_move,
    static_equity,
)
from wordarena.engine.bots.tactics import with_actions
from wordarena.engine.game.actions import Action, Decide, Exchange, Pass
from wordarena.engine.game.state import GameState
from wordarena.engine.game.turns import apply
from wordarena.engine.movegen import Move, generate_moves
from wordarena.engine.placement import word_text
from wordarena.engine.tiles import is_action, remove_tokens
from wordarena.engine.words import invalid_words, resolve_words

LEVELS = {1: "beginner", 2: "casual", 3: "club", 4: "expert", 5: "strong", 6: "champion"}
HARDEST = max(LEVELS)  # what "hardest" means in the CLI and the lobby

EXCHANGE_MARGIN = 1.0  # level 5 exchanges when that beats the best play's equity by this much
# Level 5's end game (bag empty, so the opponent's rack is known): each of the best-scoring
# ENDGAME_CANDIDATES plays (and the best play that goes out) is followed by the opponent's
# best-scoring reply; the play with the best spread afterwards wins. Families where measured.
# Only where the exact end-game search does not apply (3-4 players): see Bot._solved.
ENDGAME_CANDIDATES = 8
ENDGAME_FAMILIES = frozenset({"classic"})


@dataclass
class Bot:
    """A computer player of one level. ``seed`` makes its random choices repeatable."""

    level: int
    seed: int = 0
    lexicon: Any = None
    leaves: LeaveTable | None = None
    #: level 6: how long and how wide to simulate (``think_s`` is its time budget per move)
    sim: SimSettings = field(default_factory=SimSettings)
    # False: War of Words action tiles are never played (the fast player of leave derivation)
    actions: bool = True
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"bot level must be one of {sorted(LEVELS)}, not {self.level}")
        self.rng = random.Random(f"bot/{self.level}/{self.seed}")

    @property
    def name(self) -> str:
        return LEVELS[self.level]

    def choose(self, state: GameState) -> Action:
        """The bot's action for the seat to move in ``state``."""
        seat = state.to_move
        if state.pending is not None:
            return Decide(seat, self._accept(state))
        solved = self._solved(state)
        if solved is not None:
            return solved
        moves = generate_moves(state, seat, self.lexicon, limit=self._needed(state))
        move = self._pick(state, moves)
        chosen = move.to_play(seat) if move is not None else self._no_play(state, seat)
        if state.ruleset.tiles.has_actions and self.actions:  # engine.bots.tactics
            return with_actions(state, seat, chosen, moves, self.level, self.rng,
                                self.lexicon)
        return chosen

    # -- choosing a play -------------------------------------------------------------------

    def _solved(self, state: GameState) -> Action | None:
        """The exact end game's action (bag empty, 2 players, a family the search covers), or
        None: level 6 searches within its think time, level 5 up to ``ENDGAME_NODES`` nodes
        (no clock, so its choice is repeatable; about 0.15 CPU s a move with the C search).
        Level 5 searches as Quackle's Speedy Player does (static equity, then its end-game
        solver): against it, the search won 6 points a game more than playing for score
        (bench/results/2026-12-07-quackle-findings.md)."""
        if self.level == 6:
            return endgame_action(state, self.lexicon, self.sim.budget_s, self.seed)
        if self.level == 5:
            return endgame_action(state, self.lexicon, 0.0, self.seed)
        return None

    def _needed(self, state: GameState) -> int | None:
        """How many of the best-scoring moves the choice reads (None: all of them): level 4
        the best, level 5 the 400 it weighs while the bag is not empty (its end game looks
        for a play that goes out among all). War of Words action tiles weigh every move."""
        if state.ruleset.tiles.has_actions and self.actions:
            return None
        if self.level == 4:
            return 1
        if self.level == 5 and state.bag:
            return EQUITY_SCAN
        return None

    def _pick(self, state: GameState, moves: list[Move]) -> Move | None:
        if not moves:
            return None
        if self.level <= 3:
            bingo = min((b.count for b in state.ruleset.bingos), default=state.ruleset.rack_size)
            return human_pick(self.level, moves, state.cells, bingo, self.rng)
        if self.level == 4:
            return moves[0]
        if self.level == 6 and state.bag:
            seat = state.to_move
            return simulated_pick(state, moves, self._table(state), self.lexicon,
                                  self._exchange_choice(state, seat), self.sim, self.seed)
        return self._best_equity(state, moves)

    def _table(self, state: GameState) -> LeaveTable:
        if self.leaves is None:
            self.leaves = leave_table(state.ruleset.family, state.ruleset.language)
        return self.leaves

    def _best_equity(self, state: GameState, moves: list[Move]) -> Move | None:
        if not state.bag:  # end game: tiles kept only cost points
            if ENDGAME_CANDIDATES and state.ruleset.family in ENDGAME_FAMILIES \
                    and state.players == 2:
                return self._endgame(state, moves)
            return moves[0]
        return self.equity_choice(state, moves)[0]

    def equity_choice(self, state: GameState, moves: list[Move]) -> tuple[Move | None, float]:
        """Level 5's choice while the bag is not empty, and its equity: the play of best static
        equity among ``moves`` (best-scoring first), or None when the best exchange beats it by
        ``EXCHANGE_MARGIN`` (then the exchange's leave value; -inf with neither)."""
        seat = state.to_move
        # the same choice as scoring every one of the EQUITY_SCAN best-scoring moves by static_equity
        # (leaves matter less late), stopping once no later score can beat it
        best = best_equity_move(state, seat, moves, LeaveMemo(self._table(state)),
                                EQUITY_SCAN)
        best_eq = -math.inf if best is None else static_equity(state, seat, best, self._table(state))
        exchange = self._exchange_choice(state, seat)
        if exchange is not None and exchange[1] > best_eq + EXCHANGE_MARGIN:
            return None, exchange[1]
        return best, best_eq

    def _endgame(self, state: GameState, moves: list[Move]) -> Move:
        """The play with the best spread after the opponent's best-scoring reply (bag empty)."""
        seat = state.to_move
        size = len(state.racks[seat])
        candidates = list(moves[:ENDGAME_CANDIDATES])
        out = next((m for m in moves if m.tile_count == size), None)
        if out is not None and out not in candidates:
            candidates.append(out)
        best, best_spread = moves[0], float("-inf")
        for move in candidates:
            after, _ = apply(state, move.to_play(seat))
            if not after.over and after.pending is None and after.to_move != seat:
                opponent = after.to_move
                replies = generate_moves(after, opponent, self.lexicon)
                if replies:
                    after, _ = apply(after, replies[0].to_play(opponent))
            scores = after.result.scores if after.result is not None else after.scores
            spread = scores[seat] - max(s for i, s in enumerate(scores) if i != seat)
            if spread > best_spread:
                best, best_spread = move, spread
        return best

    # -- no play: exchange or pass --------------------------------------------------------------

    def _can_exchange(self, state: GameState, seat: int, count: int) -> bool:
        rule = state.ruleset.exchange
        if rule.per_player is not None and state.exchanges[seat] >= rule.per_player:
            return False
        return count > 0 and len(state.bag) >= max(rule.min_bag, count)

    def best_exchange(self, state: GameState, seat: int) -> tuple[tuple[str, ...], float] | None:
        """(tiles to keep, leave value) of ``seat``'s best exchange, or None when the rules
        allow none (Hindsight's simulation offers it beside the plays)."""
        return self._exchange_choice(state, seat)

    def _exchange_choice(self, state: GameState, seat: int) -> tuple[tuple[str, ...], float] | None:
        """(tiles to keep, equity) of the best exchange, by leave value, or None."""
        rack = state.racks[seat]
        table = self._table(state)
        ranked = sorted(rack, key=lambda t: (table.values.get(t, -5.0) if not is_action(t) else -9))
        best: tuple[tuple[str, ...], float] | None = None
        for keep in range(0, len(rack)):
            kept = tuple(ranked[len(rack) - keep:]) if keep else ()
            if not self._can_exchange(state, seat, len(rack) - keep):
                continue
            eq = table.value(kept)
            if best is None or eq > best[1]:
                best = (kept, eq)
        return best

    def _no_play(self, state: GameState, seat: int) -> Action:
        rack = state.racks[seat]
        if self.level >= 4:
            choice = self._exchange_choice(state, seat)
            if choice is not None:
                return Exchange(seat, remove_tokens(rack, choice[0]))
        elif self._can_exchange(state, seat, len(rack)):
            return Exchange(seat, tuple(rack))
        return Pass(seat)

    # -- wordtiles: accept or check ---------------------------------------------------------------

    def _accept(self, state: GameState) -> bool:
        """Accept, or check (False): a phantom (a word not in the lexicon) is caught with the
        level's chance; weaker levels may doubt a valid word they do not know
        (``ladder.checks``)."""
        if self.lexicon is None and state.lexicon is None:
            return True
        lexicon = self.lexicon or state.lexicon
        pending = state.pending
        assert pending is not None and lexicon is not None
        texts = [word_text(state.cells, w) for w in pending.geometry.words]
        resolved = resolve_words(texts, lexicon, state.ruleset.tiles.letters)
        phantom = bool(invalid_words(texts, resolved))
        return not checks(self.level, phantom, texts[0] if texts else "", self.rng)

