"""The match server: authoritative, event-sourced matches served over gRPC (MatchService and the
internal MatchControlService). ``main`` is the console script ``wordarena-match``.

A turn goes servicer → manager (lock, snapshot) → core (``decide``) → event log (append, commit)
→ projection per viewer → publish → answer; ``manager``'s docstring follows one through.

* core: what a match decides, pure (no I/O, no protobuf, no clock reads)
  * ``core``        ``Match``, typed commands, ``decide``, timing, refusals, the typed stored events
* shell: requests in, decisions carried out
  * ``service``     the MatchService servicer: authenticate, read the request, one manager call, answer
  * ``control``     the MatchControlService servicer (lobby → match server): create, abort, load, drain
  * ``access``      who may see a match and act in it (viewer, acting seat)
  * ``moves``       a contract ``Move`` read into an engine action
  * ``creation``    CreateMatch's request read into domain values, each field checked
  * ``manager``     owns the matches: the per-match lock and the turn path (``play``, ``commit``, ``settle``)
  * ``runtime``     one match in memory (``Runtime``) and its snapshot for the core
  * ``admission``   the core's refusals as gRPC statuses with details
  * ``eventlog``    engine events → stored events: append, install in memory, rebuild from the log
  * ``streams``     StreamMatch subscribers: publish, cut-off, close
  * ``clocks``      the timer of the seat to move, and its time-outs
  * ``wallclock``   the server's clock and timers, the one seam a test replaces
  * ``chat``        who reads a match's chat
  * ``bots``        bot seats' turns, thought out in ``botworkers`` (the pool of worker processes) by
    ``botprocess`` (what runs inside one)
  * ``analysis``    the analysis RPCs' engine work (Hindsight, Word Strength, preview) as contract messages
  * ``quotas``      how much analysis a player may ask, and how many simulations may wait
  * ``define``      word definitions read from WordNet's files
  * ``records``     GetMatchRecord: a match's game record as GCG, as the caller may see it
* views: what one viewer is shown, as contract messages
  * ``projection``  a stored event as an ``Event``, the state as a ``MatchView``, the ``GameOver``
  * ``wire``        answers and stream messages as bytes, and the caches behind them (memory and CPU
    tricks live here alone)
  * ``sight``       what each viewer may see: the hidden-information rules (racks, bag, clouds)
  * ``messages``    a match's parts as contract messages (tiles, boards, breakdowns…), conversions only
  * ``combat_log``  War of Words' combat log in words, naming only the squares shown
* store
  * ``store``       the match row, the append-only event log, the requests' answers; group commit
  * ``models``      the tables (SQLModel); the schema is the Alembic migrations'
* a server among others
  * ``leases``      ownership of matches: lease renewal and take-over
  * ``orphans``     matches no lobby recorded, aborted
  * ``results``     each seat's outcome, the report the lobby records, the outbox that keeps it
  * ``lobby_link``  registration, heartbeats and result reports to the lobby
  * ``metrics``     the ``wordarena_*`` metrics
  * ``main``        ``wordarena-match``: flags, building and running the server
"""
