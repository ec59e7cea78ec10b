"""Tournaments: tournaments, entrants, paired rounds, games (with their results), director log.

Revision ID: l0006
Revises: l0004 (another helper adds l0005; re-chained at merge)
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "l0006"
down_revision = "l0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lobby_tournaments",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
    )
    op.create_index("ix_lobby_tournaments_status", "lobby_tournaments", ["status"])
    op.create_index("ix_lobby_tournaments_created_at", "lobby_tournaments", ["created_at"])
    op.create_table(
        "lobby_tournament_entrants",
        sa.Column("tournament_id", sa.String(64), primary_key=True),
        sa.Column("entrant_id", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("display_name", sa.String(64), nullable=False),
        sa.Column("bot_level", sa.Integer(), nullable=False),
        sa.Column("guest", sa.Boolean(), nullable=False),
        sa.Column("division", sa.String(32), nullable=False),
        sa.Column("seed_rating", sa.Float(), nullable=False),
        sa.Column("checked_in", sa.Boolean(), nullable=False),
        sa.Column("withdrawn", sa.Boolean(), nullable=False),
        sa.Column("registered_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_lobby_tournament_entrants_player_id", "lobby_tournament_entrants", ["player_id"])
    op.create_table(
        "lobby_tournament_rounds",
        sa.Column("tournament_id", sa.String(64), primary_key=True),
        sa.Column("division", sa.String(32), primary_key=True),
        sa.Column("round", sa.Integer(), primary_key=True),
        sa.Column("method", sa.String(32), nullable=False),
        sa.Column("paired_at", sa.Float(), nullable=False),
    )
    op.create_table(
        "lobby_tournament_games",
        sa.Column("tournament_id", sa.String(64), primary_key=True),
        sa.Column("division", sa.String(32), primary_key=True),
        sa.Column("round", sa.Integer(), primary_key=True),
        sa.Column("pairing", sa.Integer(), primary_key=True),
        sa.Column("game", sa.Integer(), primary_key=True),
        sa.Column("first_id", sa.String(64), nullable=False),
        sa.Column("second_id", sa.String(64), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("address", sa.String(256), nullable=False),
        sa.Column("first_score", sa.Integer(), nullable=False),
        sa.Column("second_score", sa.Integer(), nullable=False),
        sa.Column("first_result", sa.String(8), nullable=True),
        sa.Column("forfeit", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_lobby_tournament_games_status", "lobby_tournament_games", ["status"])
    op.create_index("ix_lobby_tournament_games_match_id", "lobby_tournament_games", ["match_id"])
    op.create_table(
        "lobby_tournament_log",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.String(64), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("director_id", sa.String(64), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
    )
    op.create_index("ix_lobby_tournament_log_tournament_id", "lobby_tournament_log", ["tournament_id"])


def downgrade() -> None:
    for t in (
        "lobby_tournament_log",
        "lobby_tournament_games",
        "lobby_tournament_rounds",
        "lobby_tournament_entrants",
        "lobby_tournaments",
    ):
        op.drop_table(t)
