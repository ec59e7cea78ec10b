"""The lobby's gRPC servicers: the only part of the lobby that knows gRPC (with the client of
the match servers, ``services.lobby.match_control``).

* ``lobby``     ``LobbyServicer``: LobbyService, for clients
* ``registry``  ``RegistryServicer``: MatchRegistryService, for match servers
* ``tournament`` ``TournamentServicer``: TournamentService, for clients (``tournament_convert``:
  its messages)
* ``errors``    the one mapping of ``LobbyError`` to a gRPC status (``rpc``)
* ``requests``  reading requests: ids, pages, idempotent replay
"""

from __future__ import annotations

from wordarena.services.lobby.api.lobby import LobbyServicer
from wordarena.services.lobby.api.registry import RegistryServicer
from wordarena.services.lobby.api.tournament import TournamentServicer

__all__ = ["LobbyServicer", "RegistryServicer", "TournamentServicer"]
