"""Game clocks, per-turn and first-move deadlines as the match screen shows them (counting
down from the server's ``as_of`` between redraws)."""

from __future__ import annotations

import math
import time
from typing import Any

from wordarena.v1 import common_pb2


def clock_remaining(clock: common_pb2.Clock, now: float | None = None) -> float | None:
    """Seconds left on a clock now (counting down while it runs); None when untimed."""
    if not clock.HasField("remaining"):
        return None
    left = clock.remaining.ToTimedelta().total_seconds()
    if clock.running and clock.HasField("as_of"):
        now = time.time() if now is None else now
        left -= max(0.0, now - (clock.as_of.seconds + clock.as_of.nanos / 1e9))
    return max(0.0, left)


def format_clock(seconds: float) -> str:
    """``m:ss``."""
    s = int(seconds + 0.999)
    return f"{s // 60}:{s % 60:02d}"


def _seconds(ts: Any) -> float:
    return ts.seconds + ts.nanos / 1e9


def clock_text(clock: common_pb2.Clock, now: float | None = None) -> tuple[str, str] | None:
    """A game clock as shown beside its seat, with its style: ``⏱ 24:10``; past zero in
    Scrabble ``⏱ -1:05 over (-20 pts)`` (the penalty so far: ``overtime_points`` per started
    minute). None when untimed."""
    if not clock.HasField("remaining"):
        return None
    left = clock.remaining.ToTimedelta().total_seconds()
    left -= clock.overtime.ToTimedelta().total_seconds() if clock.HasField("overtime") else 0.0
    if clock.running and clock.HasField("as_of"):
        left -= max(0.0, (time.time() if now is None else now) - _seconds(clock.as_of))
    if left >= 0 or not clock.overtime_points:
        left = max(left, 0.0)
        style = "bold red" if left < 60 else ("bold yellow" if clock.running else "")
        return f"⏱ {format_clock(left)}", style
    if clock.HasField("max_overtime"):
        left = max(left, -clock.max_overtime.ToTimedelta().total_seconds())
    penalty = clock.overtime_points * math.ceil(-left / 60)
    return f"⏱ -{format_clock(-left)} over (-{penalty} pts)", "bold red"


def _time_left(left: float) -> str:
    """Time left to a deadline: ``2d 03h``, ``4h 05m`` or ``12:30``."""
    s = int(left)
    if s >= 86400:
        return f"{s // 86400}d {s % 86400 // 3600:02d}h"
    if s >= 3600:
        return f"{s // 3600}h {s % 3600 // 60:02d}m"
    return format_clock(left)


def deadline_text(deadline: Any, now: float | None = None) -> str:
    """A per-turn deadline as time left: ``turn due in 2d 03h``, ``in 4h 05m``, ``in 12:30``,
    or ``turn overdue``."""
    left = _seconds(deadline) - (time.time() if now is None else now)
    return f"turn due in {_time_left(left)}" if left > 0 else "turn overdue"


def no_show_text(deadline: Any, now: float | None = None) -> str:
    """A first-move deadline (``Seat.no_show_deadline``) as time left, with what missing it
    costs: ``first move due in 4:10 — a no-show forfeits`` (longer times as ``deadline_text``
    shows them), or ``first move overdue``."""
    left = _seconds(deadline) - (time.time() if now is None else now)
    if left <= 0:
        return "first move overdue"
    return f"first move due in {_time_left(left)} — a no-show forfeits"


def shown_deadlines(seat: common_pb2.Seat, now: float | None = None) -> list[str]:
    """The deadlines shown beside a seat: its first-move deadline when set, and its per-turn
    deadline unless the first-move deadline comes first (the seat is timed out before the
    per-turn one could pass)."""
    out: list[str] = []
    no_show = _seconds(seat.no_show_deadline) if seat.HasField("no_show_deadline") else None
    if seat.HasField("turn_deadline") and (no_show is None or _seconds(seat.turn_deadline) < no_show):
        out.append(deadline_text(seat.turn_deadline, now))
    if no_show is not None:
        out.append(no_show_text(seat.no_show_deadline, now))
    return out
