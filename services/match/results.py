"""Match results: each seat's outcome under the leaving rules, the ``ReportResultRequest`` the
lobby records, and the outbox that keeps results until the lobby acknowledges them.

Outcomes (``seat_outcomes``), the same in ``GameOver`` (what players see) and in the report, are
the engine's one decision (``engine.game.outcome``, where the rules are spelled out) on the
seats' standing and final scores at the game-over event.

``score_counts`` is true for seats still active at the end and for seats that dropped out on
time; false for seats that left, resigned or were kicked. Pass-and-play and unrated matches are
reported with ``unrated`` set (the lobby then keeps them out of records and leaderboards).

The outbox (table ``match_results``) is written when a match ends (and, at start-up, for matches
that ended without an outbox row, e.g. after a crash right after the final commit). The report is
stored serialized, so every retry sends the same bytes and the lobby's idempotency by match id
applies.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from wordarena.engine.families import parse_ruleset_id
from wordarena.engine.game import Outcome, Seat, outcomes
from wordarena.engine.game.events import Event as EngineEvent
from wordarena.engine.rulesets.model import Ruleset
from wordarena.services.common.db import Database
from wordarena.services.match import messages, wallclock
from wordarena.services.match.models import MatchRow, ResultRow
from wordarena.services.match.runtime import moved_seats
from wordarena.services.match.store import MatchStore, StoredEvent
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl

DEPARTURES = frozenset({"left", "resigned"})
OUTCOME_PB = {Outcome.WIN: c.OUTCOME_WIN, Outcome.LOSS: c.OUTCOME_LOSS, Outcome.TIE: c.OUTCOME_TIE,
              Outcome.NO_RESULT: c.OUTCOME_NO_RESULT}


def departures(events: Iterable[StoredEvent]) -> Iterator[Sequence[EngineEvent]]:
    """The engine event groups of the logged departures (resignations, leaving): the only
    events ``first_round_leavers`` needs, picked by kind so no other payload is decoded."""
    for ev in events:
        if ev.kind in DEPARTURES:
            yield ev.event.engine


def first_round_leavers(groups: Iterable[Sequence[EngineEvent]]) -> list[int]:
    """Seats that left or resigned during the first round, from the engine's event groups."""
    out: set[int] = set()
    for g in groups:
        if not g:
            continue
        head = g[0]
        if head.type in DEPARTURES and head.data.get("first_round") and head.seat is not None:
            out.add(int(head.seat))
    return sorted(out)


def seat_outcomes(family: str, statuses: Sequence[str], scores: Sequence[int], reason: str,
                  first_round_left: Iterable[int] = ()) -> list[int]:
    """Each seat's ``wordarena.v1.Outcome``: the engine's decision
    (``engine.game.outcome.outcomes``) from the seats' standing and final scores."""
    decided = outcomes(family, [Seat(s) for s in statuses], scores, reason, set(first_round_left))
    return [OUTCOME_PB[o] for o in decided]


def score_counts(status: str, outcome: int) -> bool:
    """Whether a seat's final score counts towards average / weighted score."""
    return status in ("active", "timed-out") and outcome != c.OUTCOME_NO_RESULT


@dataclass(frozen=True, slots=True)
class MatchFacts:
    """What a report is built from (a live ``Runtime`` or a match reloaded from the store)."""

    match_id: str
    ruleset: Ruleset
    player_ids: list[str]
    unrated: bool
    created_at: float
    events: Sequence[StoredEvent]
    no_show: bool = False  # the match has a first-move deadline (MatchOptions.no_show_timeout)


def facts_of(rt: Any) -> MatchFacts:
    """``MatchFacts`` of a live ``services.match.runtime.Runtime``."""
    return MatchFacts(rt.match_id, rt.ruleset, [s.player_id for s in rt.seats],
                      bool(rt.options.unrated or rt.options.pass_and_play), rt.created_at, list(rt.events),
                      bool(rt.options.no_show_seconds))


def build_report(facts: MatchFacts, server_id: str) -> ctl.ReportResultRequest | None:
    """The lobby's ``ReportResultRequest`` for a finished match (None when it has not ended)."""
    over = next((ev for ev in reversed(facts.events) if ev.kind == "game-over"), None)
    if over is None:
        return None
    typed = over.event
    data, after = typed.head.data, typed.after
    assert after is not None  # every event of the game has its summary
    statuses: list[str] = list(after.seats)
    early = first_round_leavers(departures(facts.events))
    family = facts.ruleset.family
    decided = seat_outcomes(family, statuses, data["scores"], data["reason"], early)
    req = ctl.ReportResultRequest(
        match_id=facts.match_id, server_id=server_id, ruleset=messages.ruleset_ref(facts.ruleset),
        reason=messages.REASONS.get(data["reason"], c.GAME_OVER_REASON_UNSPECIFIED),  # type: ignore[arg-type]
        unrated=facts.unrated or data["reason"] == "aborted",
        start_time=messages.timestamp(facts.created_at), end_time=messages.timestamp(over.time),
        turn_count=after.turn,
    )
    moved = moved_seats(list(facts.events)) if facts.no_show else set()
    for i, pid in enumerate(facts.player_ids):
        req.seats.append(ctl.SeatResult(
            seat=i, player_id=pid, final_score=int(data["scores"][i]), outcome=decided[i],  # type: ignore[arg-type]
            status=messages.SEAT_STATUS.get(statuses[i], c.SEAT_STATUS_UNSPECIFIED),  # type: ignore[arg-type]
            score_counts=score_counts(statuses[i], decided[i]),
            no_show=facts.no_show and statuses[i] == "timed-out" and i not in moved))
    return req


@dataclass(frozen=True, slots=True)
class Due:
    """A result to deliver now."""

    match_id: str
    report: ctl.ReportResultRequest
    attempts: int


class ResultOutbox:
    """The ``match_results`` table: enqueue, claim what is due, acknowledge, reschedule."""

    def __init__(self, db: Database, store: MatchStore) -> None:
        self.db = db
        self.store = store

    async def enqueue(self, report: ctl.ReportResultRequest) -> bool:
        """Store a report to deliver (no-op when one is stored already). True when added."""
        blob = report.SerializeToString(deterministic=True)
        now = wallclock.now()

        def work(s: Session) -> bool:
            if s.get(ResultRow, report.match_id) is not None:
                return False
            s.add(ResultRow(match_id=report.match_id, report=blob, created_at=now, next_attempt_at=now))
            return True

        try:
            return await self.db.run(work)
        except IntegrityError:  # another server stored it first
            return False

    async def claim_due(self, limit: int = 50, hold_seconds: float = 30.0) -> list[Due]:
        """Pending reports whose next attempt is due, held for ``hold_seconds`` so that other
        servers sharing the database do not send them at the same time."""
        now = wallclock.now()

        def work(s: Session) -> list[Due]:
            rows = list(s.exec(select(ResultRow).where(
                ResultRow.state == "pending", col(ResultRow.next_attempt_at) <= now)
                .order_by(col(ResultRow.next_attempt_at)).limit(limit)))
            out = []
            for r in rows:
                got = s.exec(update(ResultRow).where(  # type: ignore[call-overload]
                    col(ResultRow.match_id) == r.match_id, col(ResultRow.state) == "pending",
                    col(ResultRow.next_attempt_at) == r.next_attempt_at)
                    .values(next_attempt_at=now + hold_seconds, attempts=r.attempts + 1))
                if got.rowcount == 1:
                    out.append(Due(r.match_id, ctl.ReportResultRequest.FromString(r.report), r.attempts + 1))
            return out

        return await self.db.run(work)

    async def settle(self, match_id: str, state: str, error: str = "") -> None:
        """Mark a report ``acked`` or ``refused`` (``error`` replaces the last error when given)."""
        now = wallclock.now()
        values: dict[str, Any] = {"state": state, "acked_at": now}
        if error:
            values["last_error"] = error[:2000]

        def work(s: Session) -> None:
            s.exec(update(ResultRow).where(col(ResultRow.match_id) == match_id)  # type: ignore[call-overload]
                   .values(**values))

        await self.db.run(work)

    async def retry_at(self, match_id: str, when: float, error: str) -> None:
        """Schedule the next attempt of a report."""
        def work(s: Session) -> None:
            s.exec(update(ResultRow).where(col(ResultRow.match_id) == match_id,  # type: ignore[call-overload]
                                           col(ResultRow.state) == "pending")
                   .values(next_attempt_at=when, last_error=error[:2000]))

        await self.db.run(work)

    async def retry_now(self) -> int:
        """Every pending report due now (the lobby answers again), its attempts kept. Returns how
        many were waiting."""
        now = wallclock.now()

        def work(s: Session) -> int:
            got = s.exec(update(ResultRow).where(  # type: ignore[call-overload]
                col(ResultRow.state) == "pending", col(ResultRow.next_attempt_at) > now)
                .values(next_attempt_at=now))
            return int(got.rowcount)

        return await self.db.run(work)

    async def pending(self) -> int:
        """How many reports wait for an acknowledgement."""
        def work(s: Session) -> int:
            return int(s.exec(select(func.count()).select_from(ResultRow)
                              .where(ResultRow.state == "pending")).one())

        return await self.db.run(work)

    async def get(self, match_id: str) -> ResultRow | None:
        """The outbox row of a match (tests, operators)."""
        return await self.db.run(lambda s: s.get(ResultRow, match_id))

    async def sweep(self, server_id: str, since: float) -> int:
        """Queue the results of matches that ended after ``since`` without an outbox row (the
        server stopped between the final commit and the outbox write). Returns how many."""
        def missing(s: Session) -> list[str]:
            known = select(ResultRow.match_id)
            return list(s.exec(select(MatchRow.id).where(
                MatchRow.status == "finished", col(MatchRow.ended_at) >= since,
                col(MatchRow.id).not_in(known))))

        added = 0
        for match_id in await self.db.run(missing):
            loaded = await self.store.load(match_id)
            if loaded is None:
                continue
            row = loaded.row
            options = json.loads(row.options)
            facts = MatchFacts(match_id, parse_ruleset_id(row.ruleset_id),
                               [seat["player_id"] for seat in json.loads(row.seats)],
                               bool(options.get("unrated") or options.get("pass_and_play")),
                               row.created_at, loaded.events, bool(options.get("no_show_seconds")))
            report = build_report(facts, server_id)
            if report is not None and await self.enqueue(report):
                added += 1
        return added
