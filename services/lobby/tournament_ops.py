"""Tournaments: create, read, register, check in, and the directors' actions.

Each change is one transaction on the tournament's locked row (``store.lock_tournament``) that
also counts a new ``version``; director actions are logged in the same transaction. After a
change the runner (``TournamentRunner``) takes the next step and wakes the watchers.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from sqlmodel import Session

from wordarena.services.common.db import Database
from wordarena.services.lobby import store
from wordarena.services.lobby.accounts import Accounts
from wordarena.services.lobby.errors import LobbyError
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.lobby.settings import BOT_LEVEL_MAX, BOT_LEVEL_MIN
from wordarena.services.lobby.tables import bot_player_id
from wordarena.services.lobby.tournament_runner import TournamentRunner, insert_round
from wordarena.services.lobby.tournaments import pairing, plan
from wordarena.services.lobby.tournaments.config import TournamentConfig
from wordarena.services.lobby.tournaments.entities import (
    Entrant,
    Game,
    GameKey,
    GameStatus,
    LogEntry,
    Tournament,
    TournamentStatus,
)
from wordarena.services.lobby.tournaments.ranking import Side, Standing

__all__ = ["TournamentState", "Tournaments"]

T = TypeVar("T")
LIVE = (TournamentStatus.RUNNING, TournamentStatus.PAUSED)


@dataclass(frozen=True)
class TournamentState:
    """A tournament with its entrants, games, director log and standings by division."""

    tournament: Tournament
    entrants: list[Entrant]
    games: list[Game]
    log: list[LogEntry]
    standings: list[tuple[str, list[Standing]]]


def read_state(s: Session, tournament_id: str) -> TournamentState | None:
    """A tournament's whole state, or None."""
    t = store.get_tournament(s, tournament_id)
    if t is None:
        return None
    entrants = store.tournament_entrants(s, tournament_id)
    games = store.tournament_games(s, tournament_id)
    standings = [
        (d.name, plan.division_standings(t.config, entrants, games, d.name)) for d in t.config.divisions
    ]
    return TournamentState(t, entrants, games, store.tournament_log(s, tournament_id), standings)


def _entrant_of(s: Session, t: Tournament, player_id: str) -> Entrant | None:
    return next((e for e in store.tournament_entrants(s, t.tournament_id) if e.player_id == player_id), None)


def _division_for(t: Tournament, rating: float, name: str) -> str:
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

    async def _change(self, tournament_id: str, work: Callable[[Session, Tournament, float], T]) -> T:
        """Runs ``work(session, tournament, now)`` on the locked tournament (NOT_FOUND when
        there is none), counts the change and wakes the watchers."""

        def run(s: Session) -> T:
            t = store.lock_tournament(s, tournament_id)
            if t is None:
                raise LobbyError.not_found("no such tournament", "tournament_id")
            now = time.time()
            out = work(s, t, now)
            store.save_tournament(s, store.get_tournament(s, tournament_id) or t, now)
            return out

        out = await self.db.run(run)
        self.runner.changed(tournament_id)
        return out

    async def _direct(
        self,
        tournament_id: str,
        director: str,
        action: str,
        work: Callable[[Session, Tournament, float], T],
        detail: Callable[[T], str] = lambda _: "",
    ) -> T:
        """A director's action: ``_change`` checked for the director, then logged."""

        def run(s: Session, t: Tournament, now: float) -> T:
            if director not in t.directors:
                raise LobbyError.denied("", "only a director of the tournament may do this")
            out = work(s, t, now)
            store.log_action(s, t.tournament_id, now, director, action, detail(out))
            return out

        out = await self._change(tournament_id, run)
        await self.runner.advance(tournament_id)
        return out

    # -- reading ----------------------------------------------------------------------------

    async def create(self, player_id: str, cfg: TournamentConfig) -> Tournament:
        """A new tournament in REGISTRATION, directed by its creator."""
        await self.accounts.player(player_id)
        now = time.time()
        t = Tournament(f"tn_{uuid.uuid4().hex[:20]}", cfg, (player_id,), TournamentStatus.REGISTRATION, now)
        await self.db.run(store.add_tournament, t, now)
        return t

    async def state(self, tournament_id: str) -> TournamentState:
        """The tournament's whole state (NOT_FOUND)."""
        st = await self.db.run(read_state, tournament_id)
        if st is None:
            raise LobbyError.not_found("no such tournament", "tournament_id")
        return st

    async def list(self, status: TournamentStatus | None) -> list[Tournament]:
        """Tournaments newest first (at most 100)."""
        return await self.db.run(store.list_tournaments, status, 100)

    async def watch(self, tournament_id: str) -> AsyncIterator[TournamentState]:
        """The state now, then again after each change; ends after a FINISHED state."""
        ev = self.runner.subscribe(tournament_id)
        try:
            last = -1
            while True:
                ev.clear()
                st = await self.state(tournament_id)
                if st.tournament.version != last:
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
        """Registers the player (again: the same entrant)."""
        p = await self.accounts.player(player_id)

        def work(s: Session, t: Tournament, now: float) -> Entrant:
            if t.status != TournamentStatus.REGISTRATION:
                raise LobbyError.precondition(
                    "", f"the tournament is {t.status.value}, not open for registration"
                )
            e = _entrant_of(s, t, player_id)
            if e is not None and not e.withdrawn:
                return e
            active = [x for x in store.tournament_entrants(s, tournament_id) if not x.withdrawn]
            if len(active) >= t.config.max_entrants:
                raise LobbyError.precondition("", "the tournament is full")
            rating = store.records_of(s, [player_id], t.config.game.ruleset_id)[player_id].rating.rating
            e = (
                replace(e, withdrawn=False, registered_at=now)
                if e is not None
                else Entrant(
                    f"e_{uuid.uuid4().hex[:16]}",
                    player_id,
                    p.display_name,
                    _division_for(t, rating, ""),
                    rating,
                    guest=p.guest,
                    registered_at=now,
                )
            )
            store.add_entrant(s, tournament_id, e)
            return e

        return await self._change(tournament_id, work)

    async def _own_entry(
        self, tournament_id: str, player_id: str, change: Callable[[Tournament, Entrant], Entrant]
    ) -> Entrant:
        def work(s: Session, t: Tournament, now: float) -> Entrant:
            e = _entrant_of(s, t, player_id)
            if e is None or e.withdrawn:
                raise LobbyError.not_found("you are not registered", "tournament_id")
            e = change(t, e)
            store.add_entrant(s, tournament_id, e)
            return e

        return await self._change(tournament_id, work)

    async def unregister(self, tournament_id: str, player_id: str) -> None:
        """Withdraws the player's registration (in REGISTRATION)."""

        def change(t: Tournament, e: Entrant) -> Entrant:
            if t.status != TournamentStatus.REGISTRATION:
                raise LobbyError.precondition("", f"the tournament is {t.status.value}: ask a director")
            return replace(e, withdrawn=True, checked_in=False)

        await self._own_entry(tournament_id, player_id, change)

    async def check_in(self, tournament_id: str, player_id: str) -> Entrant:
        """Checks the player in, within the check-in window."""

        def change(t: Tournament, e: Entrant) -> Entrant:
            c = t.config
            if not c.check_in_window_s or c.start_time is None:
                raise LobbyError.precondition("", "this tournament needs no check-in")
            now = time.time()
            if t.status != TournamentStatus.REGISTRATION or not (c.start_time - c.check_in_window_s <= now):
                raise LobbyError.precondition("", "the check-in window is not open")
            return replace(e, checked_in=True)

        return await self._own_entry(tournament_id, player_id, change)

    # -- directors --------------------------------------------------------------------------

    async def add_director(self, tournament_id: str, director: str, player_id: str) -> Tournament:
        """Adds a co-director."""
        if await self.db.run(store.get_player, player_id) is None:
            raise LobbyError.not_found("no such player", "player_id")

        def work(s: Session, t: Tournament, now: float) -> Tournament:
            t2 = t if player_id in t.directors else replace(t, directors=(*t.directors, player_id))
            store.save_tournament(s, t2, now)
            return t2

        return await self._direct(tournament_id, director, "add_director", work, lambda _: player_id)

    async def _set_status(
        self,
        tournament_id: str,
        director: str,
        action: str,
        allowed: Sequence[TournamentStatus],
        to: TournamentStatus,
    ) -> Tournament:
        def work(s: Session, t: Tournament, now: float) -> Tournament:
            if t.status not in allowed:
                raise LobbyError.precondition("", f"the tournament is {t.status.value}")
            if action == "start":
                self._start_checks(s, t)
            t2 = replace(t, status=to)
            store.save_tournament(s, t2, now)
            return t2

        return await self._direct(tournament_id, director, action, work)

    def _start_checks(self, s: Session, t: Tournament) -> None:
        """At start: withdraws entrants who did not check in (when check-in is needed); each
        division needs 2 entrants."""
        entrants = store.tournament_entrants(s, t.tournament_id)
        if t.config.check_in_window_s:
            for e in entrants:
                if not e.checked_in and not e.withdrawn and not e.bot_level:
                    store.add_entrant(s, t.tournament_id, replace(e, withdrawn=True))
            entrants = store.tournament_entrants(s, t.tournament_id)
        for d in t.config.divisions:
            if sum(1 for e in entrants if e.division == d.name and not e.withdrawn) < 2:
                raise LobbyError.precondition("", f"division {d.name!r} has fewer than 2 entrants")

    async def start(self, tournament_id: str, director: str) -> Tournament:
        """REGISTRATION → RUNNING; round 1 is paired."""
        return await self._set_status(
            tournament_id, director, "start", (TournamentStatus.REGISTRATION,), TournamentStatus.RUNNING
        )

    async def pause(self, tournament_id: str, director: str) -> Tournament:
        """RUNNING → PAUSED."""
        return await self._set_status(
            tournament_id, director, "pause", (TournamentStatus.RUNNING,), TournamentStatus.PAUSED
        )

    async def resume(self, tournament_id: str, director: str) -> Tournament:
        """PAUSED → RUNNING."""
        return await self._set_status(
            tournament_id, director, "resume", (TournamentStatus.PAUSED,), TournamentStatus.RUNNING
        )

    async def end(self, tournament_id: str, director: str) -> Tournament:
        """→ FINISHED."""
        allowed = (TournamentStatus.REGISTRATION, *LIVE)
        return await self._set_status(tournament_id, director, "end", allowed, TournamentStatus.FINISHED)

    async def pair_round(
        self, tournament_id: str, director: str, division: str, pairs: Sequence[tuple[str, str | None]]
    ) -> list[Game]:
        """Pairs a division's next round by hand."""

        def work(s: Session, t: Tournament, now: float) -> list[Game]:
            d = t.config.division(division).name
            if t.status not in LIVE:
                raise LobbyError.precondition("", f"the tournament is {t.status.value}")
            games = [g for g in store.tournament_games(s, tournament_id) if g.division == d]
            last = max((g.round for g in games), default=0)
            if last and not plan.round_over(t.config, [g for g in games if g.round == last]):
                raise LobbyError.precondition("", f"round {last} is not over")
            if last >= t.config.rounds:
                raise LobbyError.precondition("", "every round has been paired")
            active = {
                e.entrant_id
                for e in store.tournament_entrants(s, tournament_id)
                if e.division == d and not e.withdrawn
            }
            try:
                pairings = pairing.manual(pairs, active)
            except pairing.PairingError as exc:
                raise LobbyError.invalid(str(exc), exc.field) from exc
            return insert_round(s, t, d, last + 1, pairings, now)

        return await self._direct(
            tournament_id,
            director,
            "pair_round",
            work,
            lambda gs: f"{division or 'first division'} round {gs[0].round if gs else '?'}",
        )

    def _game(self, s: Session, t: Tournament, key: GameKey) -> Game:
        d = t.config.division(key[0]).name
        g = store.get_game(s, t.tournament_id, (d, *key[1:]))
        if g is None:
            raise LobbyError.not_found("no such game", "game")
        return g

    async def set_result(
        self,
        tournament_id: str,
        director: str,
        key: GameKey,
        first_score: int,
        second_score: int,
        side: Side | None,
        reason: str,
    ) -> Game:
        """Sets or changes a game's result (logged with the reason)."""
        if not reason.strip():
            raise LobbyError.invalid("a reason is required", "reason")

        def work(s: Session, t: Tournament, now: float) -> Game:
            g = self._game(s, t, key)
            if g.bye:
                raise LobbyError.invalid("a bye has no result to set", "game")
            res = side or (
                Side.WIN
                if first_score > second_score
                else Side.LOSS
                if first_score < second_score
                else Side.TIE
            )
            g2 = replace(
                g,
                status=GameStatus.DONE,
                first_score=first_score,
                second_score=second_score,
                first_result=res,
                forfeit=False,
            )
            store.save_game(s, tournament_id, g2, now)
            return g2

        return await self._direct(
            tournament_id,
            director,
            "set_result",
            work,
            lambda g: f"{_game_name(g)} {g.first_score}-{g.second_score}: {reason}",
        )

    async def forfeit(
        self, tournament_id: str, director: str, key: GameKey, winner: str, reason: str
    ) -> Game:
        """Ends a game as a forfeit win for ``winner`` by the bye spread (logged)."""

        def work(s: Session, t: Tournament, now: float) -> Game:
            g = self._game(s, t, key)
            if g.bye or winner not in (g.first, g.second):
                raise LobbyError.invalid("the winner must play this game", "winner_entrant_id")
            won = winner == g.first
            spread = t.config.bye_spread
            g2 = replace(
                g,
                status=GameStatus.DONE,
                first_score=spread if won else 0,
                second_score=0 if won else spread,
                first_result=Side.WIN if won else Side.LOSS,
                forfeit=True,
            )
            store.save_game(s, tournament_id, g2, now)
            return g2

        return await self._direct(
            tournament_id, director, "forfeit", work, lambda g: f"{_game_name(g)} to {winner}: {reason}"
        )

    async def add_entrant(
        self, tournament_id: str, director: str, player_id: str, bot_level: int, division: str
    ) -> Entrant:
        """Adds a player or a bot."""
        if bool(player_id) == bool(bot_level):
            raise LobbyError.invalid("give a player_id or a bot_level", "player_id")
        if bot_level and not BOT_LEVEL_MIN <= bot_level <= BOT_LEVEL_MAX:
            raise LobbyError.invalid("bot_level must be 1..5", "bot_level")
        p = await self.db.run(store.get_player, player_id) if player_id else None
        if player_id and p is None:
            raise LobbyError.not_found("no such player", "player_id")

        def work(s: Session, t: Tournament, now: float) -> Entrant:
            if t.status == TournamentStatus.FINISHED:
                raise LobbyError.precondition("", "the tournament is finished")
            if p is not None:
                rating = store.records_of(s, [p.id], t.config.game.ruleset_id)[p.id].rating.rating
                old = _entrant_of(s, t, p.id)
                e = (
                    replace(old, withdrawn=False)
                    if old is not None
                    else Entrant(
                        f"e_{uuid.uuid4().hex[:16]}",
                        p.id,
                        p.display_name,
                        _division_for(t, rating, division),
                        rating,
                        guest=p.guest,
                        checked_in=True,
                        registered_at=now,
                    )
                )
            else:
                n = len(store.tournament_entrants(s, tournament_id)) + 1
                e = Entrant(
                    f"e_{uuid.uuid4().hex[:16]}",
                    bot_player_id(bot_level),
                    f"Bot {bot_level} #{n}",
                    _division_for(t, 1500.0, division),
                    1500.0,
                    bot_level=bot_level,
                    checked_in=True,
                    registered_at=now,
                )
            store.add_entrant(s, tournament_id, e)
            return e

        return await self._direct(
            tournament_id, director, "add_entrant", work, lambda e: f"{e.entrant_id} {e.display_name}"
        )

    async def remove_entrant(
        self, tournament_id: str, director: str, entrant_id: str, reason: str
    ) -> Entrant:
        """Withdraws an entrant (not paired from the next round on)."""

        def work(s: Session, t: Tournament, now: float) -> Entrant:
            e = next(
                (x for x in store.tournament_entrants(s, tournament_id) if x.entrant_id == entrant_id), None
            )
            if e is None:
                raise LobbyError.not_found("no such entrant", "entrant_id")
            e = replace(e, withdrawn=True)
            store.add_entrant(s, tournament_id, e)
            return e

        return await self._direct(
            tournament_id, director, "remove_entrant", work, lambda e: f"{e.entrant_id}: {reason}"
        )


def _game_name(g: Game) -> str:
    return f"{g.division} round {g.round} pairing {g.pairing} game {g.game}"
