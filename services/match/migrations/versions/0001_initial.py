"""Initial schema: matches, match_events, match_requests.

Revision ID: m0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "m0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("ruleset_id", sa.String(128), nullable=False),
        sa.Column("seed", sa.String(32), nullable=False),
        sa.Column("seats", sa.Text(), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("create_request", sa.LargeBinary(), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False, server_default=""),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("owner", sa.String(128), nullable=False, server_default=""),
        sa.Column("lease_until", sa.Float(), nullable=False, server_default="0"),
        sa.Column("last_seq", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("ended_at", sa.Float(), nullable=True),
    )
    op.create_index("ix_matches_status", "matches", ["status"])
    op.create_index("ix_matches_owner", "matches", ["owner"])
    op.create_table(
        "match_events",
        sa.Column("match_id", sa.String(64), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("time", sa.Float(), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
    )
    op.create_table(
        "match_requests",
        sa.Column("match_id", sa.String(64), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("player_id", sa.String(128), primary_key=True),
        sa.Column("request_id", sa.String(64), primary_key=True),
        sa.Column("method", sa.String(32), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.Column("response", sa.LargeBinary(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("match_requests")
    op.drop_table("match_events")
    op.drop_index("ix_matches_owner", "matches")
    op.drop_index("ix_matches_status", "matches")
    op.drop_table("matches")
