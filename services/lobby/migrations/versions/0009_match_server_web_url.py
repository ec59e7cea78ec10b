"""Match servers' web URLs: where browsers reach each one over gRPC-Web
(``lobby_match_servers.web_url``, from RegisterMatchServerRequest.web_url; "" for none), which the
lobby's web port lists in /config.json.

Revision ID: l0009
Revises: l0008
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "l0009"
down_revision = "l0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "lobby_match_servers",
        sa.Column("web_url", sa.String(256), nullable=False, server_default=""),
    )


def downgrade() -> None:
    op.drop_column("lobby_match_servers", "web_url")
