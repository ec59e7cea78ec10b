"""The match server's side of the lobby's ``MatchRegistryService`` (``--lobby`` /
``WORDARENA_LOBBY``).

* **Registration and heartbeats.** ``RegisterMatchServer`` (retried with backoff until the lobby
  answers), then a ``Heartbeat`` every ``heartbeat_interval`` the lobby asked for, carrying the
  address, capacity and load (active matches, streams, draining). A lobby that forgot the server
  (NOT_FOUND, e.g. after losing its database) gets a new registration. On shutdown a last
  heartbeat says ``draining`` so the lobby stops sending matches at once.
* **Results.** Each finished match's ``ReportResultRequest`` is put in the outbox
  (``services.match.results``) when the match ends, and delivered by ``ReportResult`` until the
  lobby acknowledges it: retried with exponential backoff (with jitter, capped), surviving
  restarts because the outbox is in the database. The lobby coming back ends every wait: once a
  call to the lobby succeeds (a heartbeat, a registration, a report) after one failed, every
  waiting report is due at once, however long its back-off had grown. The heartbeat is the probe:
  while the lobby does not answer it is retried at least every heartbeat interval. The lobby is
  idempotent by match id, so a report delivered twice is recorded once. A report the lobby
  refuses as inconsistent (INVALID_ARGUMENT, FAILED_PRECONDITION) is marked ``refused`` and
  logged, not retried.
* **Locations.** Every running match this server rebuilds from its log — taken over from a dead
  or drained server, or recovered after its own restart — is reported with
  ``ReportMatchLocation`` (match id, server id, advertised address), so that the lobby's
  ``LocateMatch`` and ``ListMyMatches`` send players here. Retried with the same backoff as
  results until acknowledged, while this server still owns the match (a report for a match it
  has lost since is dropped: the new owner reports its own). Pending location reports live in
  memory only: after a crash the restarted server (or the next owner) recovers the match and
  reports again. NOT_FOUND (a match the lobby never allocated, e.g. created by hand) and the
  permanent codes drop the report with a log line.

Authentication: the shared service token (``--service-token``) when configured, else a service
JWT signed with the configured private key.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from typing import Any

import grpc

from wordarena.services.common import auth, logs
from wordarena.services.match import metrics, wallclock
from wordarena.services.match.results import ResultOutbox, build_report, facts_of
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import control_pb2_grpc as ctl_grpc

log = logs.get_logger(__name__)

PERMANENT = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION)
SWEEP_WINDOW_S = 2 * 86400.0
#: How often a running server also sweeps (see ``_sweep_if_due``).
SWEEP_EVERY_S = 60.0
VERSION = "wordarena-match/1"
#: The lobby channel's longest wait between two connection attempts (gRPC's default is 120 s): a
#: lobby that comes back after a long outage is reached within this.
RECONNECT_MAX_MS = 5000


class LobbyLink:
    """Registers with the lobby, heartbeats, and delivers the result outbox."""

    def __init__(self, lobby: str, manager: Any, outbox: ResultOutbox, *, service_token: str = "",
                 keys: auth.TokenKeys | None = None, retry_base: float = 1.0, retry_max: float = 300.0,
                 rpc_timeout: float = 10.0, sweep_every: float = SWEEP_EVERY_S) -> None:
        self.lobby = lobby
        self.manager = manager
        self.outbox = outbox
        self.web_url = ""  # where browsers reach this server's web port (told at registration)
        self.service_token = service_token
        self.keys = keys
        self.retry_base = retry_base
        self.retry_max = retry_max
        self.rpc_timeout = rpc_timeout
        self.sweep_every = sweep_every
        self._swept_at = time.monotonic()
        self.heartbeat_interval = 5.0
        self.registered = asyncio.Event()
        self._wake = asyncio.Event()
        self._channel: grpc.aio.Channel | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._jwt: tuple[str, float] = ("", 0.0)
        self._stopping = False
        #: A call to the lobby failed since the last one that succeeded.
        self._lobby_failed = False
        #: Location reports waiting for the lobby: match id -> (attempts so far, due time).
        self.locations: dict[str, tuple[int, float]] = {}

    # --- plumbing --------------------------------------------------------------------------

    def _metadata(self) -> list[tuple[str, str]]:
        if self.service_token:
            return [("authorization", f"Bearer {self.service_token}")]
        tok, exp = self._jwt
        if exp - time.time() < 60 and self.keys is not None:
            try:
                tok = self.keys.issue(self.manager.server_id, "match server", 3600, kind="service")
            except ValueError as exc:  # no signing key and no service token: the lobby will refuse
                log.error("no credentials for the lobby: set --service-token", error=str(exc))
                return []
            self._jwt = (tok, time.time() + 3600)
        return [("authorization", f"Bearer {tok}")] if tok else []

    @property
    def stub(self) -> ctl_grpc.MatchRegistryServiceStub:
        if self._channel is None:
            self._channel = grpc.aio.insecure_channel(
                self.lobby, options=[("grpc.max_reconnect_backoff_ms", RECONNECT_MAX_MS)])
        return ctl_grpc.MatchRegistryServiceStub(self._channel)

    def _backoff(self, attempt: int) -> float:
        delay = min(self.retry_max, self.retry_base * (2 ** min(max(attempt - 1, 0), 20)))
        return delay * random.uniform(0.5, 1.0)

    async def _answered(self) -> None:
        """A call to the lobby succeeded. After a failure, the lobby is back: every waiting result
        and location report is due now (its back-off grown while the lobby was away ends)."""
        if not self._lobby_failed:
            return
        self._lobby_failed = False
        try:
            due = await self.outbox.retry_now()
        except Exception as exc:  # database hiccup: the reports keep their schedule
            log.warning("could not reschedule the waiting results", error=repr(exc))
            due = 0
        for match_id in list(self.locations):
            self.locations[match_id] = (0, 0.0)
        if due or self.locations:
            log.info("the lobby answers again: sending the waiting reports now", results=due,
                     locations=len(self.locations))
        self._wake.set()

    # --- life cycle --------------------------------------------------------------------------

    async def start(self) -> None:
        """Hook into the manager, queue results missed by a crash, start the background loops."""
        self.manager.on_finished = self.match_finished
        self.manager.on_recovered = self.match_recovered
        try:
            added = await self.outbox.sweep(self.manager.server_id, wallclock.now() - SWEEP_WINDOW_S)
            if added:
                log.info("queued results of matches that ended before a restart", count=added)
        except Exception as exc:  # pragma: no cover - logged; the matches' results wait
            log.error("result sweep failed", error=repr(exc))
        # One registration attempt now, so that a server that says it is ready is usually known
        # to the lobby already; failures are retried by the loop.
        with contextlib.suppress(grpc.RpcError, asyncio.TimeoutError):
            await asyncio.wait_for(self.register(), timeout=min(self.rpc_timeout, 3.0))
        self._tasks = [asyncio.create_task(self._registry_loop()), asyncio.create_task(self._report_loop())]

    async def stop(self, final_heartbeat: bool = True) -> None:
        """Stop the loops; tell the lobby this server is draining (best effort)."""
        self._stopping = True
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        if final_heartbeat and self.registered.is_set():
            load = self.manager.load_pb()
            load.draining = True
            with contextlib.suppress(grpc.RpcError, asyncio.TimeoutError):
                await self.stub.Heartbeat(ctl.HeartbeatRequest(
                    server_id=self.manager.server_id, load=load, address=self.manager.address),
                    metadata=self._metadata(), timeout=2.0)
        if self._channel is not None:
            await self._channel.close()
            self._channel = None

    # --- registration and heartbeats ---------------------------------------------------------

    async def register(self) -> None:
        """RegisterMatchServer once (raises ``grpc.RpcError``)."""
        resp = await self.stub.RegisterMatchServer(ctl.RegisterMatchServerRequest(
            server_id=self.manager.server_id, address=self.manager.address, load=self.manager.load_pb(),
            version=VERSION, web_url=self.web_url), metadata=self._metadata(), timeout=self.rpc_timeout)
        if resp.HasField("heartbeat_interval"):
            secs = resp.heartbeat_interval.ToTimedelta().total_seconds()
            if secs > 0:
                self.heartbeat_interval = min(max(secs, 0.05), 60.0)
        self.registered.set()
        log.info("registered with the lobby", lobby=self.lobby, address=self.manager.address)
        await self._answered()

    async def _registry_loop(self) -> None:
        attempt = 0
        while True:
            try:
                if not self.registered.is_set():
                    await self.register()
                    attempt = 0
                await asyncio.sleep(self.heartbeat_interval)
                await self.stub.Heartbeat(ctl.HeartbeatRequest(
                    server_id=self.manager.server_id, load=self.manager.load_pb(),
                    address=self.manager.address), metadata=self._metadata(), timeout=self.rpc_timeout)
                attempt = 0
                await self._answered()
            except grpc.RpcError as err:
                code = err.code() if isinstance(err, grpc.aio.AioRpcError) else None
                if code == grpc.StatusCode.NOT_FOUND:
                    self.registered.clear()
                    continue
                attempt += 1
                self._lobby_failed = True
                log.warning("lobby registry call failed", lobby=self.lobby, code=str(code), attempt=attempt)
                # At least every heartbeat interval: this call notices the lobby's return.
                await asyncio.sleep(min(self._backoff(attempt), self.heartbeat_interval))

    # --- results -----------------------------------------------------------------------------

    def match_finished(self, rt: Any) -> None:
        """``MatchManager.on_finished``: queue the match's result and wake the sender."""
        report = build_report(facts_of(rt), self.manager.server_id)
        if report is None:
            return
        task = asyncio.create_task(self._enqueue(report))
        self._tasks.append(task)
        task.add_done_callback(lambda t: self._tasks.remove(t) if t in self._tasks else None)

    async def _enqueue(self, report: ctl.ReportResultRequest) -> None:
        try:
            await self.outbox.enqueue(report)
        except Exception as exc:  # e.g. a connection the database ended while this server was frozen
            log.warning("result not stored in the outbox yet; the next sweep queues it",
                        match_id=report.match_id, error=repr(exc))
            return
        self._wake.set()

    async def deliver_due(self) -> int:
        """Send every due report once. Returns how many the lobby acknowledged."""
        acked = 0
        for due in await self.outbox.claim_due(hold_seconds=max(self.rpc_timeout * 3, 5.0)):
            try:
                resp = await self.stub.ReportResult(due.report, metadata=self._metadata(),
                                                    timeout=self.rpc_timeout)
            except grpc.RpcError as err:
                code = err.code() if isinstance(err, grpc.aio.AioRpcError) else grpc.StatusCode.UNKNOWN
                detail = err.details() if isinstance(err, grpc.aio.AioRpcError) else repr(err)
                if code in PERMANENT:
                    log.error("the lobby refused a match result", match_id=due.match_id, code=code.name,
                              error=detail)
                    await self.outbox.settle(due.match_id, "refused", f"{code.name}: {detail}")
                    metrics.RESULTS_REPORTED.labels("refused").inc()
                else:
                    self._lobby_failed = True
                    delay = self._backoff(due.attempts)
                    log.warning("result not delivered; retrying", match_id=due.match_id, code=code.name,
                                error=detail, attempt=due.attempts, retry_in=round(delay, 2))
                    await self.outbox.retry_at(due.match_id, wallclock.now() + delay,
                                               f"{code.name}: {detail}")
                    metrics.RESULTS_REPORTED.labels("retry").inc()
                continue
            await self.outbox.settle(due.match_id, "acked")
            await self._answered()
            metrics.RESULTS_REPORTED.labels("already" if resp.already_recorded else "acked").inc()
            log.info("result reported", match_id=due.match_id, already_recorded=resp.already_recorded)
            acked += 1
        return acked

    # --- locations ---------------------------------------------------------------------------

    def match_recovered(self, rt: Any, reason: str) -> None:
        """``MatchManager.on_recovered``: report the match's new location (now, then retried)."""
        self.locations[rt.match_id] = (0, 0.0)
        self._wake.set()

    async def deliver_locations(self) -> int:
        """Send every due location report once. Returns how many the lobby acknowledged."""
        acked = 0
        now = wallclock.now()
        for match_id, (attempts, due) in list(self.locations.items()):
            if due > now:
                continue
            if match_id not in self.manager.matches:  # lost (or finished and unloaded) since
                self.locations.pop(match_id, None)
                continue
            try:
                await self.stub.ReportMatchLocation(ctl.ReportMatchLocationRequest(
                    match_id=match_id, server_id=self.manager.server_id, address=self.manager.address),
                    metadata=self._metadata(), timeout=self.rpc_timeout)
            except grpc.RpcError as err:
                code = err.code() if isinstance(err, grpc.aio.AioRpcError) else grpc.StatusCode.UNKNOWN
                detail = err.details() if isinstance(err, grpc.aio.AioRpcError) else repr(err)
                if code in (*PERMANENT, grpc.StatusCode.NOT_FOUND):
                    log.warning("the lobby refused a match location", match_id=match_id, code=code.name,
                                error=detail)
                    self.locations.pop(match_id, None)
                    metrics.LOCATIONS_REPORTED.labels("refused").inc()
                else:
                    self._lobby_failed = True
                    delay = self._backoff(attempts + 1)
                    log.warning("match location not delivered; retrying", match_id=match_id,
                                code=code.name, error=detail, attempt=attempts + 1, retry_in=round(delay, 2))
                    if match_id in self.locations:
                        self.locations[match_id] = (attempts + 1, wallclock.now() + delay)
                    metrics.LOCATIONS_REPORTED.labels("retry").inc()
                continue
            # A newer recovery of the same match (lost and taken back) queued a fresh report.
            if self.locations.get(match_id) == (attempts, due):
                self.locations.pop(match_id, None)
            metrics.LOCATIONS_REPORTED.labels("acked").inc()
            await self._answered()
            log.info("match location reported", match_id=match_id, address=self.manager.address)
            acked += 1
        return acked

    async def _sweep_if_due(self) -> None:
        """Every ``sweep_every`` seconds, queue the results of finished matches that have none (the
        start-up sweep, again): a server that died between a match's final commit and its outbox
        write, and never came back, leaves such a match, and no server takes a finished match
        over. Queueing is idempotent (one outbox row per match), so a sweep racing the owner's
        own queueing is harmless."""
        if time.monotonic() - self._swept_at < self.sweep_every:
            return
        self._swept_at = time.monotonic()
        added = await self.outbox.sweep(self.manager.server_id, wallclock.now() - SWEEP_WINDOW_S)
        if added:
            log.warning("queued results of finished matches nobody had reported", count=added)

    async def _report_loop(self) -> None:
        while True:
            self._wake.clear()
            pending = 1
            try:
                await self._sweep_if_due()
                await self.deliver_locations()
                await self.deliver_due()
                results_pending = await self.outbox.pending()
                metrics.RESULTS_PENDING.set(results_pending)
                pending = results_pending + len(self.locations)
            except Exception as exc:  # database hiccup: try again shortly
                log.warning("result delivery step failed", error=repr(exc))
            # Poll while reports wait for a retry; otherwise sleep until a match ends (or the next sweep).
            idle = min(self.retry_base, 1.0) if pending else min(30.0, self.sweep_every)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=idle)


def make_link(lobby: str, manager: Any, outbox: ResultOutbox, settings: Any, keys: auth.TokenKeys,
              **kw: Any) -> LobbyLink:
    """A ``LobbyLink`` from the server's settings."""
    return LobbyLink(lobby, manager, outbox, service_token=settings.service_token, keys=keys, **kw)


__all__ = ["LobbyLink", "make_link"]
