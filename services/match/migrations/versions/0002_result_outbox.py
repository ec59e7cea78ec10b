"""Result outbox: finished matches' results awaiting the lobby's acknowledgement.

Revision ID: m0002
Revises: m0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "m0002"
down_revision = "m0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "match_results",
        sa.Column("match_id", sa.String(64), primary_key=True),
        sa.Column("report", sa.LargeBinary(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False, server_default="pending"),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("next_attempt_at", sa.Float(), nullable=False, server_default="0"),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("acked_at", sa.Float(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=False, server_default=""),
    )
    op.create_index("ix_match_results_due", "match_results", ["state", "next_attempt_at"])


def downgrade() -> None:
    op.drop_index("ix_match_results_due", "match_results")
    op.drop_table("match_results")
