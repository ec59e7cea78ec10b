"""The match manager: one writer per match, the event log as the source of truth.

* Every match owned by this server lives in a ``Runtime`` rebuilt by replaying its stored events
  (start-up, take-over after another server's lease expired, or first use).
* Changes go through ``commit``: under the match's asyncio lock, the engine applies the action on
  the in-memory state, the resulting events are appended in one transaction together with the
  answer to the client's request id, and only then is the new state installed, subscribers fed
  and the answer returned. Refused actions (``RuleError``) change nothing and write nothing.
* ``expected_seq`` guards against stale clients; request ids make retries idempotent.
* Clocks: remaining time per seat is stored with every event; a timer applies ``TimeOut`` when the
  seat to move runs out (and on rebuild, for time that ran out while no server owned the match).
* Bot seats play their own turns (``services.match.bots``: the engine's bots, in worker threads).
* A finished match is handed to ``on_finished`` (the result reporter) once it is stored.
* ``abort`` (MatchControlService.AbortMatch): a match nobody has played in yet (no stored player
  request) gets an ``aborted`` event and the status ``aborted`` in one append; its timers and bot
  stop, its streams end with FAILED_PRECONDITION MATCH_ABORTED and the server forgets it. It has
  no result (nothing is reported to the lobby) and is never loaded again (``get`` refuses it).
* Take-over: besides the matches it recovers at start-up, the manager scans every third of a
  lease for running matches whose owner let the lease lapse (a dead server) or released them (a
  drained one) and takes them over. Every running match rebuilt from its log (``restart``: this
  server id owned it before; ``takeover``: another server or nobody did) is counted in
  ``wordarena_recoveries_total{reason}`` and handed to ``on_recovered`` (the lobby link, which
  reports the match's new location to the lobby).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import grpc
from wordarena.engine.errors import EngineError, InputError, RuleError
from wordarena.engine.game import Action, GameState, Kick, TimeOut, apply, replay, start_game
from wordarena.engine.game.events import Event as EngineEvent
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.rulesets import get_ruleset, parse_ruleset_id
from wordarena.services.common import logs
from wordarena.services.common.errors import ServiceError, invalid_argument
from wordarena.services.common.request_ids import ID_RE
from wordarena.services.match import bots, metrics, results, views
from wordarena.services.match.models import MatchRow, RequestRow
from wordarena.services.match.runtime import (
    Options,
    Runtime,
    SeatInfo,
    Subscriber,
    group_engine_events,
    stored_kind,
)
from wordarena.services.match.store import ConflictError, MatchStore, StoredEvent
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import errors_pb2 as e

log = logs.get_logger(__name__)

T = TypeVar("T")
SEED_MAX = 2**64 - 1


def _lexicon_for(name: str) -> Any:
    try:
        return load_lexicon(name)
    except Exception as exc:  # a missing word list: refuse the match, do not crash
        raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION,
                           f"lexicon {name!r} is not available on this server: {exc}") from exc


MAX_ABORT_REASON = 200


def aborted_error(match_id: str) -> ServiceError:
    """What every request about an aborted match gets (and open streams end with)."""
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION,
                        f"match {match_id!r} was aborted by the service; it has no result",
                        views.violation(e.RULE_CODE_MATCH_ABORTED, "the match was aborted"))


class MatchManager:
    """Owns matches: creation, loading and take-over, commits, streams, clocks, bots."""

    def __init__(self, store: MatchStore, *, server_id: str, address: str, lease_seconds: float = 30.0,
                 capacity: int = 5000, stream_queue: int = 256, heartbeat_seconds: float = 15.0,
                 lexicon_for: Callable[[str], Any] = _lexicon_for, bot_delay: float = 0.0,
                 engine_workers: int = 2) -> None:
        self.store = store
        self.server_id = server_id
        self.address = address
        self.owner = f"{server_id}|{address}"
        self.lease_seconds = lease_seconds
        self.capacity = capacity
        self.stream_queue = stream_queue
        self.heartbeat_seconds = heartbeat_seconds
        self.lexicon_for = lexicon_for
        self.bot_delay = bot_delay
        self.matches: dict[str, Runtime] = {}
        self.draining = False
        self.closing = False
        self._loading: dict[str, asyncio.Lock] = {}
        self._renewer: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._engine_pool = ThreadPoolExecutor(max_workers=max(1, engine_workers),
                                               thread_name_prefix="engine")
        self.on_finished: Callable[[Runtime], Any] | None = None
        #: Called with (runtime, "restart" | "takeover") for every running match rebuilt here.
        self.on_recovered: Callable[[Runtime, str], Any] | None = None
        self._scanner: asyncio.Task[None] | None = None

    # --- life cycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Take over every claimable running match, start renewing leases and scanning for
        matches to take over."""
        for match_id in await self.store.claimable(self.owner):
            with contextlib.suppress(ServiceError):
                await self.get(match_id)
        self._renewer = asyncio.create_task(self._renew_loop())
        self._scanner = asyncio.create_task(self._takeover_loop())

    async def take_over_expired(self) -> int:
        """Take over the running matches whose lease lapsed or was released (up to capacity).
        Returns how many were taken over."""
        taken = 0
        for match_id in await self.store.claimable(self.owner):
            if match_id in self.matches:
                continue
            if self.draining or self.closing or self.active_matches >= self.capacity:
                break
            try:
                await self.get(match_id)
                taken += 1
            except ServiceError:  # another server was quicker, or the match cannot be served here
                continue
            except Exception as exc:  # a broken log: logged, the others are still taken over
                log.error("take-over failed", match_id=match_id, error=repr(exc))
        return taken

    async def _takeover_loop(self) -> None:
        while True:
            await asyncio.sleep(max(self.lease_seconds / 3, 0.05))
            if self.draining or self.closing:
                continue
            try:
                taken = await self.take_over_expired()
                if taken:
                    log.info("took over matches of another server", count=taken)
            except Exception as exc:  # pragma: no cover - database hiccup: retry next time
                log.warning("take-over scan failed", error=repr(exc))

    async def _renew_loop(self) -> None:
        while True:
            await asyncio.sleep(max(self.lease_seconds / 3, 0.05))
            try:
                held = [rt for rt in self.matches.values() if not rt.state.over]
                renewed = await self.store.renew(self.owner, self.lease_seconds)
                # Matches that finished (or were dropped) meanwhile are not renewed either:
                # only a shortfall against what is still held means a lost lease.
                if renewed < len(held):
                    held = [rt for rt in held if not rt.state.over and self.matches.get(rt.match_id) is rt]
                    if renewed < len(held):
                        await self._drop_lost(held)
            except Exception as exc:  # pragma: no cover - database hiccup: retry next time
                log.warning("lease renewal failed", error=repr(exc))

    async def _drop_lost(self, held: list[Runtime]) -> None:
        """Fewer leases renewed than matches held: another server took some over while this one
        could not renew (a pause, a partition). Forget those, ending their streams (the clients
        reconnect and are sent to the new owner) instead of serving a stale copy."""
        for rt in held:
            row = await self.store.get(rt.match_id)
            if row is not None and row.owner != self.owner and self.matches.get(rt.match_id) is rt:
                log.warning("lost a match to another server", match_id=rt.match_id, owner=row.owner)
                self._lost(rt)
        metrics.MATCHES_ACTIVE.set(self.active_matches)

    async def close(self, release: bool = False) -> None:
        """Stop timers and bots, end streams (UNAVAILABLE), optionally release the leases."""
        self.closing = True
        if self._renewer:
            self._renewer.cancel()
        if self._scanner:
            self._scanner.cancel()
        for rt in self.matches.values():
            for sub in list(rt.subscribers):
                sub.close("the match server is shutting down")
            for t in (rt.timer, rt.bot_task):
                if t is not None:
                    t.cancel()
        for t in list(self._tasks):
            t.cancel()
        self._engine_pool.shutdown(wait=False, cancel_futures=True)
        if release:
            await self.store.release(self.owner)

    @property
    def active_matches(self) -> int:
        return sum(1 for rt in self.matches.values() if not rt.state.over)

    @property
    def stream_subscribers(self) -> int:
        return sum(len(rt.subscribers) for rt in self.matches.values())

    def load_pb(self) -> ctl.ServerLoad:
        return ctl.ServerLoad(active_matches=self.active_matches, capacity=self.capacity,
                              stream_subscribers=self.stream_subscribers, draining=self.draining)

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # --- creation ------------------------------------------------------------------------

    async def create(self, req: ctl.CreateMatchRequest) -> ctl.CreateMatchResponse:
        """CreateMatch: validate, store the match and its first event, start it."""
        if not ID_RE.match(req.match_id):
            raise invalid_argument("match_id", "required: 1..64 characters of [A-Za-z0-9_-]")
        existing = await self.store.get(req.match_id)
        if existing is not None:
            return self._existing_answer(existing, req)
        if self.draining or self.closing:
            raise ServiceError(grpc.StatusCode.UNAVAILABLE, "this match server is draining")
        if self.active_matches >= self.capacity:
            raise ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                               f"this match server is at capacity ({self.capacity} matches)")
        ruleset = self._ruleset(req.ruleset)
        seats = self._seats(req, ruleset)
        options = self._options(req.options, ruleset)
        seed = req.seed or random.getrandbits(63)
        # A lexicon not loaded yet may be compiled from a system word list (seconds): off the loop.
        lexicon = await asyncio.to_thread(self.lexicon_for, ruleset.lexicon)
        try:
            state, events = start_game(ruleset, len(seats), seed, lexicon, True)
        except InputError as exc:
            raise invalid_argument("seats", str(exc)) from exc
        now = time.time()
        rt = Runtime(match_id=req.match_id, ruleset=ruleset, seats=seats, options=options,
                     created_at=now, state=state, events=[], last_move=[now] * len(seats))
        if options.per_player_seconds:
            rt.clocks = [options.per_player_seconds] * len(seats)
            rt.turn_start = now
        stored = self._stored(rt, events, state, now)
        # Normalise the stored request so a retry compares equal whatever the seed choice was.
        canonical = ctl.CreateMatchRequest()
        canonical.CopyFrom(req)
        canonical.seed = 0 if not req.seed else req.seed
        row = MatchRow(id=req.match_id, ruleset_id=ruleset.id, seed=str(seed),
                       seats=json.dumps([s.to_dict() for s in seats]), options=json.dumps(options.to_dict()),
                       create_request=canonical.SerializeToString(deterministic=True), table_id=req.table_id,
                       status="in-progress", owner=self.owner, lease_until=now + self.lease_seconds,
                       last_seq=len(stored), created_at=now)
        got = await self.store.create(row, stored)
        if got.create_request != row.create_request or got.seed != row.seed:
            return self._existing_answer(got, req)
        rt.events = stored
        self.matches[rt.match_id] = rt
        metrics.MATCHES_CREATED.inc()
        metrics.MATCHES_ACTIVE.set(self.active_matches)
        logs.bind(match_id=rt.match_id)
        log.info("match created", ruleset=ruleset.id, seats=[s.player_id for s in seats])
        self._after_commit(rt)
        return ctl.CreateMatchResponse(match_id=rt.match_id, address=self.address, seed=seed)

    def _existing_answer(self, row: MatchRow, req: ctl.CreateMatchRequest) -> ctl.CreateMatchResponse:
        canonical = ctl.CreateMatchRequest()
        canonical.CopyFrom(req)
        if canonical.SerializeToString(deterministic=True) != row.create_request:
            raise ServiceError(grpc.StatusCode.ALREADY_EXISTS,
                               f"match {row.id!r} exists with different settings")
        address = row.owner.partition("|")[2] or self.address
        return ctl.CreateMatchResponse(match_id=row.id, address=address, seed=int(row.seed))

    def _ruleset(self, ref: c.RulesetRef) -> Any:
        if not ref.ruleset_id:
            raise invalid_argument("ruleset.ruleset_id", "required, e.g. 'classic'")
        try:
            if "/" in ref.ruleset_id:
                return parse_ruleset_id(ref.ruleset_id)
            return get_ruleset(ref.ruleset_id, ref.language or "en", ref.board_id or None)
        except InputError as exc:
            raise invalid_argument(f"ruleset.{exc.where or 'ruleset_id'}", exc.detail) from exc

    def _seats(self, req: ctl.CreateMatchRequest, ruleset: Any) -> list[SeatInfo]:
        n = len(req.seats)
        if not ruleset.min_players <= n <= ruleset.max_players:
            raise invalid_argument("seats", f"{ruleset.name} is played by {ruleset.min_players}.."
                                   f"{ruleset.max_players} players, not {n}")
        by_index: dict[int, SeatInfo] = {}
        for k, s in enumerate(req.seats):
            if not 0 <= s.index < n or s.index in by_index:
                raise invalid_argument(f"seats[{k}].index", f"seat indexes must be 0..{n - 1}, each once")
            which = s.WhichOneof("occupant")
            if which == "player":
                if not s.player.player_id or len(s.player.player_id) > 128:
                    raise invalid_argument(f"seats[{k}].player.player_id", "required, at most 128 chars")
                name = s.player.display_name[:64] or s.player.player_id
                by_index[s.index] = SeatInfo(s.player.player_id, name, guest=s.player.guest)
            elif which == "bot_level":
                if not 1 <= s.bot_level <= 5:
                    raise invalid_argument(f"seats[{k}].bot_level", "must be 1..5")
                by_index[s.index] = SeatInfo(f"bot:{s.bot_level}", f"Bot {s.bot_level}", bot=True,
                                             bot_level=s.bot_level)
            else:
                raise invalid_argument(f"seats[{k}]", "a seat needs a player or a bot_level")
        humans = [si.player_id for si in by_index.values() if not si.bot]
        if req.options.pass_and_play:
            if not humans or len(set(humans)) != 1:
                raise invalid_argument("seats", "pass-and-play: every human seat belongs to one player "
                                       "(the one client that plays them all)")
        elif len(set(humans)) != len(humans):
            raise invalid_argument("seats", "a player may hold only one seat (except in pass-and-play)")
        return [by_index[i] for i in range(n)]

    def _options(self, o: c.MatchOptions, ruleset: Any) -> Options:
        out = Options(challenge_mode=o.challenge_mode, pass_and_play=o.pass_and_play,
                      unrated=o.unrated or o.pass_and_play, spectators_allowed=o.spectators_allowed)
        if o.clock.HasField("per_player"):
            secs = o.clock.per_player.ToTimedelta().total_seconds()
            rule = ruleset.clock
            if rule.maximum <= 0:
                raise invalid_argument("options.clock.per_player", f"{ruleset.name} is untimed")
            if not rule.minimum <= secs <= rule.maximum:
                raise invalid_argument("options.clock.per_player",
                                       f"must be {rule.minimum // 60}..{rule.maximum // 60} minutes")
            out.per_player_seconds = secs
        elif ruleset.clock.default > 0:
            out.per_player_seconds = float(ruleset.clock.default)
        if o.clock.HasField("idle_kick_after"):
            secs = o.clock.idle_kick_after.ToTimedelta().total_seconds()
            if not 3600 <= secs <= 30 * 86400:
                raise invalid_argument("options.clock.idle_kick_after", "must be 1 hour .. 30 days")
            out.idle_kick_seconds = secs
        return out

    # --- aborting ------------------------------------------------------------------------

    async def abort(self, match_id: str, reason: str) -> ctl.AbortMatchResponse:
        """AbortMatch: abort a match nobody has played in yet (see the module doc). Idempotent."""
        if not ID_RE.match(match_id or ""):
            raise invalid_argument("match_id", "required: 1..64 characters of [A-Za-z0-9_-]")
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
                    raise self._finished_error(match_id)
                rt = await self.get(match_id)  # loads it (taking it over if its lease is free)
            async with rt.lock:
                if self.matches.get(match_id) is not rt:
                    continue  # aborted (or lost) while we waited: answer from the store
                return await self._abort_locked(rt, reason)

    async def _abort_locked(self, rt: Runtime, reason: str) -> ctl.AbortMatchResponse:
        if rt.state.over or rt.status != "in-progress":
            raise self._finished_error(rt.match_id)
        if rt.requests:
            raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION,
                               f"match {rt.match_id!r} has started: a player has acted in it",
                               views.violation(e.RULE_CODE_MATCH_STARTED, "a player has acted in the match"))
        now = time.time()
        ev = StoredEvent(rt.seq + 1, now, "aborted", {"aborted": {"reason": reason}})
        try:
            await self.store.append(rt.match_id, self.owner, rt.seq, [ev], status="aborted", ended_at=now)
        except ConflictError as exc:
            raise await self._moved(rt) from exc
        rt.events.append(ev)
        rt.status, rt.ended_at = "aborted", now
        self._forget(rt, "the match was aborted", aborted_error(rt.match_id))
        metrics.MATCHES_ABORTED.inc()
        metrics.MATCHES_ACTIVE.set(self.active_matches)
        logs.bind(match_id=rt.match_id)
        log.info("match aborted", reason=reason, seq=rt.seq)
        return ctl.AbortMatchResponse(match_id=rt.match_id, already_aborted=False, reason=reason,
                                      abort_time=views.timestamp(now))

    async def _aborted_answer(self, row: MatchRow) -> ctl.AbortMatchResponse:
        reason = ""
        for ev in await self.store.events_after(row.id, max(row.last_seq - 1, 0)):
            if ev.kind == "aborted":
                reason = str(ev.payload.get("aborted", {}).get("reason", ""))
        out = ctl.AbortMatchResponse(match_id=row.id, already_aborted=True, reason=reason)
        if row.ended_at:
            out.abort_time.CopyFrom(views.timestamp(row.ended_at))
        return out

    @staticmethod
    def _finished_error(match_id: str) -> ServiceError:
        return ServiceError(grpc.StatusCode.FAILED_PRECONDITION,
                            f"match {match_id!r} has finished; its result stands",
                            views.violation(e.RULE_CODE_GAME_OVER, "the match is over"))

    # --- loading -------------------------------------------------------------------------

    async def get(self, match_id: str) -> Runtime:
        """The live match, loaded (and taken over) from the log if needed."""
        if not match_id:
            raise invalid_argument("match_id", "required")
        if len(match_id) > 64:
            raise invalid_argument("match_id", "at most 64 characters")
        rt = self.matches.get(match_id)
        if rt is not None:
            return rt
        if self.closing:
            raise ServiceError(grpc.StatusCode.UNAVAILABLE, "this match server is shutting down")
        lock = self._loading.setdefault(match_id, asyncio.Lock())
        async with lock:
            rt = self.matches.get(match_id)
            if rt is not None:
                return rt
            row = await self.store.get(match_id) if len(match_id) <= 64 else None
            if row is None:
                raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no match {match_id!r}")
            if row.status == "aborted":
                raise aborted_error(match_id)
            previous_owner = row.owner
            if row.status == "in-progress" and not await self.store.claim(match_id, self.owner,
                                                                          self.lease_seconds):
                fresh = await self.store.get(match_id)
                addr = (fresh.owner if fresh else "").partition("|")[2]
                raise ServiceError(grpc.StatusCode.UNAVAILABLE, f"match {match_id!r} is served elsewhere",
                                   e.MatchMoved(match_id=match_id, new_address=addr))
            rt = await self._rebuild(match_id)
            self.matches[match_id] = rt
            metrics.MATCHES_ACTIVE.set(self.active_matches)
            if not rt.state.over:
                reason = "restart" if previous_owner.partition("|")[0] == self.server_id else "takeover"
                metrics.RECOVERIES.labels(reason).inc()
                log.info("match recovered", match_id=match_id, reason=reason,
                         previous_owner=previous_owner)
                self._after_commit(rt)
                if self.on_recovered is not None:
                    self.on_recovered(rt, reason)
            return rt

    async def _rebuild(self, match_id: str) -> Runtime:
        loaded = await self.store.load(match_id)
        assert loaded is not None
        row = loaded.row
        ruleset = parse_ruleset_id(row.ruleset_id)
        seats = [SeatInfo(**s) for s in json.loads(row.seats)]
        options = Options.from_dict(json.loads(row.options))
        engine_events = [EngineEvent.from_dict(ee) for ev in loaded.events
                         for ee in ev.payload.get("engine", ())]
        await asyncio.to_thread(self.lexicon_for, ruleset.lexicon)  # first load: off the loop
        state: GameState = replay(engine_events, self.lexicon_for)
        rt = Runtime(match_id=match_id, ruleset=ruleset, seats=seats, options=options,
                     created_at=row.created_at, state=state, events=loaded.events,
                     status=row.status, ended_at=row.ended_at, last_move=[row.created_at] * len(seats))
        for ev in loaded.events:
            for entry in ev.payload.get("board", ()):
                if len(entry) > 1:
                    rt.placed_seq[entry[0]] = entry[4] if len(entry) > 4 else ev.seq
                else:
                    rt.placed_seq.pop(entry[0], None)
            after = ev.payload.get("after")
            if after is not None:
                if "clocks" in after and after["clocks"] is not None:
                    rt.clocks = list(after["clocks"])
                rt.turn_start = ev.time
                for ee in ev.payload.get("engine", ()):
                    if ee.get("seat") is not None and "action" in ee.get("data", {}):
                        rt.last_move[ee["seat"]] = ev.time
        rt.requests = {k: (r.method, r.response) for k, r in loaded.requests.items()}
        if state.over:
            rt.status = "finished"
        log.info("match rebuilt from its log", match_id=match_id, seq=rt.seq)
        return rt

    # --- committing ----------------------------------------------------------------------

    def _stored(self, rt: Runtime, events: list[EngineEvent], state: GameState, now: float,
                clocks: list[float] | None = None) -> list[StoredEvent]:
        """Turn engine events (already applied, giving ``state``) into stored events."""
        before = rt.state
        prev_racks = [list(r) for r in before.racks] if rt.events else [[] for _ in before.racks]
        rt_state, rt.state = rt.state, state
        try:
            after = rt.after_snapshot()
        finally:
            rt.state = rt_state
        if clocks is not None:
            after["clocks"] = clocks
        elif rt.clocks is not None:
            after["clocks"] = list(rt.clocks)
        after["rack_changed"] = [i for i, r in enumerate(state.racks) if list(r) != prev_racks[i]]
        dicts = [ev.to_dict() for ev in events]
        groups = group_engine_events(dicts)
        game_over = next((g[0]["data"] for g in groups if g[0]["type"] == "game-over"), None)
        early: list[int] = []
        if game_over is not None:  # who left in the first round (War of Words: no result)
            early = results.first_round_leavers(
                [*(ev.payload.get("engine", ()) for ev in rt.events), *groups])
        out: list[StoredEvent] = []
        seq = rt.seq
        wow = rt.ruleset.family == "warofwords"
        for k, g in enumerate(groups):
            seq += 1
            kind = stored_kind(g[0]["type"])
            a = dict(after)
            if game_over is not None and kind != "game-over":
                a["scores"] = [s - adj for s, adj in zip(game_over["scores"], game_over["adjustments"],
                                                         strict=True)]
            if kind == "game-over" and early:
                a["first_round_left"] = early
            payload: dict[str, Any] = {"engine": g, "after": a}
            if wow:  # War of Words: what changed in anyone's view, and what clouds hide
                payload["board"], payload["wow"] = self._wow_changes(rt, g, before, state, seq, k == 0)
            else:
                payload["board"] = self._board_changes(g, state, seq)
            out.append(StoredEvent(seq, now, kind, payload))
        return out

    @staticmethod
    def _wow_changes(rt: Runtime, group: list[dict[str, Any]], before: GameState, state: GameState,
                     seq: int, first: bool) -> tuple[list[list[Any]], dict[str, Any]]:
        """War of Words board changes (on the first stored event of a commit: every square whose
        view changed, letters destroyed or drawn over by clouds included) and the cloud data the
        projection needs (``views.wow_payload``); ``touched``: a word of the play lies (partly)
        under a cloud."""
        wow, changed = views.wow_payload(before, state)
        changes: list[list[Any]] = []
        if first:
            for i in changed:
                cell = state.cells[i]
                if cell is None:
                    changes.append([i])
                else:
                    fresh = before.cells[i] != cell
                    changes.append([i, cell.letter, cell.blank, cell.owner,
                                    seq if fresh else rt.placed_seq.get(i, seq)])
        else:
            wow["squares"] = {}
        data = group[0]["data"]
        if group[0]["type"] == "play" and data.get("placed"):
            layout = state.ruleset.board
            placed = [int(p[0]) for p in data["placed"]]
            filled = {i for i, t in enumerate(before.cells) if t is not None} | set(placed)
            veiled = set(wow["veiled"])
            wow["touched"] = bool(views.word_squares(layout.cols, layout.rows, filled, placed) & veiled)
        return changes, wow

    @staticmethod
    def _board_changes(group: list[dict[str, Any]], state: GameState, seq: int) -> list[list[Any]]:
        head = group[0]
        data = head["data"]
        changes: list[list[Any]] = []
        if head["type"] in ("play", "play-pending", "play-accepted", "play-checked"):
            for index, *_ in data.get("placed", []):
                cell = state.cells[index]
                if cell is not None:
                    changes.append([index, cell.letter, cell.blank, cell.owner, seq])
            for index, *_ in data.get("returned", []):
                changes.append([index])
        return changes

    async def commit(self, rt: Runtime, action: Action | None, *, player_id: str = "",
                     request_id: str = "", method: str = "", expected_seq: int | None = None,
                     build: Callable[[list[StoredEvent]], Any] | None = None,
                     extra: list[StoredEvent] | None = None) -> Any:
        """Apply ``action`` (or append ``extra`` events, e.g. chat) and store the result.

        Call with ``rt.lock`` held. Returns ``build(events)`` (the answer, also stored under the
        request id) or the stored events."""
        if rt.status == "aborted":  # a request that got the match just before it was aborted
            raise aborted_error(rt.match_id)
        key = (player_id, request_id)
        if request_id and key in rt.requests:
            return self._repeat(rt, key, method, build)
        if expected_seq is not None and expected_seq != rt.seq:
            raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION,
                               f"expected_seq {expected_seq} is stale: the match is at seq {rt.seq}",
                               e.StaleSeq(current_seq=rt.seq, expected_seq=expected_seq))
        now = time.time()
        if action is not None:
            if rt.status != "in-progress" and not rt.state.over:
                raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION, "the match is not in progress")
            try:
                new_state, engine_events = apply(rt.state, action)
            except RuleError as exc:
                raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION, str(exc),
                                   views.rule_violation(exc.code, str(exc), exc.words)) from exc
            except EngineError as exc:
                raise invalid_argument("move", str(exc)) from exc
            clocks = rt.charged_clocks(now)
            events = self._stored(rt, engine_events, new_state, now, clocks)
        else:
            new_state, clocks = rt.state, rt.clocks
            events = extra or []
        answer = build(events) if build is not None else events
        request = None
        if request_id:
            blob = answer.SerializeToString() if hasattr(answer, "SerializeToString") else b""
            request = RequestRow(match_id=rt.match_id, player_id=player_id, request_id=request_id,
                                 method=method, last_seq=rt.seq + len(events), response=blob)
        over = new_state.over and not rt.state.over
        t0 = time.perf_counter()
        try:
            await self.store.append(rt.match_id, self.owner, rt.seq, events, request,
                                    status="finished" if over else None, ended_at=now if over else None)
        except ConflictError as exc:
            raise await self._moved(rt) from exc
        metrics.APPEND_SECONDS.observe(time.perf_counter() - t0)
        # Durable: install the new state and tell everyone.
        if action is not None:
            rt.state = new_state
            rt.clocks = clocks
            rt.turn_start = now
            if action.seat is not None and not isinstance(action, TimeOut | Kick):
                rt.last_move[action.seat] = now
            metrics.TURNS.labels(rt.ruleset.family, type(action).__name__.lower()).inc()
        if over:
            rt.status, rt.ended_at = "finished", now
            metrics.MATCHES_ACTIVE.set(self.active_matches)
            metrics.MATCHES_FINISHED.inc()
        if request is not None:
            rt.requests[key] = (method, request.response)
        for ev in events:
            ev.payload.setdefault("board", [])
            for entry in ev.payload["board"]:
                if len(entry) > 1:
                    rt.placed_seq[entry[0]] = entry[4] if len(entry) > 4 else ev.seq
                else:
                    rt.placed_seq.pop(entry[0], None)
            rt.events.append(ev)
        self._publish(rt, events)
        if over and self.on_finished is not None:
            try:
                self.on_finished(rt)
            except Exception as exc:  # pragma: no cover - the reporter's start-up sweep retries
                log.error("result not queued", match_id=rt.match_id, error=repr(exc))
        if action is not None:
            self._after_commit(rt)
        return answer

    def _repeat(self, rt: Runtime, key: tuple[str, str], method: str,
                build: Callable[[list[StoredEvent]], Any] | None) -> Any:
        first_method, blob = rt.requests[key]
        if first_method != method:
            raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION,
                               f"request_id {key[1]!r} was already used for {first_method}",
                               views.violation(e.RULE_CODE_UNSPECIFIED, "request_id reused",
                                               code_name="REQUEST_ID_REUSED"))
        metrics.REPEATS.inc()
        return ("repeat", blob)

    async def _owner_address(self, match_id: str) -> str:
        """The address of the server that owns ``match_id`` now ("" if none, us, or unknown)."""
        try:
            row = await self.store.get(match_id)
        except Exception:  # the error path of a commit: never fail it again
            return ""
        if row is None or not row.owner or row.owner == self.owner:
            return ""
        return row.owner.partition("|")[2]

    async def _moved(self, rt: Runtime) -> ServiceError:
        """A commit lost the match to another server: forget it here and tell the caller where
        it went (UNAVAILABLE with ``MatchMoved``)."""
        self._lost(rt)
        return ServiceError(grpc.StatusCode.UNAVAILABLE,
                            f"match {rt.match_id!r} moved to another server; reconnect",
                            e.MatchMoved(match_id=rt.match_id,
                                         new_address=await self._owner_address(rt.match_id)))

    def _lost(self, rt: Runtime) -> None:
        """Another server owns the match now: forget it and end its streams."""
        self._forget(rt, "the match moved to another server")

    def _forget(self, rt: Runtime, why: str, error: ServiceError | None = None) -> None:
        """Drop the match from memory, end its streams (UNAVAILABLE, or ``error``), stop its
        clock timer and bot."""
        if self.matches.get(rt.match_id) is rt:
            del self.matches[rt.match_id]
        for sub in list(rt.subscribers):
            sub.close(why, error)
        for t in (rt.timer, rt.bot_task):
            if t is not None:
                t.cancel()

    def _publish(self, rt: Runtime, events: list[StoredEvent]) -> None:
        for sub in list(rt.subscribers):
            for ev in events:
                sub.push(ev)

    # --- clocks and bots -----------------------------------------------------------------

    def _after_commit(self, rt: Runtime) -> None:
        if rt.timer is not None:
            rt.timer.cancel()
            rt.timer = None
        if rt.state.over or self.closing:
            return
        seat = rt.state.to_move
        if rt.clocks is not None:
            left = rt.clock_remaining(seat) or 0.0
            rt.timer = asyncio.create_task(self._clock_timer(rt, seat, rt.seq, left))
        if rt.bot_seat(seat) and (rt.bot_task is None or rt.bot_task.done()):
            rt.bot_task = asyncio.create_task(self._bot_turn(rt, rt.seq))

    async def _clock_timer(self, rt: Runtime, seat: int, seq: int, delay: float) -> None:
        await asyncio.sleep(delay)
        async with rt.lock:
            if rt.seq != seq or rt.state.over or rt.state.to_move != seat or rt.status != "in-progress":
                return
            if (rt.clock_remaining(seat) or 0.0) > 0.01:
                self._after_commit(rt)
                return
            logs.bind(match_id=rt.match_id)
            log.info("clock ran out", seat=seat)
            try:
                await self.commit(rt, TimeOut(seat))
            except ServiceError as exc:  # pragma: no cover - logged
                log.warning("timeout not stored", error=exc.message)

    async def expire_clock(self, rt: Runtime) -> None:
        """Apply a TimeOut now if the seat to move has run out (call with the lock held)."""
        if rt.clocks is None or rt.state.over:
            return
        seat = rt.state.to_move
        if (rt.clock_remaining(seat) or 0.0) <= 0.0:
            await self.commit(rt, TimeOut(seat))

    async def run_blocking(self, use: str, fn: Callable[..., T], *args: Any) -> T:
        """Run blocking engine work (bot moves, analysis) on the engine worker threads, off the
        event loop, so that one slow move generation never stalls other matches. ``use`` labels
        the ``wordarena_movegen_seconds`` histogram."""
        def timed() -> T:
            t0 = time.perf_counter()
            try:
                return fn(*args)
            finally:
                metrics.MOVEGEN_SECONDS.labels(use).observe(time.perf_counter() - t0)

        return await asyncio.get_running_loop().run_in_executor(self._engine_pool, timed)

    async def _bot_turn(self, rt: Runtime, seq: int) -> None:
        """Let the bot to move play (or decide on a pending play). The move is generated in a
        worker thread without holding the match's lock; it is committed only if the game has
        not changed meanwhile (chat does not count)."""
        try:
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            await asyncio.sleep(0)
            state = rt.state
            if state.over or not rt.bot_seat(state.to_move) or rt.status != "in-progress":
                return
            seat = state.to_move
            try:
                action = await self.run_blocking("bot", bots.choose, state, seat, rt.seats[seat].bot_level)
            except Exception as exc:  # an engine bug must not stop the match
                log.error("bot failed to choose", match_id=rt.match_id, seat=seat, error=repr(exc))
                action = bots.safe_action(state, seat)
            async with rt.lock:
                if rt.state is not state or self.closing or self.matches.get(rt.match_id) is not rt:
                    return  # the game moved on (e.g. a timeout; or it was aborted or lost)
                try:
                    await self.commit(rt, action)
                except ServiceError as exc:
                    log.warning("bot move refused", match_id=rt.match_id, seat=seat, error=exc.message)
                    with contextlib.suppress(ServiceError):
                        await self.commit(rt, bots.safe_action(rt.state, seat))
        finally:
            if rt.bot_task is asyncio.current_task():
                rt.bot_task = None
        if not rt.state.over and rt.bot_seat(rt.state.to_move) and not self.closing \
                and self.matches.get(rt.match_id) is rt:
            self._after_commit(rt)

    # --- streams -------------------------------------------------------------------------

    def subscribe(self, rt: Runtime, viewer: int | None,
                  after_seq: int) -> tuple[list[StoredEvent], Subscriber]:
        """The stored events after ``after_seq`` and a subscription for the ones to come (taken
        in one step, so nothing is missed and nothing is seen twice)."""
        backlog = rt.events[after_seq:]
        sub = Subscriber(viewer, self.stream_queue)
        rt.subscribers.add(sub)
        metrics.SUBSCRIBERS.inc()
        return backlog, sub

    def unsubscribe(self, rt: Runtime, sub: Subscriber) -> None:
        if sub in rt.subscribers:
            rt.subscribers.discard(sub)
            metrics.SUBSCRIBERS.dec()
