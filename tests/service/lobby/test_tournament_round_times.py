"""Rounds at set times (``TournamentSettings.round_interval``) over loopback gRPC, with a fake
match server whose results the test reports and the lobby's tournament time moved on by the test:
a round is paired at its time and not before, and a round whose time has come while the previous
round is still being played is paired as soon as that round's last game ends."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf.duration_pb2 import Duration
from lobby_harness import LobbyEnv, eventually
from tournament_harness import CLASSIC, guest, playing, report, state, stub

from wordarena.services.lobby.tournaments import rows
from wordarena.services.lobby.tournaments import runner as tournament_runner
from wordarena.v1 import tournament_pb2 as tp


class Skew:
    """The lobby's tournament time: the real time plus a skew the test moves on."""

    def __init__(self) -> None:
        self.skew = 0.0
        self.real = tournament_runner.now

    def now(self) -> float:
        return self.real() + self.skew


@pytest.fixture
def skew(monkeypatch: pytest.MonkeyPatch) -> Skew:
    s = Skew()
    monkeypatch.setattr(tournament_runner, "now", s.now)
    return s


async def test_rounds_are_paired_at_their_time_and_wait_for_the_previous_round(
    env: LobbyEnv, match_server: Any, skew: Skew
) -> None:
    ts = stub(env)
    _, dmd = await guest(env, "Dora")
    every = Duration(seconds=600)
    settings = tp.TournamentSettings(name="Club", game=CLASSIC, rounds=3, round_interval=every)
    t = await ts.CreateTournament(tp.CreateTournamentRequest(settings=settings), metadata=dmd)
    tid = t.tournament.tournament_id
    assert t.tournament.settings.round_interval.seconds == 600
    for name in "ABCD":
        _, md = await guest(env, f"Player {name}")
        await ts.Register(tp.RegisterRequest(tournament_id=tid), metadata=md)
    await ts.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=dmd)

    async def finish(round_no: int) -> None:
        games = await eventually(lambda: playing(env, tid, dmd, round_no, 2))
        created = {c.match_id: c for c in match_server.created}
        for g in games:
            assert not await report(env, created[g.match_id], (400, 350))

    async def rounds_paired() -> int:
        st = await state(env, tid, dmd)
        return max((g.round for g in st.games), default=0)

    await finish(1)
    await env.lobby.runner.tick()  # round 1 is over, round 2's time has not come
    assert await rounds_paired() == 1
    skew.skew += 599
    await env.lobby.runner.tick()
    assert await rounds_paired() == 1
    skew.skew += 2
    await eventually(lambda: playing(env, tid, dmd, 2, 2))
    first = await env.db.run(rows.round_paired_at, tid, "Open", 1)
    second = await env.db.run(rows.round_paired_at, tid, "Open", 2)
    assert second >= first + 600

    skew.skew += 1200  # round 3's time passes while round 2 is still being played
    await env.lobby.runner.tick()
    assert await rounds_paired() == 2
    await finish(2)  # its last game ends: round 3 is paired at once
    await finish(3)
    st = await state(env, tid, dmd)
    assert st.tournament.status == tp.TOURNAMENT_STATUS_FINISHED
    third = await env.db.run(rows.round_paired_at, tid, "Open", 3)
    assert third >= first + 1200
