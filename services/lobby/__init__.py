"""The lobby server: players, tables, matchmaking, allocation, records, leaderboards.

Layers, outside in (only ``api`` and ``match_control`` know gRPC; only ``store`` and
``tournaments.rows`` hold SQL):

* ``main``          ``wordarena-lobby``: builds and runs the server; ``dev-token`` (``devtoken``)
* ``api``           the servicers (LobbyService, TournamentService, MatchRegistryService): read the
                    caller and request, one call into the parts below, build the answer; the one mapping of
                    ``LobbyError`` to a gRPC status
* ``convert``       contract messages ⇄ the lobby's plain objects
* ``app``           ``Lobby``: the parts put together, life cycle, background loop, housekeeping
* ``accounts``      guests, claimed accounts, sign-in throttle, tokens, who is online
* ``table_cache``   each process's copy of the live tables, kept in step across lobbies; watchers
* ``table_ops``     open, join, leave, seat bots, start, expire
* ``allocation``    a match on the least-loaded healthy match server; withdrawn matches aborted
* ``match_control`` the client of the match servers' MatchControlService
* ``quickmatch``    the quick-match queue and its matchmaking steps
* ``standings``     results, records, leaderboards, a player's matches
* ``registry``      registered match servers and their gauges
* ``tournaments``   everything of tournaments but their servicer (``api.tournament``): their
                    rows (``rows``: every SQL statement about tournaments), the pure rules
                    (``config``, ``entities``, ``pairing``, ``plan``, ``ranking``, ``archive``:
                    standings CSV, records zip) and
                    the actions (``service``: create, read, watch, register, check in;
                    ``director``: start, pause, pair by hand, results, forfeits…; ``runner``: pairing
                    what is due, creating the games' matches, recording their results; ``export``:
                    fetching the games' records); see docs/tournaments.md
* ``store``         every SQL statement (a package: one module per kind of row)
* ``open_limits``   how many tables and tournaments one account or address may keep open
* pure rules: ``tables`` (a table's life), ``matchmaking`` (grouping tickets), ``records``
  (outcomes and records), ``glicko2`` (ratings), ``names`` (allowed display names, impersonation;
  with ``confusables``, Unicode's look-alike skeletons), ``passwords`` (hashes, length rules),
  ``settings`` (table settings checked against the rulesets)
* ``errors`` (``LobbyError``, ``Status``), ``options`` (``LobbyOptions``), ``metrics``, ``models``
"""
