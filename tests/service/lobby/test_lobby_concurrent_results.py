"""Results of several matches of the same players recorded at once (three match servers report
as their matches end; after a take-over a queued result comes with the next): every game counts
in each player's record, on SQLite and on PostgreSQL, whose transactions run side by side."""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid

import pytest
from lobby_harness import LobbyEnv

from wordarena.services.lobby.records import SeatEnd
from wordarena.services.lobby.standings import MatchReport

# the store is what this proves: on SQLite and PostgreSQL (tests/conftest.py)
pytestmark = pytest.mark.database

GAMES = 16


def _report(a: str, b: str, k: int) -> MatchReport:
    match_id = f"m-{uuid.uuid4().hex[:10]}"
    seats = [SeatEnd(0, a, 300 + k), SeatEnd(1, b, 250)]
    return MatchReport(match_id=match_id, ruleset_id="classic", language="en", board_id="", server_id="s1",
                       seats=seats, status_codes=[1, 1], outcomes=None, ended_by_kick=False, aborted=False,
                       unrated=False, reason=1, start=None, end=time.time(),
                       digest=hashlib.sha256(match_id.encode()).hexdigest())


async def test_results_of_one_player_recorded_at_once_all_count(env: LobbyEnv) -> None:
    (a, _), (b, _) = await env.guest(), await env.guest()
    reports = [_report(a, b, k) for k in range(GAMES)]
    repeats = await asyncio.gather(*(env.lobby.standings.report(r) for r in reports))
    assert not any(repeats)
    for pid, wins in ((a, GAMES), (b, 0)):
        _, records = await env.lobby.standings.records(pid, "classic")
        [(ruleset, rec)] = records
        assert (ruleset, rec.games, rec.wins) == ("classic", GAMES, wins)
