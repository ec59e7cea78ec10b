"""Quick-match tickets in the database (several lobbies share one queue).

Revision ID: l0002
Revises: l0001
Create Date: 2027-01-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "l0002"
down_revision = "l0001"
branch_labels = None
depends_on = None

_WAITING = sa.text("status IN ('queued', 'matching')")


def upgrade() -> None:
    op.create_table(
        "lobby_tickets",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("display_name", sa.String(64), nullable=False),
        sa.Column("guest", sa.Boolean(), nullable=False),
        sa.Column("ruleset_id", sa.String(32), nullable=False),
        sa.Column("language", sa.String(16), nullable=False),
        sa.Column("board_id", sa.String(64), nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("bot_after_s", sa.Float(), nullable=True),
        sa.Column("bot_level", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("claimed_at", sa.Float(), nullable=True),
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("address", sa.String(256), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_lobby_tickets_player_id", "lobby_tickets", ["player_id"])
    op.create_index("ix_lobby_tickets_status", "lobby_tickets", ["status"])
    op.create_index("ix_lobby_tickets_created_at", "lobby_tickets", ["created_at"])
    op.create_index(
        "ux_lobby_tickets_waiting_player",
        "lobby_tickets",
        ["player_id"],
        unique=True,
        postgresql_where=_WAITING,
        sqlite_where=_WAITING,
    )


def downgrade() -> None:
    op.drop_table("lobby_tickets")
