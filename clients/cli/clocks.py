"""Game clocks and per-turn deadlines as the match screen shows them (counting down from the
server's ``as_of`` between redraws)."""

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


def deadline_text(deadline: Any, now: float | None = None) -> str:
    """A per-turn deadline as time left: ``turn due in 2d 03h``, ``in 4h 05m``, ``in 12:30``,
    or ``turn overdue``."""
    left = _seconds(deadline) - (time.time() if now is None else now)
    if left <= 0:
        return "turn overdue"
    s = int(left)
    if s >= 86400:
        return f"turn due in {s // 86400}d {s % 86400 // 3600:02d}h"
    if s >= 3600:
        return f"turn due in {s // 3600}h {s % 3600 // 60:02d}m"
    return f"turn due in {format_clock(left)}"
