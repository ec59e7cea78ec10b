"""A tournament's games as a zip of GCG records (``TournamentService.ExportGames``).

The lobby keeps no game records: it asks the match server that owns each finished game's match
(where the lobby's match registry says it is now) for its record, with the lobby's service
credentials, which match servers accept for finished matches only
(``MatchService.GetMatchRecord``). What goes in is what the caller may read on the match servers:
their own games and, when the tournament's games allow spectators, every game.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from wordarena.services.lobby import store
from wordarena.services.lobby.match_control import ControlCallFailed, MatchControl
from wordarena.services.lobby.tournaments.archive import games_zip, record_path, standings_csv
from wordarena.services.lobby.tournaments.entities import Game, GameKey, GameStatus
from wordarena.services.lobby.tournaments.service import Tournaments

__all__ = ["GamesExport", "export_games"]

#: Records fetched at once.
FETCHES = 8


@dataclass(frozen=True)
class GamesExport:
    """The zip, how many GCG files it holds, the finished games withheld from the caller, and
    the readable ones without a record (their key and why)."""

    zip: bytes
    games: int
    withheld: int
    unavailable: list[tuple[GameKey, str]]


async def _record(t: Tournaments, control: MatchControl, g: Game, gate: asyncio.Semaphore) -> str:
    """A finished game's GCG from the match server that owns its match now (ControlCallFailed)."""
    if not g.match_id:
        raise ControlCallFailed("NOT_FOUND", "no match was played: a director's result")
    row, _ = await t.db.run(store.locate_match, g.match_id, "")
    address = row.address if row is not None and row.address else g.address
    async with gate:
        return await control.match_record(address, g.match_id)


async def export_games(
    t: Tournaments, control: MatchControl, tournament_id: str, player_id: str
) -> GamesExport:
    """The caller's export of the tournament's finished games (NOT_FOUND unknown tournament)."""
    st = await t.state(tournament_id)
    mine = {e.entrant_id for e in st.entrants if e.player_id == player_id}
    everyone = st.tournament.config.game.spectators_allowed
    finished = [g for g in st.games if g.status == GameStatus.DONE and g.second is not None]
    readable = [g for g in finished if everyone or g.first in mine or g.second in mine]
    gate = asyncio.Semaphore(FETCHES)
    got = await asyncio.gather(*(_record(t, control, g, gate) for g in readable), return_exceptions=True)
    numbers = {d.name: i + 1 for i, d in enumerate(st.tournament.config.divisions)}
    records: list[tuple[str, str]] = []
    unavailable: list[tuple[GameKey, str]] = []
    for g, gcg in zip(readable, got, strict=True):
        if isinstance(gcg, ControlCallFailed):
            unavailable.append((g.key, f"{gcg.code}: {gcg.details}"))
        elif isinstance(gcg, BaseException):
            raise gcg
        else:
            records.append((record_path(numbers[g.division], g.division, g.round, g.pairing, g.game), gcg))
    names = {e.entrant_id: e.display_name for e in st.entrants}
    archive = games_zip(standings_csv(st.standings, names), records)
    return GamesExport(archive, len(records), len(finished) - len(readable), unavailable)
