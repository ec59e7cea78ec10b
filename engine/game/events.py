"""Events: what happened, as JSON-ready data. A match's log is the list of its events.

Every ``apply`` emits one *turn event* first whose ``data["action"]`` is the action applied,
so that replaying the log re-applies exactly those actions from the seed. Data only the acting
seat may see (drawn tiles, exchanged tiles) sits under ``data["private"]``; the match server
strips it for everyone else. The bag's order never appears in an event.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    type: str
    seat: int | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "data": self.data}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Event:
        return cls(str(d["type"]), d.get("seat"), dict(d.get("data") or {}))

    def public(self) -> Event:
        """The event as seen by anyone but its seat (private data removed)."""
        if "private" not in self.data:
            return self
        return Event(self.type, self.seat, {k: v for k, v in self.data.items() if k != "private"})
