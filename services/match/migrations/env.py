"""Alembic environment of the match server. Run through ``services.match.store.migrate`` (which
passes a connection and the version table ``alembic_version_match``), or with the ``alembic``
command and ``-x url=...``."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

config = context.config
version_table = config.attributes.get("version_table") or config.get_main_option(
    "version_table", "alembic_version_match")
connection = config.attributes.get("connection")

if connection is not None:
    context.configure(connection=connection, version_table=version_table,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()
else:  # pragma: no cover - command-line use
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    engine = create_engine(url)
    with engine.begin() as conn:
        context.configure(connection=conn, version_table=version_table,
                          render_as_batch=conn.dialect.name == "sqlite")
        with context.begin_transaction():
            context.run_migrations()
