"""The match server: authoritative, event-sourced matches served over gRPC (MatchService and the
internal MatchControlService). See ``main`` for the console script ``wordarena-match``.

Modules, in the order a turn meets them (``manager``'s docstring follows one through):

- ``service``: the MatchService servicer (authenticate, read the request, one manager call,
  answer); ``control``: the lobby's MatchControlService servicer;
- ``moves``: a contract ``Move`` read into an engine action;
- ``manager``: owns the matches; the per-match lock and the turn path (``play``, ``commit``,
  ``settle``);
- ``core/``: the pure core: an immutable ``Match``, typed commands carrying ``now``, and
  ``decide`` (admission, clocks, kicks, chat limits, the game through the engine), no I/O;
- ``admission``: the core's refusals as the contract answers them;
- ``eventlog``: engine events → stored events, append, install, rebuild from the log;
- ``projection``: stored events and state as one viewer may see them;
- ``streams``: StreamMatch subscribers (publish, cut-off, close);
- ``clocks``: the seat to move's timer and time-outs; ``bots``: bot seats' turns, thought out in
  ``botworkers`` (the pool of worker processes) by ``botprocess`` (what runs inside one);
- ``leases``: ownership, lease renewal and take-over; ``creation``: CreateMatch's request read;
- ``runtime``: one match in memory; ``views``: contract messages of engine values;
- ``analysis``, ``define``: the analysis RPCs' engine work and WordNet definitions;
- ``results``, ``lobby_link``: result reports and the lobby connection; ``store``, ``models``:
  storage; ``metrics``: the ``wordarena_*`` metrics.
"""
