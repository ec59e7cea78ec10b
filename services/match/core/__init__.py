"""The match server's pure core: what a match decides, with no I/O, no protobuf and no clock
reads (every command carries ``now``).

* ``match``     an immutable ``Match`` (what decisions read), its ``SeatInfo`` and ``Options``
* ``commands``  the typed commands (``Act``, ``Chat``, ``Expire``), each carrying ``now``
* ``decide``    ``decide(match, command) -> Decision | Repeat | Refusal``: admission (aborted,
  repeated request ids, ``expected_seq``), clock charging, kick rules and chat limits, and the
  game through the engine
* ``timing``    game clocks, per-turn and first-move deadlines, the time-out that is due
* ``refusals``  ``Refusal``, a typed "no" the shell turns into a gRPC status with details
* ``events``    the typed stored events (``MatchEvent``) and their versioned codec (``encode``,
  ``decode``)

The async shell (``services.match.manager``, ``services.match.service``) takes a ``Match``
snapshot of its ``Runtime`` under the match's lock, calls ``decide``, stores what was decided and
publishes it. Nothing here imports the shell, gRPC or the contract (import-linter:
``pyproject.toml``).
"""

from wordarena.services.match.core import timing
from wordarena.services.match.core.commands import Act, Chat, Expire
from wordarena.services.match.core.decide import ChatLimits, Decision, Repeat, decide
from wordarena.services.match.core.match import Match, Options, SeatInfo, controlled_seats
from wordarena.services.match.core.refusals import Refusal, Status

__all__ = [
    "Act", "Chat", "ChatLimits", "Decision", "Expire", "Match", "Options", "Refusal", "Repeat",
    "SeatInfo", "Status", "controlled_seats", "decide", "timing",
]
