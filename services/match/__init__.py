"""The match server: authoritative, event-sourced matches served over gRPC (MatchService and the
internal MatchControlService). See ``main`` for the console script ``wordarena-match``."""
