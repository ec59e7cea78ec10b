"""Interchange formats: GCG game records (parse, write, replay and check) and CGP positions.

* ``gcg``      GCG records: ``parse_gcg(bytes | str) -> GameRecord``, ``write_gcg(record) -> str``
* ``export``   a played game's record: ``record_from_events(events, players) -> GameRecord``
* ``pragmas``  the ``#ruleset`` / ``#language`` / ``#seed`` pragmas wordarena writes, and their one reader
* ``check``    a record replayed on the engine, every disagreement reported: ``check_record``,
  ``replay_record``
* ``cgp``      CGP positions: ``position_from_cgp(text) -> GameState``, ``position_to_cgp(state)``,
  ``parse_cgp`` / ``format_cgp`` for the exact text
* ``text``     the board as plain text: ``board_text(layout, cells)``
"""

from wordarena.engine.interchange.cgp import (
    Cgp,
    format_cgp,
    parse_cgp,
    position_from_cgp,
    position_to_cgp,
    view_to_cgp,
)
from wordarena.engine.interchange.check import Finding, Step, check_record, replay_record
from wordarena.engine.interchange.export import record_from_events
from wordarena.engine.interchange.gcg import GameRecord, Move, MoveKind, Player, parse_gcg, write_gcg
from wordarena.engine.interchange.pragmas import record_ruleset, record_ruleset_id, record_seed
from wordarena.engine.interchange.text import board_text

__all__ = [
    "Cgp", "Finding", "GameRecord", "Move", "MoveKind", "Player", "Step", "board_text",
    "check_record", "format_cgp", "parse_cgp", "parse_gcg", "position_from_cgp",
    "position_to_cgp", "record_from_events", "record_ruleset", "record_ruleset_id", "record_seed",
    "replay_record", "view_to_cgp", "write_gcg",
]
