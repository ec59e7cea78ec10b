"""Quick-match ticket storage on SQLite: cancel against an allocation's claim, and retention."""

from __future__ import annotations

from sqlmodel import Session, select

from wordarena.services.common.db import Database
from wordarena.services.lobby import store
from wordarena.services.lobby.matchmaking import Criteria, Ticket, TicketStatus
from wordarena.services.lobby.models import TicketRow

CRIT = Criteria("wordtiles", "en", "", 2)
T0 = 1_000_000.0


def add(db: Database, n: int) -> list[str]:
    ids = [f"q_{i}" for i in range(n)]
    for i, tid in enumerate(ids):
        db.run_sync(store.add_ticket, Ticket(tid, f"p{i}", f"P{i}", CRIT, created_at=T0 + i))
    return ids


def status(db: Database, tid: str) -> tuple[str, float | None, float]:
    r = db.run_sync(lambda s: s.get(TicketRow, tid))
    return r.status, r.claimed_at, r.created_at


def claim(db: Database, now: float) -> list[list[str]]:
    _, groups = db.run_sync(store.claim_groups, now, 900.0, 120.0)
    return [[t.ticket_id for t in g.tickets] for g in groups]


def test_cancel_before_the_allocation_starts_gives_the_group_up(db: Database) -> None:
    a, b = add(db, 2)
    assert claim(db, T0 + 5) == [[a, b]]
    assert status(db, a)[0] == store.MATCHING
    t = db.run_sync(store.cancel_ticket, a, "p0", T0 + 6)
    assert t is not None and t.status == TicketStatus.CANCELLED
    assert db.run_sync(store.cancel_ticket, a, "p1", T0 + 6) is None  # not the owner's
    assert not db.run_sync(store.hold_group, [a, b], T0 + 5, T0 + 7)
    assert status(db, a)[0] == "cancelled"
    assert status(db, b) == ("queued", None, T0 + 1)  # back in its place
    # a later commit of the same claim seats nobody
    assert db.run_sync(store.finish_group, [a, b], T0 + 5, "m1", "addr", T0 + 8) is None
    assert status(db, b)[0] == "queued"


def test_cancel_during_allocation_wins_over_a_later_commit(db: Database) -> None:
    a, b, c = add(db, 3)
    assert claim(db, T0 + 5) == [[a, b]]
    assert db.run_sync(store.hold_group, [a, b], T0 + 5, T0 + 6)  # still whole: allocate
    db.run_sync(store.cancel_ticket, b, "p1", T0 + 7)
    assert db.run_sync(store.finish_group, [a, b], T0 + 5, "m1", "addr", T0 + 8) is None
    assert status(db, a) == ("queued", None, T0)
    assert status(db, b)[0] == "cancelled"
    rows = db.run_sync(lambda s: list(s.exec(select(TicketRow).where(TicketRow.match_id != ""))))
    assert rows == []  # nobody holds the match
    # a is the oldest again: grouped with c
    assert claim(db, T0 + 9) == [[a, c]]


def test_commit_first_then_cancel_is_refused_as_matched(db: Database) -> None:
    a, b = add(db, 2)
    claim(db, T0 + 5)
    done = db.run_sync(store.finish_group, [a, b], T0 + 5, "m1", "addr", T0 + 8)
    assert done is not None and [(t.status, t.seat) for t in done] == [
        (TicketStatus.MATCHED, 0), (TicketStatus.MATCHED, 1)
    ]
    t = db.run_sync(store.cancel_ticket, a, "p0", T0 + 9)
    assert t is not None and t.status == TicketStatus.MATCHED and t.match_id == "m1"
    assert status(db, a)[0] == "matched"


def test_a_claim_taken_back_is_not_touched_by_its_old_owner(db: Database) -> None:
    a, b = add(db, 2)
    claim(db, T0 + 5)
    # the first lobby is too slow: after reclaim_after_s another step claims the group again
    assert claim(db, T0 + 200) == [[a, b]]
    db.run_sync(store.requeue_group, [a, b], T0 + 5, T0 + 201)  # old owner: allocation failed
    assert status(db, a) == (store.MATCHING, T0 + 200, T0)
    assert db.run_sync(store.finish_group, [a, b], T0 + 5, "m1", "x", T0 + 202) is None
    assert status(db, b)[0] == store.MATCHING
    assert db.run_sync(store.finish_group, [a, b], T0 + 200, "m2", "y", T0 + 203) is not None
    assert status(db, a)[0] == "matched"


def test_delete_old_tickets_only_closed_and_old(db: Database) -> None:
    ids = add(db, 8)

    def set_rows(s: Session) -> None:
        states = ["queued", store.MATCHING, "cancelled", "expired", "matched", "cancelled", "matched",
                  "expired"]
        for i, (tid, st) in enumerate(zip(ids, states, strict=True)):
            r = s.get(TicketRow, tid)
            r.status, r.updated_at = st, (T0 if i < 5 else T0 + 1000)  # the last three: recent
            s.add(r)

    db.run_sync(set_rows)
    assert db.run_sync(store.delete_old_tickets, T0 + 500, 2) == 2  # a batch
    assert db.run_sync(store.delete_old_tickets, T0 + 500, 2) == 1
    assert db.run_sync(store.delete_old_tickets, T0 + 500, 2) == 0
    left = db.run_sync(lambda s: sorted(s.exec(select(TicketRow.id))))
    assert left == [ids[0], ids[1], ids[5], ids[6], ids[7]]
    assert db.run_sync(store.delete_old_tickets, T0 + 2000) == 3
    assert db.run_sync(lambda s: sorted(s.exec(select(TicketRow.id)))) == [ids[0], ids[1]]
