"""The lobby's own Prometheus metrics (``wordarena_*``); the ``grpc_server_*`` family comes from
``services.common.metrics``."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

__all__ = [
    "ALLOCATIONS",
    "MATCH_ABORTS",
    "MATCH_CAPACITY",
    "MATCH_LOAD",
    "MATCH_SERVERS",
    "MM_WAIT",
    "PLAYERS_ONLINE",
    "SERVER_STATES",
    "STALE_WINDOW_S",
    "TABLES_OPEN",
    "TICKETS_DELETED",
]

TABLES_OPEN = Gauge("wordarena_tables_open", "Tables open (waiting for players).")
PLAYERS_ONLINE = Gauge("wordarena_players_online", "Players seen in the last 5 minutes.")
MM_WAIT = Histogram(
    "wordarena_matchmaking_wait_seconds",
    "Time from QuickMatch to an assignment.",
    buckets=(0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 900),
)
ALLOCATIONS = Counter(
    "wordarena_allocations_total",
    "Match allocations, by result (ok, no_capacity, failed, withdrawn: created, but a quick-match "
    "ticket of the group was cancelled before the match was committed).",
    ["result"],
)
MATCH_ABORTS = Counter(
    "wordarena_match_aborts_total",
    "AbortMatch calls for withdrawn allocations, by outcome: aborted (or already aborted), refused "
    "(NOT_FOUND, FAILED_PRECONDITION or UNIMPLEMENTED: not retried), retry (failed; tried again "
    "later), given_up (failed at the last attempt).",
    ["result"],
)
TICKETS_DELETED = Counter(
    "wordarena_tickets_deleted_total",
    "Closed quick-match tickets (cancelled, expired, matched) deleted after the retention.",
)
#: States of registered match servers in ``wordarena_match_servers``.
SERVER_STATES = ("healthy", "stale", "draining")
#: A server silent for longer than this is forgotten by ``wordarena_match_servers`` (not stale).
STALE_WINDOW_S = 3600.0
MATCH_SERVERS = Gauge(
    "wordarena_match_servers",
    "Registered match servers by state: healthy (heartbeat within --server-ttl, not draining), "
    "draining (heartbeat within --server-ttl, draining), stale (last heartbeat older than "
    "--server-ttl, within the last hour).",
    ["state"],
)
MATCH_CAPACITY = Gauge(
    "wordarena_match_capacity", "Matches the healthy match servers accept in total (their reported capacity)."
)
MATCH_LOAD = Gauge(
    "wordarena_match_load", "Matches in progress on the healthy match servers (their reported load)."
)
for _state in SERVER_STATES:
    MATCH_SERVERS.labels(_state)
