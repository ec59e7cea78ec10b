"""Lobby storage: every SQL statement of the lobby, one module per kind of row.

Every function takes a SQLModel ``Session`` and is blocking; the domain runs them through
``services.common.db.Database.run`` (off the event loop, one transaction each), composing several
in one transaction where a change must be atomic. The names below are the store's API
(``from wordarena.services.lobby import store; store.get_ticket``).

* ``base``      change notifications (``NOTIFY``) and batched clean-up deletes
* ``players``   accounts, names in use, the sign-in failure throttle
* ``tables``    table rows (a JSON document each)
* ``tickets``   the quick-match queue
* ``matches``   allocated matches, their seats and results
* ``records``   records and leaderboards
* ``servers``   the match-server registry
* ``requests``  first answers of idempotent requests
"""

from __future__ import annotations

from pathlib import Path

from wordarena.services.common.db import Database, run_migrations
from wordarena.services.lobby.store.base import TABLES_CHANNEL, TICKETS_CHANNEL, delete_unlocked, notify
from wordarena.services.lobby.store.matches import (
    get_match,
    locate_match,
    match_seats,
    move_match,
    player_matches,
    record_match,
    save_row,
)
from wordarena.services.lobby.store.players import (
    add_sign_in_failure,
    claimed_player,
    clear_sign_in_failures,
    count_sign_in_attempt,
    delete_expired_sign_in_failures,
    get_player,
    name_in_use,
    names_in_use,
    save_player,
    sign_in_failures,
    touch_player,
)
from wordarena.services.lobby.store.records import (
    leaderboard,
    lock_records,
    player_records,
    record_from_row,
    record_to_row,
    records_of,
    save_record,
)
from wordarena.services.lobby.store.requests import (
    PENDING,
    Stored,
    claim_request,
    drop_request,
    get_request,
    is_pending,
    put_request,
    renew_request,
    take_over_request,
)
from wordarena.services.lobby.store.servers import (
    count_active_matches,
    healthy_servers,
    heartbeat_server,
    register_server,
    servers_seen_since,
)
from wordarena.services.lobby.store.tables import (
    get_tables,
    load_tables,
    lock_table,
    save_table,
    stale_starting,
    table_from_json,
    table_to_json,
)
from wordarena.services.lobby.store.tickets import (
    CLOSED,
    MATCHING,
    add_ticket,
    cancel_ticket,
    claim_groups,
    delete_old_tickets,
    finish_group,
    get_ticket,
    hold_group,
    requeue_group,
    ticket_from_row,
    waiting_ticket,
)

MIGRATIONS = Path(__file__).parent.parent / "migrations"
VERSION_TABLE = "alembic_version_lobby"


def migrate(db: Database) -> None:
    """Brings the lobby schema to the latest migration (blocking; at start-up)."""
    run_migrations(db.engine, MIGRATIONS, VERSION_TABLE)


__all__ = [
    "CLOSED",
    "MATCHING",
    "MIGRATIONS",
    "PENDING",
    "TABLES_CHANNEL",
    "TICKETS_CHANNEL",
    "VERSION_TABLE",
    "Stored",
    "add_sign_in_failure",
    "add_ticket",
    "cancel_ticket",
    "claim_groups",
    "claim_request",
    "claimed_player",
    "clear_sign_in_failures",
    "count_active_matches",
    "count_sign_in_attempt",
    "delete_expired_sign_in_failures",
    "delete_old_tickets",
    "delete_unlocked",
    "drop_request",
    "finish_group",
    "get_match",
    "get_player",
    "get_request",
    "get_tables",
    "get_ticket",
    "healthy_servers",
    "heartbeat_server",
    "hold_group",
    "is_pending",
    "leaderboard",
    "load_tables",
    "locate_match",
    "lock_records",
    "lock_table",
    "match_seats",
    "migrate",
    "move_match",
    "name_in_use",
    "names_in_use",
    "notify",
    "player_matches",
    "player_records",
    "put_request",
    "record_from_row",
    "record_match",
    "record_to_row",
    "records_of",
    "register_server",
    "renew_request",
    "requeue_group",
    "save_player",
    "save_record",
    "save_row",
    "save_table",
    "servers_seen_since",
    "sign_in_failures",
    "stale_starting",
    "table_from_json",
    "table_to_json",
    "take_over_request",
    "ticket_from_row",
    "touch_player",
    "waiting_ticket",
]
