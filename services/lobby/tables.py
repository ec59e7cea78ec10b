"""Table lifecycle, pure: seats, host hand-over, when a table may or must start.

``OPEN`` → (every seat filled and start policy "when full", or the host starts it with ≥ 2 seats
filled) → ``STARTING`` (the lobby is creating the match) → ``STARTED``; back to ``OPEN`` if the
allocation fails. ``OPEN`` → ``CLOSED`` when the last human leaves or the table expires. A host who
leaves hands the table on to the next seated human (lowest seat index), or the table closes.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from enum import StrEnum

from wordarena.services.lobby.errors import LobbyError, Status
from wordarena.services.lobby.settings import (
    BOT_LEVEL_MAX,
    BOT_LEVEL_MIN,
    TableConfig,
    think_ms_problem,
)

__all__ = ["Occupant", "Table", "TableStatus", "bot_player_id", "new_invite_code"]


class TableStatus(StrEnum):
    """Mirrors ``wordarena.v1.TableStatus``."""

    OPEN = "open"
    STARTING = "starting"
    STARTED = "started"
    CLOSED = "closed"


def bot_player_id(level: int) -> str:
    """The player id of a bot of this level."""
    return f"bot:{level}"


def new_invite_code() -> str:
    """A fresh invite code for a private table (10 characters, URL-safe)."""
    return secrets.token_urlsafe(8)[:10]


@dataclass(frozen=True, slots=True)
class Occupant:
    """Who sits at a seat: a player (bot_level 0) or a bot."""

    player_id: str
    display_name: str
    bot_level: int = 0
    guest: bool = False
    think_ms: int = 0  # a bot's own think time per move (0 = the table's)

    @property
    def is_bot(self) -> bool:
        """True for a bot seat."""
        return self.bot_level > 0


@dataclass
class Table:
    """A table and its seats (index → occupant or None)."""

    table_id: str
    config: TableConfig
    host_player_id: str
    seats: list[Occupant | None]
    status: TableStatus = TableStatus.OPEN
    invite_code: str = ""
    created_at: float = 0.0
    match_id: str = ""
    match_address: str = ""
    version: int = 0
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def open(
        cls, table_id: str, config: TableConfig, host: Occupant, seat: int | None, created_at: float
    ) -> Table:
        """A new open table with the host seated and the configured bots."""
        seats: list[Occupant | None] = [None] * config.seats
        think = dict(config.bot_think)
        for s, level in config.bots:
            seats[s] = Occupant(bot_player_id(level), f"Bot {level}", bot_level=level,
                                think_ms=think.get(s, 0))
        t = cls(
            table_id,
            config,
            host.player_id,
            seats,
            created_at=created_at,
            invite_code=new_invite_code() if config.private else "",
        )
        t.sit(host, seat, field="seat")
        if config.pass_and_play:  # one client plays every human seat: the table is full at once
            for i, occ in enumerate(t.seats):
                if occ is None:
                    t.seats[i] = host
        return t

    # -- queries ----------------------------------------------------------------------------

    def seat_of(self, player_id: str) -> int | None:
        """The seat index of a player, or None."""
        for i, occ in enumerate(self.seats):
            if occ is not None and occ.player_id == player_id and not occ.is_bot:
                return i
        return None

    @property
    def filled(self) -> int:
        """Seats taken (players and bots)."""
        return sum(occ is not None for occ in self.seats)

    @property
    def humans(self) -> list[Occupant]:
        """Seated human players in seat order."""
        return [occ for occ in self.seats if occ is not None and not occ.is_bot]

    @property
    def full(self) -> bool:
        """True when every seat is taken."""
        return self.filled == len(self.seats)

    @property
    def should_autostart(self) -> bool:
        """True when the table is full, open and starts when full."""
        return self.status == TableStatus.OPEN and self.full and not self.config.host_starts

    # -- changes ----------------------------------------------------------------------------

    def _require_open(self) -> None:
        if self.status != TableStatus.OPEN:
            raise LobbyError.precondition("TABLE_NOT_OPEN", f"table is {self.status.value}, not open")

    def _free_seat(self, seat: int | None, field: str) -> int:
        if seat is not None:
            if not 0 <= seat < len(self.seats):
                raise LobbyError.invalid(f"seat must be 0..{len(self.seats) - 1}", field)
            if self.seats[seat] is not None:
                if self.full:
                    raise LobbyError.precondition("TABLE_FULL", "every seat is taken")
                raise LobbyError(Status.ALREADY_EXISTS, f"seat {seat} is taken", "", field)
            return seat
        for i, occ in enumerate(self.seats):
            if occ is None:
                return i
        raise LobbyError.precondition("TABLE_FULL", "every seat is taken")

    def sit(self, who: Occupant, seat: int | None = None, field: str = "seat") -> int:
        """Seats a player (idempotent: a seated player keeps their seat); returns the seat."""
        self._require_open()
        current = self.seat_of(who.player_id)
        if current is not None and not who.is_bot:
            return current
        i = self._free_seat(seat, field)
        self.seats[i] = who
        self.version += 1
        return i

    def sit_bot(self, by_player: str, level: int, seat: int | None = None, think_ms: int = 0) -> int:
        """Seats a bot (host only), with its own think time per move (0 = the table's)."""
        if by_player != self.host_player_id:
            raise LobbyError.denied("NOT_HOST", "only the host may seat bots")
        if not BOT_LEVEL_MIN <= level <= BOT_LEVEL_MAX:
            raise LobbyError.invalid(f"bot_level must be {BOT_LEVEL_MIN}..{BOT_LEVEL_MAX}", "bot_level")
        if think_ms_problem(think_ms):
            raise LobbyError.invalid(think_ms_problem(think_ms), "bot_think_ms")
        self._require_open()
        i = self._free_seat(seat, "seat")
        self.seats[i] = Occupant(bot_player_id(level), f"Bot {level}", bot_level=level,
                                 think_ms=think_ms)
        self.version += 1
        return i

    def leave(self, player_id: str) -> None:
        """Frees the player's seat; hands the host on or closes the table."""
        self._require_open()
        i = self.seat_of(player_id)
        if i is None:
            raise LobbyError.precondition("NOT_SEATED", "you are not seated at this table")
        if self.config.pass_and_play:  # the one player holds every human seat: the table closes
            self.seats = [None if occ is not None and occ.player_id == player_id and not occ.is_bot
                          else occ for occ in self.seats]
            self.status = TableStatus.CLOSED
            self.version += 1
            return
        self.seats[i] = None
        self.version += 1
        humans = self.humans
        if not humans:
            self.status = TableStatus.CLOSED
        elif player_id == self.host_player_id:
            self.host_player_id = humans[0].player_id

    def check_start(self, by_player: str) -> None:
        """Raises unless ``by_player`` may start the table now."""
        if by_player != self.host_player_id:
            raise LobbyError.denied("NOT_HOST", "only the host may start the table")
        self._require_open()
        if self.filled < 2:
            raise LobbyError.precondition("TABLE_NOT_READY", "at least 2 seats must be filled")

    def begin_start(self) -> list[Occupant]:
        """OPEN → STARTING; the seated occupants become the match's seats (empty seats dropped)."""
        self._require_open()
        self.status = TableStatus.STARTING
        self.version += 1
        return [occ for occ in self.seats if occ is not None]

    def started(self, match_id: str, address: str) -> None:
        """STARTING → STARTED at ``address``; empty seats are dropped (the match has fewer)."""
        self.status = TableStatus.STARTED
        self.seats = [occ for occ in self.seats if occ is not None]
        self.match_id, self.match_address = match_id, address
        self.version += 1

    def start_failed(self) -> None:
        """STARTING → OPEN after a failed allocation."""
        self.status = TableStatus.OPEN
        self.version += 1

    def close(self) -> None:
        """→ CLOSED (expiry)."""
        self.status = TableStatus.CLOSED
        self.version += 1
