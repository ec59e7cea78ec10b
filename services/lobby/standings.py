"""Standings: match results reported by the match servers (recorded once, keyed by match id),
the records and leaderboards they add up to, and a player's matches."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from sqlmodel import Session

from wordarena.engine.game.outcome import Outcome
from wordarena.services.common import logs
from wordarena.services.common.db import Database
from wordarena.services.lobby import convert, store
from wordarena.services.lobby.errors import LobbyError, Status
from wordarena.services.lobby.models import MatchRow, MatchSeatRow, PlayerRow
from wordarena.services.lobby.records import (
    PlayerRecord,
    SeatEnd,
    apply_result,
    check_outcomes,
    decide_outcomes,
)

__all__ = ["MatchReport", "Period", "ResultHook", "Standing", "Standings", "period_start", "rank"]

log = logs.get_logger("wordarena.lobby")


class Period(StrEnum):
    """The span of a leaderboard (mirrors ``wordarena.v1.LeaderboardPeriod``)."""

    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    ALL_TIME = "all_time"


@dataclass(frozen=True)
class Standing:
    """A leaderboard line: rank (equal rating and wins share one), player, record."""

    rank: int
    player: PlayerRow
    record: PlayerRecord


@dataclass(frozen=True)
class MatchReport:
    """A match result as a match server reports it. ``outcomes`` None: the lobby decides them;
    ``status_codes`` are the seats' statuses as the contract numbers them (stored as given);
    ``digest`` fingerprints the report (a repeat must be the same)."""

    match_id: str
    ruleset_id: str
    language: str
    board_id: str
    server_id: str
    seats: list[SeatEnd]
    status_codes: list[int]
    outcomes: list[Outcome | None] | None
    ended_by_kick: bool
    aborted: bool
    unrated: bool
    reason: int
    start: float | None
    end: float
    digest: str
    #: Seats that did not show (``SeatResult.no_show``: timed out by the first-move deadline).
    no_show: tuple[int, ...] = ()


def period_start(period: Period, now: float) -> float | None:
    """When the leaderboard period holding ``now`` began (UTC; None for all time)."""
    if period == Period.ALL_TIME:
        return None
    d = dt.datetime.fromtimestamp(now, dt.UTC)
    day = d.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == Period.DAY:
        return day.timestamp()
    if period == Period.WEEK:
        return (day - dt.timedelta(days=day.weekday())).timestamp()
    return day.replace(day=1).timestamp()


def rank(entries: list[tuple[PlayerRow, PlayerRecord]]) -> list[Standing]:
    """Entries ordered by rating, then wins, then player id; equal (rating, wins) share a rank."""
    entries.sort(key=lambda e: (-round(e[1].rating.rating, 6), -e[1].wins, e[0].id))
    out: list[Standing] = []
    prev: tuple[float, int] | None = None
    position = 0
    for i, (p, rec) in enumerate(entries):
        k = (round(rec.rating.rating, 6), rec.wins)
        if k != prev:
            position, prev = i + 1, k
        out.append(Standing(position, p, rec))
    return out


#: ``hook(session, report, outcomes)``: runs in the transaction that first records a result;
#: returns a key for ``after_result`` (e.g. the tournament the match belongs to), or None.
ResultHook = Callable[[Session, "MatchReport", Sequence[Outcome]], str | None]


class Standings:
    """Results, records, leaderboards and match lists. ``on_result`` (a ``ResultHook``) sees a
    result in the transaction that records it first; ``after_result`` is then awaited with what
    the hook returned (tournaments)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.on_result: ResultHook | None = None
        self.after_result: Callable[[str], Awaitable[None]] | None = None

    async def locate(self, match_id: str, player_id: str) -> tuple[MatchRow, int | None]:
        """Where a match is played now, and the player's seat in it."""
        m, seat = await self.db.run(store.locate_match, match_id, player_id)
        if m is None:
            raise LobbyError.not_found("no such match", "match_id")
        if not m.address:
            raise LobbyError(Status.UNAVAILABLE, "no server owns the match right now; retry shortly")
        return m, seat

    async def records(
        self, player_id: str, ruleset_id: str
    ) -> tuple[PlayerRow, list[tuple[str, PlayerRecord]]]:
        """A player and their records by ruleset id (in one ruleset, or all)."""
        p, rows = await self.db.run(store.player_records, player_id, ruleset_id)
        if p is None:
            raise LobbyError.not_found("no such player", "player_id")
        return p, [(r.ruleset_id, store.record_from_row(r)) for r in rows]

    async def leaderboard(self, ruleset_id: str, period: Period) -> list[Standing]:
        """The ranked leaderboard of a ruleset over the current period."""
        entries = await self.db.run(store.leaderboard, ruleset_id, period_start(period, time.time()))
        return rank(entries)

    async def matches(
        self, player_id: str, active: bool | None, offset: int, limit: int
    ) -> list[tuple[MatchRow, list[MatchSeatRow], int]]:
        """A player's matches (see ``store.player_matches``)."""
        return await self.db.run(store.player_matches, player_id, active, offset, limit)

    async def report(self, r: MatchReport) -> bool:
        """Records a result once: the seats' scores and outcomes and, for a rated match, the
        players' records. Returns True when this very result was recorded before (a repeat);
        a different result for the same match is FAILED_PRECONDITION."""
        if r.outcomes is None:
            outcomes = decide_outcomes(r.ruleset_id, r.seats, ended_by_kick=r.ended_by_kick)
        else:
            if any(o is None for o in r.outcomes):
                raise LobbyError.invalid("give every seat an outcome, or none", "seats")
            outcomes = [o for o in r.outcomes if o is not None]
            why = check_outcomes(r.ruleset_id, r.seats, outcomes)
            if why:
                raise LobbyError.invalid(f"inconsistent result: {why}", "seats")

        def work(s: Session) -> tuple[bool, str | None]:
            m = store.get_match(s, r.match_id)
            if m is not None and m.result_hash is not None:
                if m.result_hash != r.digest:
                    raise LobbyError.precondition(
                        "", "a different result was already recorded for this match"
                    )
                return True, None
            if m is None:
                m = MatchRow(
                    id=r.match_id,
                    ruleset_id=r.ruleset_id,
                    language=r.language or "en",
                    board_id=r.board_id,
                    server_id=r.server_id,
                    created_at=r.start if r.start is not None else r.end,
                )
            # A no-show is a forfeit, not a game: it counts in a tournament's standings but
            # says nothing of skill, and rating it would let one account's absence (or a sock
            # account's) move ratings without a move played.
            rated = m.rated and not r.unrated and not r.aborted and not r.no_show
            m.active, m.ended_at, m.reason, m.result_hash, m.rated = False, r.end, r.reason, r.digest, rated
            store.save_row(s, m)
            rows = store.match_seats(s, m.id)
            for se, o in zip(r.seats, outcomes, strict=True):
                row = rows.get(se.seat) or MatchSeatRow(
                    match_id=m.id,
                    seat=se.seat,
                    player_id=se.player_id,
                    ruleset_id=r.ruleset_id,
                    created_at=r.end,
                )
                if row.player_id != se.player_id:
                    raise LobbyError.invalid(f"seat {se.seat} was allocated to another player", "seats")
                row.score, row.status = se.score, r.status_codes[se.seat]
                row.outcome = convert.OUTCOME_TO_PB[o] if not r.aborted else 0
                row.score_counts, row.ended_at = se.score_counts, r.end
                row.recorded = rated and o != Outcome.NO_RESULT
                others = [t.score for t in r.seats if t.seat != se.seat]
                row.margin = se.score - sum(others) / len(others)
                if se.player_id.startswith("bot:"):
                    row.bot_level = int(se.player_id[4:] or 0) if se.player_id[4:].isdigit() else 1
                store.save_row(s, row)
            if rated:
                humans = [x.player_id for x in r.seats if not x.player_id.startswith("bot:")]
                store.lock_records(s, humans)
                before = store.records_of(s, humans, r.ruleset_id)
                for pid, rec in apply_result(before, r.seats, outcomes).items():
                    store.save_record(s, pid, r.ruleset_id, rec, r.end)
            return False, self.on_result(s, r, outcomes) if self.on_result else None

        already, touched = await self.db.run(work)
        if not already:
            log.info("result recorded", match_id=r.match_id, outcomes=[o.value for o in outcomes])
        if touched is not None and self.after_result is not None:
            await self.after_result(touched)
        return bool(already)
