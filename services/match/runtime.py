"""One match in memory (``Runtime``): its engine state rebuilt from the log, its stored events,
request ids, clocks, stream subscribers, timer and bot tasks; who sits where (``SeatInfo``) and
the match options (``Options``).

Projections for a viewer are in ``projection``, the making of stored events in ``eventlog``.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from wordarena.engine.game import GameState
from wordarena.engine.rulesets.model import Ruleset
from wordarena.services.match import views, wallclock
from wordarena.services.match.store import StoredEvent
from wordarena.services.match.streams import Subscriber
from wordarena.v1 import common_pb2 as c


@dataclass(slots=True)
class SeatInfo:
    """Who sits at a seat."""

    player_id: str
    display_name: str
    guest: bool = False
    bot: bool = False
    bot_level: int = 0
    bot_think_ms: int = 0  # a bot's think time per move (0 = the server's default)

    def to_pb(self) -> c.Player:
        return c.Player(player_id=self.player_id, display_name=self.display_name, guest=self.guest,
                        bot=self.bot, bot_level=self.bot_level)

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "display_name": self.display_name, "guest": self.guest,
                "bot": self.bot, "bot_level": self.bot_level, "bot_think_ms": self.bot_think_ms}


def controlled_seats(seats: list[SeatInfo], player_id: str) -> list[int]:
    """Of ``seats``, those ``player_id`` may act for (several in pass-and-play)."""
    return [i for i, s in enumerate(seats) if not s.bot and s.player_id == player_id]


@dataclass(slots=True)
class Options:
    """Match options as stored (JSON)."""

    challenge_mode: int = 0
    per_player_seconds: float = 0.0  # 0 = untimed
    idle_kick_seconds: float = 3 * 86400.0  # the per-turn deadline (classic, warofwords; else 0)
    pass_and_play: bool = False
    unrated: bool = False
    spectators_allowed: bool = False
    no_show_seconds: float = 0.0  # the first-move deadline (0 = none)

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}  # type: ignore[attr-defined]

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Options:
        return cls(**{k: d[k] for k in cls.__slots__ if k in d})  # type: ignore[attr-defined]

    def to_pb(self) -> c.MatchOptions:
        o = c.MatchOptions(challenge_mode=self.challenge_mode,  # type: ignore[arg-type]
                           pass_and_play=self.pass_and_play, unrated=self.unrated,
                           spectators_allowed=self.spectators_allowed)
        if self.per_player_seconds:
            o.clock.per_player.CopyFrom(views.duration(self.per_player_seconds))
        if self.idle_kick_seconds:
            o.clock.idle_kick_after.CopyFrom(views.duration(self.idle_kick_seconds))
        if self.no_show_seconds:
            o.no_show_timeout.CopyFrom(views.duration(self.no_show_seconds))
        return o


@dataclass
class Runtime:
    """A live match owned by this server."""

    match_id: str
    ruleset: Ruleset
    seats: list[SeatInfo]
    options: Options
    created_at: float
    state: GameState
    events: list[StoredEvent]
    status: str = "in-progress"
    ended_at: float | None = None
    requests: dict[tuple[str, str], tuple[str, bytes]] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subscribers: set[Subscriber] = field(default_factory=set)
    placed_seq: dict[int, int] = field(default_factory=dict)
    clocks: list[float] | None = None  # remaining seconds per seat at ``turn_start``
    turn_start: float = 0.0  # wall time when the seat to move began its turn
    last_move: list[float] = field(default_factory=list)
    #: The clock timer (``clocks.arm``): the loop's timer handle, a task once it fired.
    timer: wallclock.Cancellable | None = None
    bot_task: asyncio.Task[None] | None = None
    #: SendChat's token buckets by player id: [tokens, monotonic time of the last refill].
    chat_buckets: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: When a seated player last called about the match (or it was taken over here): epoch
    #: seconds, 0 = never (``orphans``).
    player_seen: float = 0.0
    #: The latest events whose projections are kept (``StoredEvent.shown``), oldest first:
    #: shared by the streams and answers that show them (``projection.project``).
    projected: deque[StoredEvent] = field(default_factory=deque)

    @property
    def seq(self) -> int:
        """The latest stored seq (chat included)."""
        return len(self.events)

    @property
    def game_seq(self) -> int:
        """The seq of the latest stored event that changed the game: any event but chat. A turn's
        ``expected_seq`` may not be older than it (chat never makes a turn stale)."""
        for ev in reversed(self.events):
            if ev.kind != "chat":
                return ev.seq
        return 0

    # --- who is who ----------------------------------------------------------------------

    def controlled_seats(self, player_id: str) -> list[int]:
        """Seats the player may act for (several in pass-and-play)."""
        return controlled_seats(self.seats, player_id)

    def bot_seat(self, seat: int) -> bool:
        return self.seats[seat].bot

    # --- clocks --------------------------------------------------------------------------

    def clock_left(self, seat: int, now: float | None = None) -> float | None:
        """Seconds left on ``seat``'s game clock now (None when untimed); below zero by the time
        over in a family with overtime (scrabble), down to minus its maximum overtime."""
        if self.clocks is None:
            return None
        left = self.clocks[seat]
        if not self.state.over and seat == self.state.to_move and self.status == "in-progress":
            left -= (wallclock.now() if now is None else now) - self.turn_start
        return max(left, -float(self.ruleset.clock.max_overtime if self.overtime_allowed else 0))

    def clock_remaining(self, seat: int, now: float | None = None) -> float | None:
        """Seconds left on ``seat``'s game clock now, never below zero (None when untimed)."""
        left = self.clock_left(seat, now)
        return None if left is None else max(left, 0.0)

    @property
    def overtime_allowed(self) -> bool:
        """True when the game clock may run past zero (scrabble's overtime penalty)."""
        return self.clocks is not None and self.ruleset.clock.overtime_points > 0

    def charged_clocks(self, now: float) -> list[float] | None:
        """Clocks after charging the seat to move for the time since its turn began."""
        if self.clocks is None:
            return None
        out = list(self.clocks)
        if not self.state.over:
            out[self.state.to_move] = self.clock_left(self.state.to_move, now) or 0.0
        return out

    def overtime(self, clocks: list[float] | None) -> list[float] | None:
        """Each seat's time over on ``clocks`` (the engine's overtime data), or None when the
        match's clock has no overtime."""
        if clocks is None or not self.overtime_allowed:
            return None
        return [max(-left, 0.0) for left in clocks]

    def idle_since(self, seat: int) -> float:
        """Since when ``seat`` has been idle: its turn's start or its last move, the later."""
        return max(self.turn_start, self.last_move[seat] if self.last_move else self.created_at)

    def turn_deadline(self, seat: int) -> float | None:
        """When ``seat``'s per-turn deadline passes if it is to move (correspondence families;
        none in pass-and-play or for bots)."""
        if not self.ruleset.clock.turn_deadline or self.options.pass_and_play \
                or self.bot_seat(seat) or self.state.over or seat != self.state.to_move:
            return None
        return self.idle_since(seat) + self.options.idle_kick_seconds

    def no_show_deadline(self, seat: int) -> float | None:
        """When ``seat`` is timed out for not showing (``MatchOptions.no_show_timeout``): its
        turn's start plus the no-show time while it is to move and has made no move of its own
        (a seat that has not moved is on its first turn); None otherwise (bots always show)."""
        if not self.options.no_show_seconds or self.options.pass_and_play or self.bot_seat(seat) \
                or self.state.over or seat != self.state.to_move or has_moved(self.events, seat):
            return None
        return self.turn_start + self.options.no_show_seconds


def moved_seats(events: list[StoredEvent]) -> set[int]:
    """Seats that made a move of their own (any action but a time-out or a kick) in ``events``."""
    return set(_movers(events))


def has_moved(events: list[StoredEvent], seat: int) -> bool:
    """``seat in moved_seats(events)``, reading the log only up to the seat's first move (older
    events' payloads are decoded on each read)."""
    return any(mover == seat for mover in _movers(events))


def _movers(events: list[StoredEvent]) -> Iterator[int]:
    for ev in events:
        if ev.kind == "chat":
            continue
        for ee in ev.payload.get("engine", ()):
            action = ee.get("data", {}).get("action")
            if action is not None and action.get("kind") not in ("timeout", "kick") \
                    and action.get("seat") is not None:
                yield int(action["seat"])


def after_snapshot(st: GameState) -> dict[str, Any]:
    """The state's public and private summary stored with every event (``after``)."""
    return {
        "scores": list(st.scores), "to_move": None if st.over else st.to_move, "bag": len(st.bag),
        "turn": st.turn, "zero_run": st.zero_run, "rack_sizes": [len(r) for r in st.racks],
        "seats": [s.value for s in st.seats], "exchanges": list(st.exchanges) or [0] * st.players,
        "racks": [list(r) for r in st.racks],
        "pending": [i for i, _ in st.pending.geometry.placed] if st.pending else [],
    }
