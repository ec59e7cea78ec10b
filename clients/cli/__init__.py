"""The reference client: the ``wordarena`` command.

* the command
  * ``main``            ``wordarena``: the entry point, importing only the module of the command it runs
  * ``common``          what the networked sub-commands share: options, exit codes, printing results
  * ``errors``          a failed gRPC call in plain words, with its exit code (``ClientError``)
  * ``safe``            untrusted text made safe to print: the one function every server string goes through
* talking to the servers
  * ``client``          the client library: channels, bearer tokens, typed wrappers of the lobby and match
    services
  * ``config``          the config file: the signed-in identity per lobby, known match addresses
  * ``follow``          a match's event stream followed: reconnect, resume with ``after_seq``
  * ``moves``           moves typed the way players write them (``8H WORD``, ``H8 @bomb``) → contract messages
* sub-commands (``*_cmd``)
  * ``play_cmd``        ``play`` (sign in, find a game, play it) and ``watch`` (spectate)
  * ``match_cmd``       match scripting: ``move``, ``pass``, ``state``, ``stream``, ``hindsight``, ``chat`` …
  * ``table_cmd``       lobby scripting: ``login``, ``table …``, ``quickmatch``, ``matches``, ``leaderboard``
  * ``tournament_cmd``  ``tournament …`` for players and directors
  * ``records_cmd``     ``record`` (a match's GCG record) and ``player-record``
  * ``rules_cmd``       ``rules list|describe``: the rulesets and what each is
  * ``analyze_cmd``     ``analyze``: every legal move of a CGP position, best first
  * ``gcg_cmd``         ``gcg check|hindsight|replay`` of GCG records
  * ``replay_cmd``      ``replay FILE.gcg``: step through a record on the board, locally
  * ``lexicon_cmd``     ``lexicon build|info|check``
  * ``selfplay_cmd``    ``selfplay``: two bot levels play a series
  * ``serve_cmd``       ``serve``: a lobby and a match server on this machine
* the game screen
  * ``screen``          the interactive screen of ``play`` and ``watch``: stream thread, redraws, input line
  * ``render``          drawing a match with ``rich``: board, rack, seats, clocks, last moves, result
  * ``movelog``         the move log in words, and a play's score breakdown
  * ``legend``          what each symbol on the board and each action tile on the rack means
  * ``effects``         War of Words' lasting effects on the board and in the combat log
  * ``actions``         War of Words action tiles as typed (``@bomb``) and as drawn (``Bm``)
  * ``clocks``          clocks and deadlines as the screen shows them, counting down between redraws
"""
