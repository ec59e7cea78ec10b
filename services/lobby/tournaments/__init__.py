"""Tournaments: everything of them but their servicer (``services.lobby.api.tournament``); see
docs/tournaments.md.

* pure rules (no I/O)
  * ``config``    tournament settings, validated, and their JSON form
  * ``entities``  plain values shared by the plan, the rows and the actions
  * ``pairing``   pairing methods: standings and history → one round's pairings
  * ``plan``      what a division does next: pair the next round, add a best-of-N game, tell when
    a round or the division is over
  * ``ranking``   standings: the games played → a ranked table
  * ``archive``   standings as CSV, the games' records as a zip
* storage
  * ``rows``      every SQL statement about tournaments: rows, entrants, rounds, games, director log
* actions
  * ``service``   create, read, watch, register, unregister, check in
  * ``director``  the directors' actions: start, pause, pair by hand, results, forfeits, entrants
  * ``runner``    pairing what is due, creating the games' matches, recording their results
  * ``export``    fetching the games' records from the match servers (``ExportGames``)
"""
