"""Standings as CSV (pure)."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence

from wordarena.services.lobby.tournaments.ranking import Standing

__all__ = ["CSV_HEADER", "standings_csv"]

CSV_HEADER = (
    "division", "rank", "entrant_id", "name", "wins", "losses", "ties", "spread", "byes", "points",
    "opponents_points",
)  # fmt: skip


def standings_csv(divisions: Sequence[tuple[str, Sequence[Standing]]], names: Mapping[str, str]) -> str:
    """One header line, then one line per entrant, division by division, best first."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_HEADER)
    for division, rows in divisions:
        for s in rows:
            w.writerow([division, s.rank, s.entrant_id, names.get(s.entrant_id, ""), s.wins, s.losses, s.ties,
                        s.spread, s.byes, f"{s.points:g}", f"{s.opponents_points:g}"])  # fmt: skip
    return out.getvalue()
