"""The tournament store on SQLite: a round is recorded in the caller's transaction, so a
transaction that does not commit (a lobby killed while pairing) leaves no round without its games."""

from __future__ import annotations

from pathlib import Path

from sqlmodel import Session

from wordarena.services.common.db import Database
from wordarena.services.lobby import store
from wordarena.services.lobby.models import TournamentRoundRow
from wordarena.services.lobby.tournaments import rows


def test_a_round_recorded_in_a_transaction_that_is_rolled_back_is_not_kept(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'lobby.db'}")
    try:
        store.migrate(db)
        with Session(db.engine) as s:
            assert rows.add_round(s, "tn_1", "Open", 1, "swiss", 0.0)
            assert not rows.add_round(s, "tn_1", "Open", 1, "swiss", 0.0)  # once
            s.rollback()  # the games were never written: the lobby died
        with Session(db.engine) as s:
            assert s.get(TournamentRoundRow, ("tn_1", "Open", 1)) is None
            assert rows.add_round(s, "tn_1", "Open", 1, "swiss", 0.0)
            s.commit()
        with Session(db.engine) as s:
            assert s.get(TournamentRoundRow, ("tn_1", "Open", 1)) is not None
    finally:
        db.close()
