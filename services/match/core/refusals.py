"""A typed "no": why a command is refused, in the contract's words but without its types. The
shell turns a ``Refusal`` into a gRPC status with its details (``services.match.admission``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from enum import Enum

from wordarena.engine.errors import Rule, RuleError
from wordarena.engine.game import Action, Exchange, GameState, Play
from wordarena.engine.warofwords.clouds import preview_allowed

__all__ = ["Refusal", "Status", "of_rule_error"]


class Status(Enum):
    """The kind of refusal; each answers as the gRPC status of the same name."""

    FAILED_PRECONDITION = "failed_precondition"
    INVALID_ARGUMENT = "invalid_argument"
    PERMISSION_DENIED = "permission_denied"
    RESOURCE_EXHAUSTED = "resource_exhausted"


@dataclass(frozen=True, slots=True)
class Refusal:
    """``code``: a ``RuleCode`` name without its prefix (``STALE``-like refusals carry ``stale``
    instead), or an engine rule (``Rule`` value) for the game's refusals; ``field``: the request
    field at fault (INVALID_ARGUMENT); ``violation``: the message of the attached RuleViolation
    when it differs from ``message``."""

    status: Status
    message: str
    code: str = ""
    field: str = ""
    violation: str = ""
    words: tuple[str, ...] = ()
    tiles: tuple[str, ...] = ()  # TILES_NOT_ON_RACK: what the rack lacks
    squares: tuple[tuple[int, int], ...] = ()  # DUPLICATE_SQUARE, SQUARE_OCCUPIED
    #: A stale ``expected_seq``: (the latest seq, the expected one, the game's seq).
    stale: tuple[int, int, int] | None = None
    retry_in: float | None = None  # RESOURCE_EXHAUSTED: seconds to wait (RetryInfo)
    retry_at: float | None = None  # KICK_TOO_EARLY: when the kick will be allowed
    quota: tuple[str, str] | None = None  # RESOURCE_EXHAUSTED for good: (subject, description)


#: The refusals that depend on what lies on the board (the others are about the rack or turn).
_BOARD_RULES = frozenset({Rule.SQUARE_BLOCKED, Rule.GAP, Rule.NOT_CONNECTED, Rule.NO_WORD,
                          Rule.WORD_NOT_IN_LEXICON, Rule.SQUARE_OCCUPIED})


def of_rule_error(exc: RuleError, state: GameState, action: Action) -> Refusal:
    """The refusal of the engine's ``exc`` of ``action`` on ``state``, naming what of the request
    is at fault where errors.proto promises it: the tiles the rack lacks (TILES_NOT_ON_RACK), the
    squares named twice (DUPLICATE_SQUARE) or already holding a tile (SQUARE_OCCUPIED). A play
    that reaches under a cloud is refused without its words or the engine's text, which would
    spell letters the player cannot see (``clouds.reads_under_a_cloud``)."""
    placements = action.placements if isinstance(action, Play) else ()
    if placements and exc.rule in _BOARD_RULES and not preview_allowed(state, placements):
        name = exc.code.replace("-", " ")
        return Refusal(Status.FAILED_PRECONDITION,
                       f"refused ({name}); the play reaches under a cloud, so its words are not shown",
                       exc.code)
    out = Refusal(Status.FAILED_PRECONDITION, str(exc), exc.code, words=tuple(exc.words))
    if exc.rule is Rule.TILES_NOT_ON_RACK and action.seat is not None:
        tokens = [p.token for p in placements] if isinstance(action, Play) else (
            list(action.tiles) if isinstance(action, Exchange) else [])
        missing = Counter(tokens) - Counter(state.racks[action.seat])
        return replace(out, tiles=tuple(sorted(missing.elements())))
    if exc.rule is Rule.DUPLICATE_SQUARE:
        named = Counter((p.row, p.col) for p in placements)
        return replace(out, squares=tuple(sq for sq, n in named.items() if n > 1))
    if exc.rule is Rule.SQUARE_OCCUPIED:
        layout = state.ruleset.board
        taken = {(p.row, p.col) for p in placements
                 if layout.in_bounds(p.row, p.col) and state.cells[p.row * layout.cols + p.col] is not None}
        return replace(out, squares=tuple(sorted(taken)))
    return out


