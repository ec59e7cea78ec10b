"""Fixtures of the lobby service tests (see ``lobby_harness``)."""

from lobby_harness import env, match_server, real_match_server  # noqa: F401
