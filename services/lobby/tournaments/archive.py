"""Standings as CSV and the games' records as a zip archive (pure)."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterator, Mapping, Sequence

from wordarena.services.lobby.tournaments.ranking import Standing

__all__ = ["CSV_HEADER", "EXPORT_CHUNK", "chunks", "games_zip", "record_path", "standings_csv"]

#: The largest piece of an archive in one ExportGamesStream message (well under any message limit).
EXPORT_CHUNK = 256 * 1024

_NOT_SAFE = re.compile(r"[^A-Za-z0-9_-]")

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


def record_path(division_no: int, division: str, round_no: int, pairing: int, game: int) -> str:
    """The zip path of a game's GCG: ``D-<division>/round-RR-pairing-PP-game-G.gcg`` (D the
    division's 1-based position; its name made of ASCII letters, digits, ``-`` and ``_``)."""
    folder = f"{division_no}-{_NOT_SAFE.sub('_', division)}"
    return f"{folder}/round-{round_no:02d}-pairing-{pairing:02d}-game-{game}.gcg"


def games_zip(standings: str, records: Sequence[tuple[str, str]]) -> bytes:
    """A deflated zip of ``standings.csv`` and each (path, GCG text) record, in order."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("standings.csv", standings)
        for path, gcg in records:
            z.writestr(path, gcg)
    return out.getvalue()


def chunks(data: bytes, size: int) -> Iterator[tuple[int, bytes]]:
    """``(offset, piece)`` of ``data`` in pieces of at most ``size`` bytes, in order; one empty
    piece for no data (so that there is always a first piece)."""
    if not data:
        yield 0, b""
        return
    for offset in range(0, len(data), size):
        yield offset, data[offset : offset + size]
