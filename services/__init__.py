"""The servers: the lobby and the match servers, and what they share.

* ``lobby``   the lobby server: players, tables, matchmaking, allocation, tournaments, records
* ``match``   the match server: authoritative, event-sourced matches
* ``common``  plumbing both servers use: settings, logs, metrics, database, tokens, errors, gRPC-Web

The lobby and the match server never import each other (import-linter: ``pyproject.toml``).
"""
