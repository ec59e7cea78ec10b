"""Fixtures of the lobby service tests (see ``lobby_harness``)."""

from lobby_harness import database_url, env, match_server  # noqa: F401
