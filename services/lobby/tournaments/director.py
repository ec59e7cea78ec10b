"""The directors' actions on a tournament: co-directors, start / pause / resume / end, pairing a
round by hand, setting a result, awarding a forfeit, adding and withdrawing entrants.

Each is one change of the tournament (``Tournaments.change``) by one of its directors, logged in
the same transaction (``rows.log_action``: the action and its details, the reason given
included); then the runner takes the next step (pairing, creating matches).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from sqlmodel import Session

from wordarena.services.lobby import store
from wordarena.services.lobby.errors import LobbyError
from wordarena.services.lobby.settings import BOT_LEVEL_MAX, BOT_LEVEL_MIN
from wordarena.services.lobby.tables import bot_player_id
from wordarena.services.lobby.tournaments import pairing, plan, rows
from wordarena.services.lobby.tournaments.config import MAX_RESULT_SCORE, MIN_RESULT_SCORE
from wordarena.services.lobby.tournaments.entities import (
    Entrant,
    Game,
    GameKey,
    GameStatus,
    Tournament,
    TournamentStatus,
)
from wordarena.services.lobby.tournaments.ranking import Side
from wordarena.services.lobby.tournaments.runner import insert_round, start_checks
from wordarena.services.lobby.tournaments.service import Tournaments, division_for, ensure_room, entrant_of

__all__ = ["Directors"]

T = TypeVar("T")
LIVE = (TournamentStatus.RUNNING, TournamentStatus.PAUSED)


class Directors:
    """What the directors of a tournament do."""

    def __init__(self, tournaments: Tournaments) -> None:
        self.t = tournaments

    async def _direct(
        self,
        tournament_id: str,
        director: str,
        action: str,
        work: Callable[[Session, Tournament, float], T],
        detail: Callable[[T], str] = lambda _: "",
    ) -> T:
        """A director's action: ``Tournaments.change`` checked for the director, then logged."""

        def run(s: Session, t: Tournament, now: float) -> T:
            if director not in t.directors:
                raise LobbyError.denied("", "only a director of the tournament may do this")
            out = work(s, t, now)
            rows.log_action(s, t.tournament_id, now, director, action, detail(out))
            return out

        out = await self.t.change(tournament_id, run)
        await self.t.runner.advance(tournament_id)
        return out

    async def add_director(self, tournament_id: str, director: str, player_id: str) -> Tournament:
        """Adds a co-director."""
        if await self.t.db.run(store.get_player, player_id) is None:
            raise LobbyError.not_found("no such player", "player_id")

        def work(s: Session, t: Tournament, now: float) -> Tournament:
            t2 = t if player_id in t.directors else replace(t, directors=(*t.directors, player_id))
            rows.save_tournament(s, t2, now)
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
                start_checks(s, t)
            t2 = replace(t, status=to)
            rows.save_tournament(s, t2, now)
            return t2

        return await self._direct(tournament_id, director, action, work)

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
            games = [g for g in rows.tournament_games(s, tournament_id) if g.division == d]
            last = max((g.round for g in games), default=0)
            if last and not plan.round_over(t.config, [g for g in games if g.round == last]):
                raise LobbyError.precondition("", f"round {last} is not over")
            if last >= t.config.rounds:
                raise LobbyError.precondition("", "every round has been paired")
            active = {
                e.entrant_id
                for e in rows.tournament_entrants(s, tournament_id)
                if e.division == d and e.active
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
        g = rows.get_game(s, t.tournament_id, (d, *key[1:]))
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
        for field, score in (("first_score", first_score), ("second_score", second_score)):
            if not MIN_RESULT_SCORE <= score <= MAX_RESULT_SCORE:
                raise LobbyError.invalid(
                    f"{field} must be {MIN_RESULT_SCORE}..{MAX_RESULT_SCORE} (what a game can score)", field
                )

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
            rows.save_game(s, tournament_id, g2, now)
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
            g2 = g.forfeited(winner == g.first, t.config.bye_spread)
            rows.save_game(s, tournament_id, g2, now)
            return g2

        return await self._direct(
            tournament_id, director, "forfeit", work, lambda g: f"{_game_name(g)} to {winner}: {reason}"
        )

    async def add_entrant(
        self, tournament_id: str, director: str, player_id: str, bot_level: int, division: str
    ) -> Entrant:
        """Adds a bot, the calling director, or invites another player: nobody is entered into
        games without their consent, so that player stays ``invited`` (paired nowhere) until
        they accept with Register."""
        if bool(player_id) == bool(bot_level):
            raise LobbyError.invalid("give a player_id or a bot_level", "player_id")
        if bot_level and not BOT_LEVEL_MIN <= bot_level <= BOT_LEVEL_MAX:
            raise LobbyError.invalid(f"bot_level must be {BOT_LEVEL_MIN}..{BOT_LEVEL_MAX}",
                                     "bot_level")
        p = await self.t.db.run(store.get_player, player_id) if player_id else None
        if player_id and p is None:
            raise LobbyError.not_found("no such player", "player_id")

        def work(s: Session, t: Tournament, now: float) -> Entrant:
            if t.status == TournamentStatus.FINISHED:
                raise LobbyError.precondition("", "the tournament is finished")
            old = entrant_of(s, t, p.id) if p is not None else None
            if old is None or old.withdrawn:
                ensure_room(s, t)
            if p is not None:
                invite = p.id != director
                rating = store.records_of(s, [p.id], t.config.game.ruleset_id)[p.id].rating.rating
                e = (
                    old
                    if old is not None and old.active
                    else replace(old, withdrawn=False, invited=invite)
                    if old is not None
                    else Entrant(
                        f"e_{uuid.uuid4().hex[:16]}",
                        p.id,
                        p.display_name,
                        division_for(t, rating, division),
                        rating,
                        guest=p.guest,
                        checked_in=True,
                        registered_at=now,
                        invited=invite,
                    )
                )
            else:
                n = len(rows.tournament_entrants(s, tournament_id)) + 1
                e = Entrant(
                    f"e_{uuid.uuid4().hex[:16]}",
                    bot_player_id(bot_level),
                    f"Bot {bot_level} #{n}",
                    division_for(t, 1500.0, division),
                    1500.0,
                    bot_level=bot_level,
                    checked_in=True,
                    registered_at=now,
                )
            rows.add_entrant(s, tournament_id, e)
            return e

        return await self._direct(
            tournament_id,
            director,
            "add_entrant",
            work,
            lambda e: f"{e.entrant_id} {e.display_name}" + (" (invited)" if e.invited else ""),
        )

    async def remove_entrant(
        self, tournament_id: str, director: str, entrant_id: str, reason: str
    ) -> Entrant:
        """Withdraws an entrant (not paired from the next round on)."""

        def work(s: Session, t: Tournament, now: float) -> Entrant:
            e = next(
                (x for x in rows.tournament_entrants(s, tournament_id) if x.entrant_id == entrant_id), None
            )
            if e is None:
                raise LobbyError.not_found("no such entrant", "entrant_id")
            e = replace(e, withdrawn=True)
            rows.add_entrant(s, tournament_id, e)
            return e

        return await self._direct(
            tournament_id, director, "remove_entrant", work, lambda e: f"{e.entrant_id}: {reason}"
        )


def _game_name(g: Game) -> str:
    return f"{g.division} round {g.round} pairing {g.pairing} game {g.game}"
