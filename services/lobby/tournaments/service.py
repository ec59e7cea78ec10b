"""Tournaments: create, read, watch, register, unregister, check in (the directors' actions are
in ``director``).

Each change is one transaction on the tournament's locked row (``rows.lock_tournament``) that
also counts a new ``version``; director actions are logged in the same transaction. After a
change the runner (``TournamentRunner``) takes the next step and wakes the watchers.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import TypeVar

from sqlmodel import Session

from wordarena.services.common.db import Database
from wordarena.services.lobby import store
from wordarena.services.lobby.accounts import Accounts
from wordarena.services.lobby.errors import LobbyError
from wordarena.services.lobby.open_limits import OpenLimits
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.lobby.tournaments import plan, rows
from wordarena.services.lobby.tournaments.config import TournamentConfig
from wordarena.services.lobby.tournaments.entities import (
    Entrant,
    Game,
    LogEntry,
    Tournament,
    TournamentStatus,
)
from wordarena.services.lobby.tournaments.ranking import Standing
from wordarena.services.lobby.tournaments.runner import TournamentRunner

__all__ = ["TournamentState", "Tournaments", "division_for", "entrant_of", "read_state"]

T = TypeVar("T")


@dataclass(frozen=True)
class TournamentState:
    """A tournament with its entrants, games, director log and standings by division."""

    tournament: Tournament
    entrants: list[Entrant]
    games: list[Game]
    log: list[LogEntry]
    standings: list[tuple[str, list[Standing]]]
    #: each human entrant's rating in the tournament's ruleset now (by entrant id)
    ratings: dict[str, float]


def read_state(s: Session, tournament_id: str) -> TournamentState | None:
    """A tournament's whole state, or None."""
    t = rows.get_tournament(s, tournament_id)
    if t is None:
        return None
    entrants = rows.tournament_entrants(s, tournament_id)
    games = rows.tournament_games(s, tournament_id)
    standings = [
        (d.name, plan.division_standings(t.config, entrants, games, d.name)) for d in t.config.divisions
    ]
    humans = [e for e in entrants if not e.bot_level]
    records = store.records_of(s, [e.player_id for e in humans], t.config.game.ruleset_id)
    ratings = {e.entrant_id: records[e.player_id].rating.rating for e in humans}
    return TournamentState(t, entrants, games, rows.tournament_log(s, tournament_id), standings, ratings)


def entrant_of(s: Session, t: Tournament, player_id: str) -> Entrant | None:
    return next((e for e in rows.tournament_entrants(s, t.tournament_id) if e.player_id == player_id), None)


def ensure_room(s: Session, t: Tournament) -> None:
    """Refuses one more entrant (a player registering, a director adding) past
    ``max_entrants`` (withdrawn entrants hold no place)."""
    active = [x for x in rows.tournament_entrants(s, t.tournament_id) if not x.withdrawn]
    if len(active) >= t.config.max_entrants:
        raise LobbyError.precondition("", "the tournament is full")


def division_for(t: Tournament, rating: float, name: str) -> str:
    if name:
        return t.config.division(name).name
    for d in t.config.divisions:
        if d.admits(rating):
            return d.name
    raise LobbyError.precondition("", f"no division's rating band holds the rating {rating:.0f}")


class Tournaments:
    """What players and directors do with tournaments."""

    def __init__(
        self, db: Database, options: LobbyOptions, accounts: Accounts, runner: TournamentRunner
    ) -> None:
        self.db = db
        self.opt = options
        self.accounts = accounts
        self.runner = runner
        self.limits = OpenLimits(
            "tournaments", options.max_open_tournaments, options.max_open_tournaments_per_guest_address
        )

    async def change(self, tournament_id: str, work: Callable[[Session, Tournament, float], T]) -> T:
        """Runs ``work(session, tournament, now)`` on the locked tournament (NOT_FOUND when
        there is none), counts the change and wakes the watchers."""

        def run(s: Session) -> T:
            t = rows.lock_tournament(s, tournament_id)
            if t is None:
                raise LobbyError.not_found("no such tournament", "tournament_id")
            now = time.time()
            out = work(s, t, now)
            rows.save_tournament(s, rows.get_tournament(s, tournament_id) or t, now)
            return out

        out = await self.db.run(run)
        self.runner.changed(tournament_id)
        return out

    # -- reading ----------------------------------------------------------------------------

    async def create(self, player_id: str, cfg: TournamentConfig, address: str = "") -> Tournament:
        """A new tournament in REGISTRATION, directed by its creator (within the caps of
        ``OpenLimits``; ``address``: the caller's, for the guests' cap)."""
        p = await self.accounts.player(player_id)
        unfinished = set(await self.db.run(rows.unfinished_tournaments))
        created = await self.db.run(rows.tournaments_created_by, player_id, unfinished)
        self.limits.check(len(created), p.guest, address, unfinished.__contains__)
        now = time.time()
        t = Tournament(f"tn_{uuid.uuid4().hex[:20]}", cfg, (player_id,), TournamentStatus.REGISTRATION, now)
        await self.db.run(rows.add_tournament, t, now)
        self.limits.opened(p.guest, address, t.tournament_id)
        return t

    async def state(self, tournament_id: str) -> TournamentState:
        """The tournament's whole state (NOT_FOUND)."""
        st = await self.db.run(read_state, tournament_id)
        if st is None:
            raise LobbyError.not_found("no such tournament", "tournament_id")
        return st

    async def list(
        self, status: TournamentStatus | None, offset: int, limit: int, invited: str = ""
    ) -> list[Tournament]:
        """A page of tournaments, real events first (``rows.list_tournaments``); with
        ``invited`` (a player id), only those where that player's invitation waits."""
        return await self.db.run(rows.list_tournaments, status, offset, limit, invited)

    async def watch(self, tournament_id: str) -> AsyncIterator[TournamentState]:
        """The state now, then again after each change; ends after a FINISHED state."""
        ev = self.runner.subscribe(tournament_id)
        try:
            last = -1
            while True:
                ev.clear()
                # one row a poll; the whole state (entrants, games, log) only once it changed
                t = await self.db.run(rows.get_tournament, tournament_id)
                if t is None or t.version != last:
                    st = await self.state(tournament_id)
                    last = st.tournament.version
                    yield st
                    if st.tournament.status == TournamentStatus.FINISHED:
                        return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(ev.wait(), self.opt.tournament_poll_s)
        finally:
            self.runner.unsubscribe(tournament_id, ev)

    # -- players ----------------------------------------------------------------------------

    async def register(self, tournament_id: str, player_id: str) -> Entrant:
        """Registers the player (again: the same entrant), or accepts a director's invitation
        (also while the tournament runs: paired from the next round)."""
        p = await self.accounts.player(player_id)

        def work(s: Session, t: Tournament, now: float) -> Entrant:
            e = entrant_of(s, t, player_id)
            if e is not None and e.invited and not e.withdrawn:
                if t.status == TournamentStatus.FINISHED:
                    raise LobbyError.precondition("", "the tournament is finished")
                e = replace(e, invited=False)
                rows.add_entrant(s, tournament_id, e)
                return e
            if t.status != TournamentStatus.REGISTRATION:
                raise LobbyError.precondition(
                    "", f"the tournament is {t.status.value}, not open for registration"
                )
            if e is not None and not e.withdrawn:
                return e
            ensure_room(s, t)
            rating = store.records_of(s, [player_id], t.config.game.ruleset_id)[player_id].rating.rating
            e = (
                replace(e, withdrawn=False, invited=False, registered_at=now)
                if e is not None
                else Entrant(
                    f"e_{uuid.uuid4().hex[:16]}",
                    player_id,
                    p.display_name,
                    division_for(t, rating, ""),
                    rating,
                    guest=p.guest,
                    registered_at=now,
                )
            )
            rows.add_entrant(s, tournament_id, e)
            return e

        return await self.change(tournament_id, work)

    async def _own_entry(
        self, tournament_id: str, player_id: str, change: Callable[[Tournament, Entrant], Entrant]
    ) -> Entrant:
        """``change`` of the caller's entry: a registration, or a pending invitation (which
        ``change`` must accept to act on it)."""

        def work(s: Session, t: Tournament, now: float) -> Entrant:
            e = entrant_of(s, t, player_id)
            if e is None or e.withdrawn:
                raise LobbyError.not_found("you are not registered", "tournament_id")
            e = change(t, e)
            rows.add_entrant(s, tournament_id, e)
            return e

        return await self.change(tournament_id, work)

    async def unregister(self, tournament_id: str, player_id: str) -> None:
        """Withdraws the player's registration (in REGISTRATION), or declines an invitation (in
        any state but FINISHED)."""

        def change(t: Tournament, e: Entrant) -> Entrant:
            if e.invited and t.status != TournamentStatus.FINISHED:
                return replace(e, withdrawn=True)
            if t.status != TournamentStatus.REGISTRATION:
                raise LobbyError.precondition("", f"the tournament is {t.status.value}: ask a director")
            return replace(e, withdrawn=True, checked_in=False)

        await self._own_entry(tournament_id, player_id, change)

    async def check_in(self, tournament_id: str, player_id: str) -> Entrant:
        """Checks the player in, within the check-in window."""

        def change(t: Tournament, e: Entrant) -> Entrant:
            if e.invited:
                raise LobbyError.not_found(
                    "you are invited, not registered: accept the invitation with Register", "tournament_id"
                )
            c = t.config
            if not c.check_in_window_s or c.start_time is None:
                raise LobbyError.precondition("", "this tournament needs no check-in")
            now = time.time()
            if t.status != TournamentStatus.REGISTRATION or not (c.start_time - c.check_in_window_s <= now):
                raise LobbyError.precondition("", "the check-in window is not open")
            return replace(e, checked_in=True)

        return await self._own_entry(tournament_id, player_id, change)
