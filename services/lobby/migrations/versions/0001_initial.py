"""Initial lobby schema: players, tables, match servers, matches, seats, records, requests.

Revision ID: l0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "l0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lobby_players",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("display_name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(96), nullable=False),
        sa.Column("guest", sa.Boolean(), nullable=False),
        sa.Column("password_hash", sa.String(256), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("last_seen", sa.Float(), nullable=False),
    )
    op.create_index("ix_lobby_players_name_key", "lobby_players", ["name_key"])
    op.create_index("ix_lobby_players_last_seen", "lobby_players", ["last_seen"])
    op.create_table(
        "lobby_tables",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_lobby_tables_status", "lobby_tables", ["status"])
    op.create_table(
        "lobby_match_servers",
        sa.Column("id", sa.String(128), primary_key=True),
        sa.Column("address", sa.String(256), nullable=False),
        sa.Column("capacity", sa.Integer(), nullable=False),
        sa.Column("active", sa.Integer(), nullable=False),
        sa.Column("draining", sa.Boolean(), nullable=False),
        sa.Column("version", sa.String(64), nullable=False),
        sa.Column("last_heartbeat", sa.Float(), nullable=False),
        sa.Column("registered_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_lobby_match_servers_last_heartbeat", "lobby_match_servers", ["last_heartbeat"])
    op.create_table(
        "lobby_matches",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("ruleset_id", sa.String(32), nullable=False),
        sa.Column("language", sa.String(16), nullable=False),
        sa.Column("board_id", sa.String(64), nullable=False),
        sa.Column("server_id", sa.String(128), nullable=False),
        sa.Column("address", sa.String(256), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("ended_at", sa.Float(), nullable=True),
        sa.Column("reason", sa.Integer(), nullable=False),
        sa.Column("result_hash", sa.String(64), nullable=True),
    )
    op.create_index("ix_lobby_matches_active", "lobby_matches", ["active"])
    op.create_table(
        "lobby_match_seats",
        sa.Column("match_id", sa.String(64), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("display_name", sa.String(64), nullable=False),
        sa.Column("bot_level", sa.Integer(), nullable=False),
        sa.Column("guest", sa.Boolean(), nullable=False),
        sa.Column("ruleset_id", sa.String(32), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("outcome", sa.Integer(), nullable=False),
        sa.Column("score_counts", sa.Boolean(), nullable=False),
        sa.Column("recorded", sa.Boolean(), nullable=False),
        sa.Column("margin", sa.Float(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("ended_at", sa.Float(), nullable=True),
    )
    op.create_index("ix_lobby_match_seats_player_id", "lobby_match_seats", ["player_id"])
    op.create_index("ix_lobby_match_seats_ruleset_id", "lobby_match_seats", ["ruleset_id"])
    op.create_index("ix_lobby_match_seats_ended_at", "lobby_match_seats", ["ended_at"])
    op.create_table(
        "lobby_records",
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("ruleset_id", sa.String(32), primary_key=True),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("ties", sa.Integer(), nullable=False),
        sa.Column("scored_games", sa.Integer(), nullable=False),
        sa.Column("score_sum", sa.Integer(), nullable=False),
        sa.Column("margin_sum", sa.Float(), nullable=False),
        sa.Column("best_score", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_lobby_records_rating", "lobby_records", ["rating"])
    op.create_table(
        "lobby_requests",
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("method", sa.String(32), primary_key=True),
        sa.Column("request_id", sa.String(64), primary_key=True),
        sa.Column("response", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_lobby_requests_created_at", "lobby_requests", ["created_at"])


def downgrade() -> None:
    for name in (
        "lobby_requests",
        "lobby_records",
        "lobby_match_seats",
        "lobby_matches",
        "lobby_match_servers",
        "lobby_tables",
        "lobby_players",
    ):
        op.drop_table(name)
