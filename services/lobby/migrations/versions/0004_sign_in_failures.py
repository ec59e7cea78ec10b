"""The sign-in failure throttle in the database (several lobbies share one limit).

Revision ID: l0004
Revises: l0003
Create Date: 2027-02-15
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "l0004"
down_revision = "l0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lobby_sign_in_failures",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("failures", sa.Text(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_lobby_sign_in_failures_expires_at", "lobby_sign_in_failures", ["expires_at"])


def downgrade() -> None:
    op.drop_table("lobby_sign_in_failures")
