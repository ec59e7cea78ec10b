"""The match's clock timer on the real clock (``clocks.arm`` through ``wallclock.call_later``):
a loop timer handle until it fires, then the time-out is committed under the match's lock; a
re-armed or disarmed timer never fires. The service tests run timers on a fake clock, which
replaces ``call_later`` with ``wallclock.on_sleep`` of its own ``sleep`` (a task waiting on it):
checked here too."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from wordarena.engine.families import get_ruleset
from wordarena.engine.game import TimeOut, start_game
from wordarena.engine.lexicon import load_lexicon
from wordarena.services.match import clocks, eventlog, wallclock
from wordarena.services.match.runtime import Options, Runtime, SeatInfo


def _runtime(deadline: float) -> Runtime:
    """A classic match (its per-turn deadline times the seat to move out) due in ``deadline`` s."""
    ruleset = get_ruleset("classic", "en", None)
    state, events = start_game(ruleset, 2, 3, load_lexicon(ruleset.lexicon), True)
    now = wallclock.now()
    rt = Runtime(match_id="m", ruleset=state.ruleset, seats=[SeatInfo("a", "A"), SeatInfo("b", "B")],
                 options=Options(idle_kick_seconds=deadline), created_at=now, state=state, events=[],
                 last_move=[now, now])
    rt.turn_start = now
    eventlog.install(rt, eventlog.to_stored(rt, events, state, now))
    return rt


class _Commits:
    def __init__(self) -> None:
        self.actions: list[Any] = []

    async def __call__(self, rt: Runtime, decided: Any) -> None:
        assert rt.lock.locked()  # a time-out is stored under the match's lock
        self.actions.append(decided.action)


async def test_the_real_clock_timer_is_a_loop_handle_that_times_the_seat_out() -> None:
    rt, commits = _runtime(0.05), _Commits()
    clocks.arm(rt, commits)
    assert isinstance(rt.timer, asyncio.TimerHandle)  # no task until it fires
    await asyncio.sleep(0.5)
    assert commits.actions == [TimeOut(rt.state.to_move)]


async def test_a_disarmed_or_rearmed_timer_does_not_fire() -> None:
    rt, commits = _runtime(0.05), _Commits()
    clocks.arm(rt, commits)
    first = rt.timer
    clocks.arm(rt, commits)  # a turn re-arms it: the old handle is cancelled
    assert isinstance(first, asyncio.TimerHandle) and first.cancelled()
    clocks.disarm(rt)
    assert rt.timer is None
    await asyncio.sleep(0.3)
    assert commits.actions == []


async def test_on_a_fake_clock_the_timer_waits_on_its_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    woken = asyncio.Event()

    async def fake_sleep(delay: float) -> None:
        await woken.wait()

    monkeypatch.setattr(wallclock, "call_later", wallclock.on_sleep(fake_sleep))
    rt, commits = _runtime(3600.0), _Commits()  # an hour of game time: only the fake sleep ends it
    monkeypatch.setattr(wallclock, "now", lambda: rt.turn_start + 3601.0)
    clocks.arm(rt, commits)
    assert isinstance(rt.timer, asyncio.Task)
    await asyncio.sleep(0.05)
    assert commits.actions == []
    woken.set()
    await asyncio.sleep(0.05)
    assert commits.actions == [TimeOut(rt.state.to_move)]
