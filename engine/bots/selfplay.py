"""Bots playing each other: one game, or a series with win rates and spreads."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from wordarena.engine.bots.bot import Bot
from wordarena.engine.game import Event, Play, apply, start_game
from wordarena.engine.game.state import GameState
from wordarena.engine.rulesets.model import Ruleset

TurnHook = Callable[[GameState, Any, GameState], None]
GameHook = Callable[[int, tuple[int, int], "GameOutcome"], None]


@dataclass(frozen=True)
class GameOutcome:
    """How a game ended, and its whole event log (for its record)."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    turns: int
    events: tuple[Event, ...] = ()
    state: GameState | None = None  # the final position


def play_game(
    ruleset: Ruleset, bots: Sequence[Bot], seed: int, lexicon: Any,
    on_turn: TurnHook | None = None, max_turns: int = 400,
) -> GameOutcome:
    """One game between ``bots`` (seat order) from ``seed``; ``on_turn(before, action, after)``
    sees every action."""
    state, events = start_game(ruleset, len(bots), seed, lexicon)
    turns = 0
    while not state.over and turns < max_turns:
        action = bots[state.to_move].choose(state)
        after, more = apply(state, action)
        events += more
        if on_turn is not None:
            on_turn(state, action, after)
        state = after
        turns += 1
    if state.result is None:  # pragma: no cover - a safety net, games end by the rules
        return GameOutcome(state.scores, (), turns, tuple(events), state)
    return GameOutcome(state.result.scores, state.result.winners, turns, tuple(events), state)


@dataclass
class SeriesStats:
    """Results of ``levels[0]`` against ``levels[1]`` over a series (seats alternate)."""

    levels: tuple[int, int]
    games: int = 0
    wins: int = 0
    ties: int = 0
    spread: int = 0  # total of (first level's score - second's)
    turns: int = 0

    @property
    def win_rate(self) -> float:
        """Wins of the first level, ties counted as half."""
        return (self.wins + 0.5 * self.ties) / self.games if self.games else 0.0

    @property
    def average_spread(self) -> float:
        return self.spread / self.games if self.games else 0.0

    def describe(self) -> str:
        a, b = self.levels
        return (f"level {a} vs level {b}: {self.games} games, level {a} wins "
                f"{self.win_rate:.1%} ({self.wins} W, {self.ties} T, "
                f"{self.games - self.wins - self.ties} L), average spread {self.average_spread:+.1f}")


def play_series(
    ruleset: Ruleset, levels: tuple[int, int], games: int, lexicon: Any, seed: int = 0,
    progress: Callable[[SeriesStats], None] | None = None,
    on_game: GameHook | None = None,
) -> SeriesStats:
    """``games`` games of two bot levels, alternating who starts; ``on_game(number, levels by
    seat, outcome)`` sees each game (number from 0)."""
    stats = SeriesStats(levels)
    for g in range(games):
        first = g % 2  # seat of levels[0]
        bots = [Bot(levels[0], seed + g, lexicon), Bot(levels[1], seed + g + 10_000, lexicon)]
        seated = bots if first == 0 else bots[::-1]
        outcome = play_game(ruleset, seated, seed + g, lexicon)
        if on_game is not None:
            on_game(g, levels if first == 0 else levels[::-1], outcome)
        mine, theirs = (outcome.scores[0], outcome.scores[1]) if first == 0 else \
            (outcome.scores[1], outcome.scores[0])
        stats.games += 1
        stats.turns += outcome.turns
        stats.spread += mine - theirs
        if mine > theirs:
            stats.wins += 1
        elif mine == theirs:
            stats.ties += 1
        if progress is not None:
            progress(stats)
    return stats


def is_play(action: object) -> bool:
    return isinstance(action, Play)
