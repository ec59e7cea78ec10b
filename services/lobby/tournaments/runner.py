"""Running tournaments: pairing each division's next round when its last game has ended,
creating the matches of paired games on match servers (the lobby's allocation), recording their
results (in the transaction that records the match result: exactly once), and waking watchers.

Restart safety: every step is a transaction on the tournament's locked row. A round is paired
once (its ``lobby_tournament_rounds`` row); a game gets its match in the transaction that records
the match (a second allocation of the same game is withdrawn and aborted); a result counts when
the match's result is first recorded. What a lobby that died left undone (a round to pair, a game
without its match) is picked up by the next ``tick`` of any lobby.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import replace

from sqlmodel import Session

from wordarena.engine.game.outcome import Outcome
from wordarena.services.common import logs
from wordarena.services.common.db import Database
from wordarena.services.common.tasks import cancel_and_wait
from wordarena.services.lobby.allocation import Allocator
from wordarena.services.lobby.errors import LobbyError
from wordarena.services.lobby.standings import MatchReport
from wordarena.services.lobby.tables import Occupant
from wordarena.services.lobby.tournaments import plan, rows
from wordarena.services.lobby.tournaments.entities import (
    Entrant,
    Game,
    GameStatus,
    Tournament,
    TournamentStatus,
)
from wordarena.services.lobby.tournaments.pairing import Pairing
from wordarena.services.lobby.tournaments.ranking import Side

__all__ = ["TournamentRunner", "insert_round", "now", "start_checks"]

log = logs.get_logger("wordarena.lobby")


def now() -> float:
    """Tournament time (start times, rounds at set times): the wall clock, behind one name so
    that a test can move it on."""
    return time.time()


SIDE_OF = {Outcome.WIN: Side.WIN, Outcome.LOSS: Side.LOSS, Outcome.TIE: Side.TIE, Outcome.NO_RESULT: Side.TIE}


def insert_round(
    s: Session, t: Tournament, division: str, round_no: int, pairings: Sequence[Pairing], now: float
) -> list[Game]:
    """Records a division's round ``round_no`` and its first games (byes done at once); an empty
    list when that round was paired before."""
    if not rows.add_round(s, t.tournament_id, division, round_no, t.config.method(round_no).value, now):
        return []
    games = plan.games_for(division, round_no, pairings)
    for g in games:
        rows.save_game(s, t.tournament_id, g, now)
    return games


def start_checks(s: Session, t: Tournament) -> None:
    """At the start (a director's or at ``start_time``): withdraws the entrants who did not check
    in (when check-in is needed; bots are always checked in); each division needs 2 entrants
    (FAILED_PRECONDITION otherwise)."""
    entrants = rows.tournament_entrants(s, t.tournament_id)
    if t.config.check_in_window_s:
        for e in entrants:
            if not e.checked_in and e.active and not e.bot_level:
                rows.add_entrant(s, t.tournament_id, replace(e, withdrawn=True))
        entrants = rows.tournament_entrants(s, t.tournament_id)
    for d in t.config.divisions:
        if sum(1 for e in entrants if e.division == d.name and e.active) < 2:
            raise LobbyError.precondition("", f"division {d.name!r} has fewer than 2 entrants")


def _start_if_due(s: Session, tournament_id: str, now: float) -> bool:
    """Starts a tournament in REGISTRATION whose ``start_time`` has come, as a director's start
    does (logged as ``start`` by no director); False when it is not due (or not any more)."""
    t = rows.lock_tournament(s, tournament_id)
    if t is None or t.status != TournamentStatus.REGISTRATION:
        return False
    if t.config.start_time is None or t.config.start_time > now:
        return False
    start_checks(s, t)
    rows.save_tournament(s, replace(t, status=TournamentStatus.RUNNING), now)
    rows.log_action(s, tournament_id, now, "", "start", "at start_time")
    return True


def _division_step(
    s: Session, t: Tournament, entrants: list[Entrant], games: list[Game], division: str, now: float
) -> tuple[list[Game], bool]:
    """Adds the division's due games (next game of a pairing, or the next round); returns them and
    whether the division is over."""
    cfg = t.config
    mine = [g for g in games if g.division == division]
    last = max((g.round for g in mine), default=0)
    current = [g for g in mine if g.round == last]
    more = plan.next_games(cfg, current)
    for g in more:
        rows.save_game(s, t.tournament_id, g, now)
    if more or (last and not plan.round_over(cfg, current)):
        return more, False
    if last >= cfg.rounds:
        return [], True
    if t.status != TournamentStatus.RUNNING:
        return [], False
    if cfg.round_interval_s and last:  # rounds at set times: not before the round's time
        first = rows.round_paired_at(s, t.tournament_id, division, 1)
        if first is not None and now < cfg.round_due(last + 1, first):
            return [], False
    pairings = plan.pair_round(cfg, t.tournament_id, entrants, games, division, last + 1)
    if pairings is None:
        return [], False  # a MANUAL round: a director pairs it
    if not pairings:
        return [], True  # an elimination has its winner
    return insert_round(s, t, division, last + 1, pairings, now), False


class TournamentRunner:
    """Advances running tournaments and wakes their watchers (in this process)."""

    def __init__(self, db: Database, allocator: Allocator) -> None:
        self.db = db
        self.allocator = allocator
        self._inflight: set[tuple[str, tuple[str, int, int, int]]] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._watchers: dict[str, set[asyncio.Event]] = {}
        self.sweeps = 0  # finished ticks: what a test waits on to know a sweep saw its change

    # -- watchers ---------------------------------------------------------------------------

    def subscribe(self, tournament_id: str) -> asyncio.Event:
        """An event set whenever this process changes the tournament."""
        ev = asyncio.Event()
        self._watchers.setdefault(tournament_id, set()).add(ev)
        return ev

    def unsubscribe(self, tournament_id: str, ev: asyncio.Event) -> None:
        """Forgets a watcher, and the tournament with its last one (a made-up id watched once
        leaves nothing)."""
        watchers = self._watchers.get(tournament_id, set())
        watchers.discard(ev)
        if not watchers:
            self._watchers.pop(tournament_id, None)

    def watched(self) -> int:
        """Tournaments someone in this process watches now."""
        return len(self._watchers)

    def changed(self, tournament_id: str) -> None:
        """Wakes the tournament's watchers."""
        for ev in self._watchers.get(tournament_id, ()):
            ev.set()

    # -- steps ------------------------------------------------------------------------------

    def _step(self, s: Session, tournament_id: str) -> tuple[Tournament | None, list[Game], list[Entrant]]:
        t = rows.lock_tournament(s, tournament_id)
        if t is None or t.status not in (TournamentStatus.RUNNING, TournamentStatus.PAUSED):
            return t, [], []
        at = now()
        entrants = rows.tournament_entrants(s, tournament_id)
        games = rows.tournament_games(s, tournament_id)
        changed = False
        done: list[bool] = []
        for d in t.config.divisions:
            while True:
                added, over = _division_step(s, t, entrants, games, d.name, at)
                games += added
                changed = changed or bool(added)
                if not added or over:
                    done.append(over)
                    break
        if all(done):
            t = replace(t, status=TournamentStatus.FINISHED)
            changed = True
            log.info("tournament finished", tournament_id=tournament_id)
        if changed:
            rows.save_tournament(s, t, at)
        pending = [g for g in games if g.status == GameStatus.PENDING and not g.match_id]
        return t, pending, entrants

    async def advance(self, tournament_id: str) -> None:
        """Pairs what is due in the tournament and creates the matches of its pending games."""
        t, pending, entrants = await self.db.run(self._step, tournament_id)
        self.changed(tournament_id)
        if t is None or t.status == TournamentStatus.FINISHED:
            return
        by_id = {e.entrant_id: e for e in entrants}
        for g in pending:
            key = (tournament_id, g.key)
            if key in self._inflight or g.second is None:
                continue
            self._inflight.add(key)
            task = asyncio.create_task(self._allocate(t, g, [by_id[g.first], by_id[g.second]]))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def tick(self) -> None:
        """Starts the tournaments whose start_time has come, then advances every running or
        paused tournament (the background loop's step)."""
        at = now()
        for t in await self.db.run(rows.registering_tournaments):
            if t.config.start_time is not None and t.config.start_time <= at:
                await self._start_due(t.tournament_id, at)
        for tid in await self.db.run(rows.live_tournaments):
            await self.advance(tid)
        self.sweeps += 1

    async def _start_due(self, tournament_id: str, now: float) -> None:
        """Starts a due tournament; one that cannot start yet (a division with fewer than 2
        entrants) stays in REGISTRATION and is tried again at the next tick."""
        try:
            started = await self.db.run(_start_if_due, tournament_id, now)
        except LobbyError as exc:
            log.debug("tournament not started at its start_time", tournament_id=tournament_id, why=str(exc))
            return
        if started:
            log.info("tournament started at its start_time", tournament_id=tournament_id)
            self.changed(tournament_id)

    async def _allocate(self, t: Tournament, g: Game, sides: list[Entrant]) -> None:
        occupants = [Occupant(e.player_id, e.display_name, e.bot_level, e.guest) for e in sides]

        def commit(s: Session, match_id: str, address: str) -> bool:
            cur_t = rows.lock_tournament(s, t.tournament_id)
            cur = rows.get_game(s, t.tournament_id, g.key)
            if cur_t is None or cur_t.status == TournamentStatus.FINISHED or cur is None:
                return False
            if cur.status != GameStatus.PENDING or cur.match_id:
                return False
            rows.save_game(
                s,
                t.tournament_id,
                replace(cur, status=GameStatus.PLAYING, match_id=match_id, address=address),
                time.time(),
            )
            rows.save_tournament(s, cur_t, time.time())
            return True

        try:
            game = replace(t.config.game, no_show_s=t.config.no_show_s)
            match_id, _ = await self.allocator.allocate(game, occupants, "", commit)
            log.info("tournament game started", tournament_id=t.tournament_id, game=g.key, match_id=match_id)
        except Exception as exc:  # LobbyError, AllocationWithdrawn, a database error: stays pending
            log.warning(
                "tournament game not started; retried later",
                tournament_id=t.tournament_id,
                game=g.key,
                error=repr(exc),
            )
        finally:
            self._inflight.discard((t.tournament_id, g.key))
        self.changed(t.tournament_id)

    # -- results ----------------------------------------------------------------------------

    def record_result(self, s: Session, r: MatchReport, outcomes: Sequence[Outcome]) -> str | None:
        """In the transaction that first records a match's result: the result of the tournament
        game played as that match (an aborted match is played again). Returns the tournament id,
        or None when the match is no tournament game (or the game no longer waits for it)."""
        found = rows.game_by_match(s, r.match_id)
        if found is None:
            return None
        t = rows.lock_tournament(s, found[0])
        g = rows.get_game(s, found[0], found[1].key)
        if t is None or g is None or g.status != GameStatus.PLAYING or g.match_id != r.match_id:
            return None
        if t.status == TournamentStatus.FINISHED:
            return None
        at = time.time()
        if r.aborted:
            g = replace(g, status=GameStatus.PENDING, match_id="", address="")
        elif r.no_show:  # a forfeit, as a director's: the side that showed wins by the bye spread
            won = r.no_show[0] == 1
            g = g.forfeited(won, t.config.bye_spread)
            absent = g.second if won else g.first
            where = f"{g.division} round {g.round} pairing {g.pairing} game {g.game}"
            rows.log_action(s, t.tournament_id, at, "", "no_show", f"{where}: {absent} did not show")
        else:
            seats = {se.seat: (se, o) for se, o in zip(r.seats, outcomes, strict=True)}
            g = replace(
                g,
                status=GameStatus.DONE,
                first_score=seats[0][0].score,
                second_score=seats[1][0].score,
                first_result=SIDE_OF[seats[0][1]],
            )
        rows.save_game(s, t.tournament_id, g, at)
        rows.save_tournament(s, t, at)
        return t.tournament_id

    async def after_result(self, tournament_id: str) -> None:
        """After a recorded result: the next step of its tournament (failures are left to the
        next tick)."""
        try:
            await self.advance(tournament_id)
        except Exception as exc:  # pragma: no cover - logged; the background tick retries
            log.warning("tournament step after a result failed", tournament_id=tournament_id, error=repr(exc))

    async def stop(self) -> None:
        """Cancels allocations in flight (their games stay pending) and ends watchers."""
        await cancel_and_wait(self._tasks)
        for evs in self._watchers.values():
            for ev in evs:
                ev.set()
