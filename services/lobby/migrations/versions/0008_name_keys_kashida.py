"""Recompute the ``name_key`` of players whose names hold a kashida (the Arabic tatweel U+0640,
the N'Ko lajanyalan U+07FA, or an Arabic presentation form carrying a tatweel): the skeleton
(``names.name_skeleton``) now leaves kashidas out, since they only stretch a join. Without it,
such accounts would not be found by SignIn, and their names would not collide with the same
name written without the stretch.

Players whose names now share a key keep their names (the key is not unique); only new names
are refused. Downgrade leaves the keys as they are.

Revision ID: l0008
Revises: l0007
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from wordarena.services.lobby.names import NAME_KEY_MAX, name_skeleton

revision = "l0008"
down_revision = "l0007"
branch_labels = None
depends_on = None

_players = sa.table(
    "lobby_players",
    sa.column("id", sa.String),
    sa.column("display_name", sa.String),
    sa.column("name_key", sa.String),
)


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.select(_players.c.id, _players.c.display_name, _players.c.name_key)).all()
    for pid, name, key in rows:
        new = name_skeleton(name)[:NAME_KEY_MAX]
        if new != key:
            bind.execute(sa.update(_players).where(_players.c.id == pid).values(name_key=new))


def downgrade() -> None:
    pass
