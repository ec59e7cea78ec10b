"""The match manager: one writer per match, the event log as the source of truth.

A turn (``SubmitTurn``; ``DecidePending``, ``LeaveMatch``, ``KickIdlePlayer`` alike) follows one
straight path:

1. ``service.MatchServicer`` authenticates the caller and reads the request into an engine
   action, then calls ``MatchManager.play``;
2. ``play`` takes the match's lock; a time-out already due is decided and stored first
   (``clocks.expire``); ``commit`` asks the pure core, on a snapshot of the match with the time
   now (``core.decide``): aborted, repeated request id, ``expected_seq``, the kick's and chat's
   rules, the clocks charged, and the engine's verdict. A refusal changes and writes nothing;
3. ``settle`` turns the decision's engine events into stored events (``eventlog.to_stored``)
   and builds the caller's answer from them (``wire.project``);
4. the events and the answer are appended in one transaction (``eventlog.append``): the commit;
5. only then the new state is installed in memory (``eventlog.install``), the events are
   published to every open stream (``streams.publish``), the seat to move's clock timer and bot
   are started (``start_turn``), and the answer goes back to the servicer.

Around that path:

* Every match owned by this server lives in a ``Runtime`` rebuilt by replaying its stored
  events (``eventlog.rebuild``: start-up, take-over after another server's lease expired, or
  first use).
* Leases and take-over (``leases``): the manager scans every third of a lease for running
  matches whose owner let the lease lapse or released them and takes them over. Every running
  match rebuilt from its log (``restart``: this server id owned it before; ``takeover``: another
  server or nobody did) is counted in ``wordarena_recoveries_total{reason}`` and handed to
  ``on_recovered`` (the lobby link, which reports the match's new location to the lobby).
* Bot seats play their own turns (``bots.play_turn``: the engine's bots, in worker threads).
* A finished match is handed to ``on_finished`` (the result reporter) once it is stored.
* ``abort`` (MatchControlService.AbortMatch): a match nobody has played in yet (no stored player
  request) gets an ``aborted`` event and the status ``aborted`` in one append; its timers and bot
  stop, its streams end with FAILED_PRECONDITION MATCH_ABORTED and the server forgets it. It has
  no result (nothing is reported to the lobby) and is never loaded again (``get`` refuses it).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import grpc

from wordarena.engine.errors import InputError
from wordarena.engine.game import Action, GameState, start_game
from wordarena.engine.lexicon import load_lexicon
from wordarena.services.common import logs
from wordarena.services.common.errors import ServiceError, invalid_argument
from wordarena.services.common.tasks import KeyedLocks
from wordarena.services.match import (
    admission,
    bots,
    clocks,
    creation,
    eventlog,
    leases,
    messages,
    metrics,
    orphans,
    streams,
    wallclock,
)
from wordarena.services.match.botworkers import BotWorkers
from wordarena.services.match.core import Act, Chat, ChatLimits, Decision, Refusal, Repeat, decide
from wordarena.services.match.core.events import ChatLine, MatchEvent
from wordarena.services.match.models import MatchRow
from wordarena.services.match.runtime import Runtime
from wordarena.services.match.store import ConflictError, MatchStore, StorageError, StoredEvent, StoredRequest
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import errors_pb2 as e

log = logs.get_logger(__name__)

T = TypeVar("T")
MAX_ABORT_REASON = 200

#: Builds the caller's answer from the stored events of its request.
Build = Callable[[list[StoredEvent]], Any]


def _lexicon_for(name: str) -> Any:
    try:
        return load_lexicon(name)
    except Exception as exc:  # a missing word list: refuse the match, do not crash
        raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION,
                           f"lexicon {name!r} is not available on this server: {exc}") from exc


class MatchManager:
    """Owns matches: creation, loading and take-over, the turn path, aborts."""

    def __init__(self, store: MatchStore, *, server_id: str, address: str, lease_seconds: float = 30.0,
                 capacity: int = 5000, stream_queue: int = 256, heartbeat_seconds: float = 15.0,
                 lexicon_for: Callable[[str], Any] = _lexicon_for, bot_delay: float = 0.0,
                 engine_workers: int = 2, bot_workers: int = 0, chat_limits: ChatLimits | None = None,
                 orphan_timeout: float = 600.0, deal_seed: int = 0) -> None:
        self.store = store
        self.deal_seed = deal_seed  # operator's --deal-seed (tests, demonstrations): 0 = random
        self.server_id = server_id
        self.address = address
        self.owner = f"{server_id}|{address}"
        self.lease_seconds = lease_seconds
        #: Until when every lease held is known good (the last full renewal, sent then, plus a
        #: lease; a match claimed later holds a later lease). Past it, a held match is checked
        #: before it is served (``leases.confirm``).
        self.leases_sure_until = time.time() + lease_seconds
        self.capacity = capacity
        self.stream_queue = stream_queue
        self.heartbeat_seconds = heartbeat_seconds
        self.lexicon_for = lexicon_for
        self.bot_delay = bot_delay
        self.chat_limits = chat_limits or ChatLimits()
        self.orphan_timeout = orphan_timeout  # ``orphans``: 0 never aborts one
        self.matches: dict[str, Runtime] = {}
        #: Finished matches still in memory, oldest first (``_keep_finished``).
        self.finished: OrderedDict[str, None] = OrderedDict()
        self.draining = False
        self.closing = False
        self.on_finished: Callable[[Runtime], Any] | None = None
        #: Called with (runtime, "restart" | "takeover") for every running match rebuilt here.
        self.on_recovered: Callable[[Runtime, str], Any] | None = None
        #: The lease renewal and take-over scan tasks (``start``).
        self.renewer: asyncio.Task[None] | None = None
        self.scanner: asyncio.Task[None] | None = None
        self.orphan_sweeper: asyncio.Task[None] | None = None
        #: Held while a match is loaded from its log (one loader a match).
        self.loading = KeyedLocks()
        self._engine_pool = ThreadPoolExecutor(max_workers=max(1, engine_workers),
                                               thread_name_prefix="engine")
        # Bots (and Hindsight's simulation) think in worker processes, off the event loop's GIL.
        self.bot_workers = BotWorkers(bot_workers)

    # --- life cycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Take over every claimable running match, start renewing leases and scanning for
        matches to take over."""
        await leases.recover(self)
        self.renewer = asyncio.create_task(leases.renew_loop(self))
        self.scanner = asyncio.create_task(leases.takeover_loop(self))
        self.orphan_sweeper = orphans.start(self)

    async def take_over_expired(self) -> int:
        """Take over the running matches whose lease lapsed or was released (up to capacity).
        Returns how many were taken over."""
        return await leases.take_over_expired(self)

    async def close(self, release: bool = False) -> None:
        """Stop timers and bots, end streams (UNAVAILABLE), optionally release the leases."""
        self.closing = True
        for task in (self.renewer, self.scanner, self.orphan_sweeper):
            if task is not None:
                task.cancel()
        for rt in self.matches.values():
            streams.close_all(rt.subscribers, "the match server is shutting down")
            self._stop_tasks(rt)
        self._engine_pool.shutdown(wait=False, cancel_futures=True)
        self.bot_workers.shutdown()
        if release:
            await self.store.release(self.owner)

    @property
    def active_matches(self) -> int:
        """Matches held here that have not ended."""
        return sum(1 for rt in self.matches.values() if not rt.state.over)

    @property
    def stream_subscribers(self) -> int:
        """Open StreamMatch streams over every match held here."""
        return sum(len(rt.subscribers) for rt in self.matches.values())

    def load_pb(self) -> ctl.ServerLoad:
        """This server's load as the lobby sees it."""
        return ctl.ServerLoad(active_matches=self.active_matches, capacity=self.capacity,
                              stream_subscribers=self.stream_subscribers, draining=self.draining)

    def holds(self, rt: Runtime) -> bool:
        """Whether ``rt`` is still this server's live copy of its match (not lost, aborted or
        shut down)."""
        return not self.closing and self.matches.get(rt.match_id) is rt

    async def run_blocking(self, use: str, fn: Callable[..., T], *args: Any) -> T:
        """Run blocking engine work (analysis) on the engine threads, off the event loop, so
        that one slow move generation never stalls other matches. ``use`` labels the
        ``wordarena_movegen_seconds`` histogram."""
        def timed() -> T:
            with metrics.MOVEGEN_SECONDS.labels(use).time():
                return fn(*args)

        return await asyncio.get_running_loop().run_in_executor(self._engine_pool, timed)

    async def think(self, state: GameState, seat: int, level: int, think_ms: int) -> Action:
        """A bot's move (``botprocess.choose``), thought out on the bot workers (``botworkers``)."""
        return await self.bot_workers.choose(state, seat, level, think_ms)

    # --- creation ------------------------------------------------------------------------

    async def create(self, req: ctl.CreateMatchRequest) -> ctl.CreateMatchResponse:
        """CreateMatch: validate, store the match and its first event, start it."""
        creation.check_match_id(req.match_id)
        existing = await self.store.get(req.match_id)
        if existing is not None:
            return creation.existing_answer(existing, req, self.address)
        if self.draining or self.closing:
            raise ServiceError(grpc.StatusCode.UNAVAILABLE, "this match server is draining")
        if len(self.matches) >= self.capacity and self.active_matches >= self.capacity:  # cheap first
            raise ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                               f"this match server is at capacity ({self.capacity} matches)")
        ruleset = creation.ruleset_of(req.ruleset)
        seats = creation.seats_of(req, ruleset)
        options = creation.options_of(req.options, ruleset)
        word_check = creation.word_check_of(options.challenge_mode, ruleset)
        seed = req.seed or self.deal_seed or random.getrandbits(63)
        # A lexicon not loaded yet may be compiled from a system word list (seconds): off the loop.
        lexicon = await asyncio.to_thread(self.lexicon_for, ruleset.lexicon)
        try:
            state, events = start_game(ruleset, len(seats), seed, lexicon, True, word_check,
                                       pass_and_play=options.pass_and_play)
        except InputError as exc:
            raise invalid_argument("seats", str(exc)) from exc
        now = wallclock.now()
        # The match's own ruleset: the table's challenge mode may have changed when words are checked.
        ruleset = state.ruleset
        rt = Runtime(match_id=req.match_id, ruleset=ruleset, seats=seats, options=options,
                     created_at=now, state=state, events=[], last_move=[now] * len(seats))
        rt.turn_start = now
        if options.per_player_seconds:
            rt.clocks = [options.per_player_seconds] * len(seats)
        stored = eventlog.to_stored(rt, events, state, now)
        row = MatchRow(id=req.match_id, ruleset_id=ruleset.id, seed=str(seed),
                       seats=json.dumps([s.to_dict() for s in seats]), options=json.dumps(options.to_dict()),
                       create_request=creation.canonical(req), table_id=req.table_id,
                       status="in-progress", owner=self.owner, lease_until=now + self.lease_seconds,
                       last_seq=len(stored), created_at=now)
        got = await self.store.create(row, stored)
        if got.create_request != row.create_request or got.seed != row.seed:
            return creation.existing_answer(got, req, self.address)
        eventlog.install(rt, stored)
        self.matches[rt.match_id] = rt
        if any(s.bot for s in seats):
            self.bot_workers.warm(rt.ruleset.lexicon)
        metrics.MATCHES_CREATED.inc()
        metrics.MATCHES_ACTIVE.set(self.active_matches)
        logs.bind(match_id=rt.match_id)
        log.info("match created", ruleset=ruleset.id, seats=[s.player_id for s in seats])
        self.start_turn(rt)
        return ctl.CreateMatchResponse(match_id=rt.match_id, address=self.address, seed=seed)

    # --- loading -------------------------------------------------------------------------

    async def get(self, match_id: str) -> Runtime:
        """The live match, loaded (and taken over) from the log if needed."""
        creation.check_match_id(match_id)  # nothing that cannot be an id reaches the database
        rt = self.matches.get(match_id)
        if rt is not None:
            if not rt.state.over and time.time() >= self.leases_sure_until:
                await leases.confirm(self, rt)
            return rt
        if self.closing:
            raise ServiceError(grpc.StatusCode.UNAVAILABLE, "this match server is shutting down")
        async with self.loading.hold(match_id):
            rt = self.matches.get(match_id)
            if rt is not None:
                return rt
            row = await self.store.get(match_id)
            if row is None:
                raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no match {match_id!r}")
            if row.status == "aborted":
                raise admission.aborted_error(match_id)
            previous_owner = row.owner
            if row.status == "in-progress" and not await self.store.claim(match_id, self.owner,
                                                                          self.lease_seconds):
                fresh = await self.store.get(match_id)
                raise ServiceError(grpc.StatusCode.UNAVAILABLE, f"match {match_id!r} is served elsewhere",
                                   e.MatchMoved(match_id=match_id,
                                                new_address=leases.address_of(fresh.owner if fresh else "")))
            rt = await eventlog.rebuild(self.store, match_id, self.lexicon_for)
            rt.player_seen = wallclock.now()  # an orphan's wait starts again at its take-over
            self.matches[match_id] = rt
            if rt.state.over:
                self._keep_finished(rt)
            elif any(s.bot for s in rt.seats):
                self.bot_workers.warm(rt.ruleset.lexicon)
            metrics.MATCHES_ACTIVE.set(self.active_matches)
            if not rt.state.over:
                reason = "restart" if previous_owner.partition("|")[0] == self.server_id else "takeover"
                metrics.RECOVERIES.labels(reason).inc()
                log.info("match recovered", match_id=match_id, reason=reason,
                         previous_owner=previous_owner)
                self.start_turn(rt)
                if self.on_recovered is not None:
                    self.on_recovered(rt, reason)
            return rt

    # --- the turn path -------------------------------------------------------------------

    async def play(self, rt: Runtime, action: Action, *, player_id: str, request_id: str,
                   method: str, expected_seq: int | None, build: Build) -> Any:
        """A player's action (a turn, a decision, leaving, kicking): under the match's lock, a
        time-out already due first, then ``commit``. Returns ``build(events)``, or for a
        repeated request id ``("repeat", first answer bytes)``."""
        async with rt.lock:
            if (player_id, request_id) not in rt.requests:
                await clocks.expire(rt, self.settle)
            return await self.commit(rt, action, player_id=player_id, request_id=request_id,
                                     method=method, expected_seq=expected_seq, build=build)

    async def chat(self, rt: Runtime, seat: int | None, *, player_id: str, name: str, text: str,
                   request_id: str, build: Build) -> Any:
        """Store a chat message from ``seat`` (None: a spectator, in the observers' channel, as
        ``name``): an event of the log like the others, but no action of the game (nothing is
        applied, no clock is charged, ``game_seq`` stays). Who may chat and how much: the core's
        ``decide`` (a repeated request id gets its first answer)."""
        async with rt.lock:
            now = wallclock.now()
            decided = decide(rt.snapshot(), Chat(player_id, request_id, seat, now), self.chat_limits)
            line = ChatLine(player_id, name if seat is None else rt.seats[seat].display_name, text,
                            seat, observers=seat is None)

            def stored(_: Decision) -> list[StoredEvent]:
                return [StoredEvent.of(MatchEvent(rt.seq + 1, now, "chat", chat=line))]

            answer = await self.settle(rt, decided, stored, player_id=player_id, request_id=request_id,
                                       method="SendChat", build=build)
            if isinstance(decided, Decision) and decided.chat_bucket is not None:
                rt.chat_buckets[player_id] = decided.chat_bucket
            return answer

    async def commit(self, rt: Runtime, action: Action, *, player_id: str = "",
                     request_id: str = "", method: str = "", expected_seq: int | None = None,
                     build: Build | None = None) -> Any:
        """Decide ``action`` (the core's ``decide``) and store what was decided (``settle``).
        Call with ``rt.lock`` held. Returns ``build(events)`` (the answer, also stored under the
        request id) or the stored events."""
        act = Act(player_id, request_id, method, action, expected_seq, wallclock.now())
        return await self.settle(rt, decide(rt.snapshot(), act), player_id=player_id,
                                 request_id=request_id, method=method, build=build)

    async def settle(self, rt: Runtime, decided: Decision | Repeat | Refusal | None,
                     stored: Callable[[Decision], list[StoredEvent]] | None = None, *,
                     player_id: str = "", request_id: str = "", method: str = "",
                     build: Build | None = None) -> Any:
        """Store a decision of the core durably, then install it and tell everyone. A repeat
        answers with the first answer; a refusal raises its error; None (no time-out due) does
        nothing. ``stored`` makes the decision's stored events (default: from its engine
        events). Call with ``rt.lock`` held."""
        if decided is None:
            return None
        if isinstance(decided, Refusal):
            raise admission.refused(decided, rt.ruleset)
        if isinstance(decided, Repeat):
            metrics.REPEATS.inc()
            return ("repeat", rt.requests[(decided.player_id, decided.request_id)][1])
        now, clocks_after = decided.now, None if decided.clocks is None else list(decided.clocks)
        events = stored(decided) if stored is not None else eventlog.to_stored(
            rt, decided.events, decided.state, now, clocks_after, idle_for=decided.idle_for)
        answer = build(events) if build is not None else events
        request = None
        if request_id:
            blob = answer if isinstance(answer, bytes) else (
                answer.SerializeToString() if hasattr(answer, "SerializeToString") else b"")
            request = StoredRequest(rt.match_id, player_id, request_id, method, rt.seq + len(events), blob)
        try:
            await eventlog.append(self.store, rt, self.owner, events, request,
                                  finished_at=now if decided.over else None)
        except ConflictError as exc:
            raise await leases.moved(self, rt) from exc
        except StorageError as exc:
            raise await leases.uncertain(self, rt, exc) from exc
        # Durable: install the new state and tell everyone.
        game = bool(decided.events)
        if game:
            rt.state, rt.clocks, rt.turn_start = decided.state, clocks_after, now
            if decided.mover is not None:
                rt.last_move[decided.mover] = now
            metrics.TURNS.labels(rt.ruleset.family, type(decided.action).__name__.lower()).inc()
        if decided.over:
            rt.status, rt.ended_at = "finished", now
            self._keep_finished(rt)
            metrics.MATCHES_ACTIVE.set(self.active_matches)
            metrics.MATCHES_FINISHED.inc()
        if request is not None:
            rt.requests[(player_id, request_id)] = (method, request.response)
        eventlog.install(rt, events)
        streams.publish(rt.subscribers, events)
        if decided.over and self.on_finished is not None:
            try:
                self.on_finished(rt)
            except Exception as exc:  # pragma: no cover - the reporter's start-up sweep retries
                log.error("result not queued", match_id=rt.match_id, error=repr(exc))
        if game:
            self.start_turn(rt)
        return answer

    #: Finished matches kept in memory; older ones are dropped once nobody follows them (a later
    #: call about one loads it again from the log).
    FINISHED_KEPT = 256

    def _keep_finished(self, rt: Runtime) -> None:
        """Note a finished match now in memory (just finished, or read from its log); forget the
        oldest beyond ``FINISHED_KEPT`` that nobody uses (one in use goes at a later call)."""
        self.finished[rt.match_id] = None
        for match_id in list(self.finished)[:max(0, len(self.finished) - self.FINISHED_KEPT)]:
            old = self.matches.get(match_id)
            if old is None or not (old.subscribers or old.lock.locked()):
                del self.finished[match_id]
                self.matches.pop(match_id, None)

    def start_turn(self, rt: Runtime) -> None:
        """The seat to move begins its turn: arm its clock timer; a bot seat plays."""
        clocks.disarm(rt)
        if rt.state.over or self.closing:
            return
        clocks.arm(rt, self.settle)
        if rt.bot_seat(rt.state.to_move) and (rt.bot_task is None or rt.bot_task.done()):
            rt.bot_task = asyncio.create_task(bots.play_turn(self, rt))

    # --- losing and aborting -------------------------------------------------------------

    def lost(self, rt: Runtime) -> None:
        """Another server owns the match now (or this one released it): forget it and end its
        streams."""
        self._forget(rt, "the match moved to another server")

    def _forget(self, rt: Runtime, why: str, error: ServiceError | None = None) -> None:
        """Drop the match from memory, end its streams (UNAVAILABLE, or ``error``), stop its
        clock timer and bot."""
        if self.matches.get(rt.match_id) is rt:
            del self.matches[rt.match_id]
        streams.close_all(rt.subscribers, why, error)
        self._stop_tasks(rt)

    @staticmethod
    def _stop_tasks(rt: Runtime) -> None:
        for task in (rt.timer, rt.bot_task):
            if task is not None:
                task.cancel()

    async def abort(self, match_id: str, reason: str) -> ctl.AbortMatchResponse:
        """AbortMatch: abort a match nobody has played in yet (see the module doc). Idempotent."""
        creation.check_match_id(match_id)
        if len(reason) > MAX_ABORT_REASON:
            raise invalid_argument("reason", f"at most {MAX_ABORT_REASON} characters")
        while True:
            rt = self.matches.get(match_id)
            if rt is None:
                row = await self.store.get(match_id)
                if row is None:
                    raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no match {match_id!r}")
                if row.status == "aborted":
                    return await self._aborted_answer(row)
                if row.status != "in-progress":
                    raise admission.finished_error(match_id)
                rt = await self.get(match_id)  # loads it (taking it over if its lease is free)
            async with rt.lock:
                if self.matches.get(match_id) is not rt:
                    continue  # aborted (or lost) while we waited: answer from the store
                return await self._abort_locked(rt, reason)

    async def _abort_locked(self, rt: Runtime, reason: str) -> ctl.AbortMatchResponse:
        if rt.state.over or rt.status != "in-progress":
            raise admission.finished_error(rt.match_id)
        if rt.requests:
            raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION,
                               f"match {rt.match_id!r} has started: a player has acted in it",
                               messages.violation(e.RULE_CODE_MATCH_STARTED,
                                                  "a player has acted in the match"))
        now = wallclock.now()
        ev = StoredEvent.of(MatchEvent(rt.seq + 1, now, "aborted", aborted=reason))
        try:
            await self.store.append(rt.match_id, self.owner, rt.seq, [ev], status="aborted", ended_at=now)
        except ConflictError as exc:
            raise await leases.moved(self, rt) from exc
        rt.events.append(ev)
        rt.status, rt.ended_at = "aborted", now
        self._forget(rt, "the match was aborted", admission.aborted_error(rt.match_id))
        metrics.MATCHES_ABORTED.inc()
        metrics.MATCHES_ACTIVE.set(self.active_matches)
        logs.bind(match_id=rt.match_id)
        log.info("match aborted", reason=reason, seq=rt.seq)
        return ctl.AbortMatchResponse(match_id=rt.match_id, already_aborted=False, reason=reason,
                                      abort_time=messages.timestamp(now))

    async def _aborted_answer(self, row: MatchRow) -> ctl.AbortMatchResponse:
        reason = ""
        for ev in await self.store.events_after(row.id, max(row.last_seq - 1, 0)):
            if ev.kind == "aborted":
                reason = ev.event.aborted or ""
        out = ctl.AbortMatchResponse(match_id=row.id, already_aborted=True, reason=reason)
        if row.ended_at:
            out.abort_time.CopyFrom(messages.timestamp(row.ended_at))
        return out
