"""One match in memory (``Runtime``): its engine state rebuilt from the log, its stored events,
request ids, clocks, stream subscribers, timer and bot tasks; who sits where (``SeatInfo``) and
the match options (``Options``).

What a viewer sees is ``projection``'s, the making of stored events ``eventlog``'s.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from wordarena.engine.game import GameState
from wordarena.engine.rulesets.model import Ruleset
from wordarena.services.match import wallclock
from wordarena.services.match.core import Match, Options, SeatInfo, controlled_seats, timing
from wordarena.services.match.core.events import After
from wordarena.services.match.store import StoredEvent
from wordarena.services.match.streams import Subscriber

__all__ = ["Options", "Runtime", "SeatInfo", "after_snapshot", "controlled_seats", "moved_seats"]


class RequestMethods(Mapping[tuple[str, str], str]):
    """The method of each answered request, read through the runtime's request map: a snapshot
    takes it without copying the map (which grows by a request a turn). The core only reads it,
    under the match's lock, so it cannot change while the core decides."""

    __slots__ = ("_requests",)

    def __init__(self, requests: Mapping[tuple[str, str], tuple[str, bytes]]) -> None:
        self._requests = requests

    def __getitem__(self, key: tuple[str, str]) -> str:
        return self._requests[key][0]

    def __contains__(self, key: object) -> bool:
        return key in self._requests

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._requests)

    def __len__(self) -> int:
        return len(self._requests)


@dataclass
class LogTally:
    """Counts of the log the core reads, carried on from the last event counted: reading every
    event again each turn would decode the packed payloads of the old ones (``StoredEvent``)."""

    counted: int = 0
    moved: frozenset[int] = frozenset()
    chats: dict[str, int] = field(default_factory=dict)
    observer_chats: int = 0

    def caught_up(self, events: list[StoredEvent]) -> LogTally:
        """Counts the events after the last one counted (all again if the log got shorter)."""
        if self.counted > len(events):
            self.counted, self.moved, self.chats, self.observer_chats = 0, frozenset(), {}, 0
        fresh = events[self.counted:]
        if fresh:
            self.moved = self.moved | frozenset(_movers(fresh))
            for ev in fresh:
                line = ev.event.chat
                if line is not None:
                    self.chats[line.player_id] = self.chats.get(line.player_id, 0) + 1
                    self.observer_chats += line.observers
            self.counted = len(events)
        return self


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
    #: shared by the streams and answers that show them (``wire.project``).
    projected: deque[StoredEvent] = field(default_factory=deque)
    #: What the core reads of the log, counted as events arrive (``LogTally``).
    tally: LogTally = field(default_factory=lambda: LogTally())

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

    # --- the core's view of it ---------------------------------------------------------

    @property
    def moved(self) -> frozenset[int]:
        """Seats that made a move of their own (any action but a time-out or a kick)."""
        return self.tally.caught_up(self.events).moved

    def snapshot(self) -> Match:
        """The match as the core decides on it now (take it with ``lock`` held)."""
        tally = self.tally.caught_up(self.events)
        return Match(
            match_id=self.match_id, ruleset=self.ruleset, seats=tuple(self.seats), options=self.options,
            created_at=self.created_at, state=self.state, seq=self.seq, game_seq=self.game_seq,
            status=self.status, requests=RequestMethods(self.requests),
            clocks=None if self.clocks is None else tuple(self.clocks), turn_start=self.turn_start,
            last_move=tuple(self.last_move), moved=tally.moved, chats=dict(tally.chats),
            observer_chats=tally.observer_chats, chat_buckets=dict(self.chat_buckets),
        )

    # --- clocks (``core.timing``, at the game time now unless told) ----------------------

    def clock_left(self, seat: int, now: float | None = None) -> float | None:
        """Seconds left on ``seat``'s game clock (``timing.clock_left``)."""
        return timing.clock_left(self, seat, wallclock.now() if now is None else now)

    def clock_remaining(self, seat: int, now: float | None = None) -> float | None:
        """Seconds left on ``seat``'s game clock now, never below zero (None when untimed)."""
        left = self.clock_left(seat, now)
        return None if left is None else max(left, 0.0)

    def turn_deadline(self, seat: int) -> float | None:
        """``timing.turn_deadline``."""
        return timing.turn_deadline(self, seat)

    def no_show_deadline(self, seat: int) -> float | None:
        """``timing.no_show_deadline``."""
        return timing.no_show_deadline(self, seat)


def moved_seats(events: list[StoredEvent]) -> set[int]:
    """Seats that made a move of their own (any action but a time-out or a kick) in ``events``."""
    return set(_movers(events))


def _movers(events: list[StoredEvent]) -> Iterator[int]:
    for ev in events:
        if ev.kind == "chat":
            continue
        for ee in ev.event.engine:
            action = ee.data.get("action")
            if action is not None and action.get("kind") not in ("timeout", "kick") \
                    and action.get("seat") is not None:
                yield int(action["seat"])


def after_snapshot(st: GameState, *, clocks: Sequence[float] | None = None,
                   rack_changed: tuple[int, ...] = ()) -> After:
    """The state's public and private summary stored with every event (``after``), with the
    seats' ``clocks`` and the seats whose rack the event changed."""
    return After(
        clocks=None if clocks is None else tuple(clocks), rack_changed=rack_changed,
        scores=tuple(st.scores), to_move=None if st.over else st.to_move, bag=len(st.bag),
        turn=st.turn, zero_run=st.zero_run, rack_sizes=tuple(len(r) for r in st.racks),
        seats=tuple(s.value for s in st.seats),
        exchanges=tuple(st.exchanges) or (0,) * st.players,
        racks=tuple(tuple(r) for r in st.racks),
        pending=tuple(i for i, _ in st.pending.geometry.placed) if st.pending else (),
        irradiated=st.irradiated)
