"""An index on the tickets' ``updated_at``: housekeeping deletes closed tickets by age.

Revision ID: l0003
Revises: l0002
Create Date: 2027-02-01
"""

from __future__ import annotations

from alembic import op

revision = "l0003"
down_revision = "l0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_lobby_tickets_updated_at", "lobby_tickets", ["updated_at"])


def downgrade() -> None:
    op.drop_index("ix_lobby_tickets_updated_at", table_name="lobby_tickets")
