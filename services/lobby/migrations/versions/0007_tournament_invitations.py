"""Tournament invitations: a director's AddEntrant of another player invites them
(``lobby_tournament_entrants.invited``) instead of entering them; nobody plays without consent.
Entrants added before this revision keep their places (not invited).

Revision ID: l0007
Revises: l0006
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "l0007"
down_revision = "l0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "lobby_tournament_entrants",
        sa.Column("invited", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_column("lobby_tournament_entrants", "invited")
