"""The lobby's tunables (``LobbyOptions``) and the fixed waits and windows behind them."""

from __future__ import annotations

from dataclasses import dataclass, field

from wordarena.services.lobby.passwords import FailureThrottle
from wordarena.services.lobby.settings import HOUSEKEEPING_INTERVAL_S, TICKET_RETENTION_S

__all__ = ["ABORT_RETRY_DELAYS_S", "ONLINE_WINDOW_S", "REQUEST_LEASE_S", "REQUEST_WAIT_S", "LobbyOptions"]

#: How long a repeated request waits for the first one (same request_id) to finish.
REQUEST_WAIT_S = 10.0
#: The lease of a claimed request: the lobby running it renews the claim every third of this;
#: a claim not renewed for this long (its lobby died mid-request) is taken over by a retry.
REQUEST_LEASE_S = 30.0
#: A player seen within this window counts as online (``wordarena_players_online``).
ONLINE_WINDOW_S = 300.0
#: AbortMatch of a withdrawn allocation is retried after these waits (about 13 minutes in all).
ABORT_RETRY_DELAYS_S = (1.0, 5.0, 30.0, 120.0, 600.0)


@dataclass
class LobbyOptions:
    """Tunables of the lobby (defaults as documented in lobby.proto). One instance is shared by
    every part of a lobby, so a change shows everywhere at once."""

    token_ttl_s: float = 30 * 24 * 3600.0
    service_token_ttl_s: float = 3600.0
    server_ttl_s: float = 15.0
    heartbeat_interval_s: float = 5.0
    table_expiry_s: float = 3600.0
    create_match_timeout_s: float = 10.0
    #: CreateMatch's deadline on a server while another could still take the match: a hung
    #: server (alive by its heartbeat, answering nothing) costs an allocation this, not the
    #: full ``create_match_timeout_s``.
    create_match_attempt_s: float = 2.0
    #: A server that let CreateMatch time out (or was unreachable) is tried last for this long.
    suspect_server_s: float = 30.0
    matchmaking_tick_s: float = 0.25
    watch_heartbeat_s: float = 30.0
    watch_queue_size: int = 256
    password_time_cost: int = 2
    password_memory_kib: int = 19 * 1024
    service_secret: str = ""
    #: PostgreSQL: full reload of the table cache this often (a safety net under NOTIFY).
    resync_s: float = 30.0
    #: PostgreSQL: ticket watchers re-read their ticket this often (a safety net under NOTIFY).
    ticket_poll_s: float = 1.0
    #: A table STARTING for longer than this (its lobby died while allocating) is opened again.
    starting_stale_s: float = 60.0
    #: A quick-match group claimed for longer than this (same) is queued again.
    ticket_reclaim_s: float = 120.0
    #: Closed tickets are deleted once closed this long (0 = never).
    ticket_retention_s: float = TICKET_RETENTION_S
    #: Housekeeping (the ticket clean-up) runs this often.
    housekeeping_s: float = HOUSEKEEPING_INTERVAL_S
    #: AbortMatch of a withdrawn allocation: waits before each retry (then it is given up).
    abort_retry_delays_s: tuple[float, ...] = ABORT_RETRY_DELAYS_S
    #: SignInGuest per client address (``--guest-sign-in-rate`` / ``--guest-sign-in-burst``):
    #: this many a second after a burst; over it RESOURCE_EXHAUSTED with RetryInfo.
    guest_sign_in_rate: float = 0.2
    guest_sign_in_burst: int = 20
    #: SignIn's failed-password throttle per (name, client address): free failures, then
    #: exponential backoff (``--sign-in-free-failures`` / ``--sign-in-max-wait``).
    sign_in_throttle: FailureThrottle = field(default_factory=FailureThrottle)
    #: Failed SignIns per client address over all names (password spraying), in each lobby's
    #: memory: this many a second after a burst; then SignIn from that address is refused.
    address_failure_rate: float = 0.1
    address_failure_burst: int = 30
    #: How long this lobby trusts that a guest token's player is still a guest (another lobby's
    #: ClaimAccount is seen within this; this lobby's own at once).
    guest_check_s: float = 2.0
    #: Open tables a player may sit at, and open (not finished) tournaments a player may have
    #: created, at once (``--max-open-tables`` / ``--max-open-tournaments``); the guests of one
    #: client address together may open ``..._per_guest_address`` (this lobby's count).
    max_open_tables: int = 5
    max_open_tables_per_guest_address: int = 30
    max_open_tournaments: int = 5
    max_open_tournaments_per_guest_address: int = 10
    #: Running tournaments are checked this often (pair what is due, create pending matches):
    #: what a lobby that died mid-round left undone is picked up by the next check.
    tournament_tick_s: float = 2.0
    #: A tournament watcher re-reads the tournament this often (changes made by other lobbies).
    tournament_poll_s: float = 1.0
