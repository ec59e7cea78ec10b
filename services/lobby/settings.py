"""Table settings, validated against the engine's rulesets.

The lobby never re-implements a rule: seat counts, languages, boards, clock bounds and per-turn
deadlines (``ClockRule.check_game_clock`` / ``check_turn_deadline``) come from
``engine.rulesets``. The lobby's own limits: bot levels 1..6 (``engine.bots.LEVELS``; 6 is the
hardest), bot think times 100..30000 ms (``engine.bots.simulation``), at least one human seat, and
challenge modes (instant for every family; Word Tiles also offers
"accept or check", its default).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from wordarena.engine.bots import HARDEST, LEVELS
from wordarena.engine.bots.simulation import THINK_MS_MAX, THINK_MS_MIN
from wordarena.engine.errors import EngineError
from wordarena.engine.families import get_ruleset
from wordarena.engine.rulesets import list_rulesets
from wordarena.engine.rulesets.model import Ruleset, WordCheck
from wordarena.services.common.rulesets import normalise_language
from wordarena.services.lobby.errors import LobbyError

__all__ = [
    "BOT_LEVEL_MAX",
    "BOT_LEVEL_MIN",
    "CHALLENGE_ACCEPT_OR_CHECK",
    "CHALLENGE_INSTANT",
    "HOUSEKEEPING_INTERVAL_S",
    "TICKET_RETENTION_S",
    "TableConfig",
    "catalog",
    "challenge_modes",
    "resolve_ruleset",
    "think_ms_problem",
    "validate_settings",
]

BOT_LEVEL_MIN, BOT_LEVEL_MAX = min(LEVELS), HARDEST
CHALLENGE_INSTANT = "instant"
CHALLENGE_ACCEPT_OR_CHECK = "accept_or_check"

#: Closed quick-match tickets (cancelled, expired, matched) are deleted once they have been closed
#: this long (``--ticket-retention`` / ``WORDARENA_TICKET_RETENTION``, seconds; 0 = keep them).
TICKET_RETENTION_S = 24 * 3600.0
#: How often each lobby runs its housekeeping (deleting old tickets, expired sign-in failures).
HOUSEKEEPING_INTERVAL_S = 60.0


@dataclass(frozen=True)
class TableConfig:
    """Validated table settings (the lobby's plain form of ``TableSettings``)."""

    ruleset_id: str
    language: str
    board_id: str
    seats: int
    challenge_mode: str = CHALLENGE_INSTANT
    clock_s: int = 0
    idle_kick_s: int = 0
    pass_and_play: bool = False
    unrated: bool = False
    spectators_allowed: bool = False
    bots: tuple[tuple[int, int], ...] = ()
    private: bool = False
    host_starts: bool = False
    #: The first-move deadline of the match (``MatchOptions.no_show_timeout``; tournaments' games).
    no_show_s: float = 0.0
    bot_think_ms: int = 0  # the table's bots' think time per move (0 = the server's default)
    bot_think: tuple[tuple[int, int], ...] = ()  # (seat, ms) of bots seated with their own
    extra: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def rated(self) -> bool:
        """True when the match counts towards records."""
        return not (self.unrated or self.pass_and_play)


@cache
def catalog() -> dict[str, dict[str, tuple[str, ...]]]:
    """``{ruleset_id: {language: boards (default first)}}`` from the engine's catalogue."""
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for entry in list_rulesets():
        boards = [entry["default_board"], *[b for b in entry["boards"] if b != entry["default_board"]]]
        out.setdefault(entry["family"], {})[entry["language"]] = tuple(boards)
    return out


def resolve_ruleset(
    ruleset_id: str, language: str = "", board_id: str = "", prefix: str = "ruleset", *, lookup: bool = False
) -> Ruleset:
    """The engine ruleset for a ruleset id / language (any case) / board (empty = defaults).

    Raises NOT_FOUND for an unknown ruleset id, INVALID_ARGUMENT (SETTINGS_INVALID) for a language
    or board the ruleset does not offer (NOT_FOUND too with ``lookup``: the catalogue is asked,
    not a setting chosen).
    """
    cat = catalog()
    if not ruleset_id:
        raise LobbyError.settings("ruleset_id is required", f"{prefix}.ruleset_id")
    if ruleset_id not in cat:
        raise LobbyError.not_found(
            f"unknown ruleset {ruleset_id[:40]!r}; known: {', '.join(sorted(cat))}", f"{prefix}.ruleset_id"
        )
    langs = cat[ruleset_id]
    lang = normalise_language(language) or "en"
    missing = LobbyError.not_found if lookup else LobbyError.settings
    if lang not in langs:
        raise missing(
            f"ruleset {ruleset_id} has no language {language[:20]!r}; offered: {', '.join(langs)}",
            f"{prefix}.language",
        )
    boards = langs[lang]
    board = board_id or boards[0]
    if board not in boards:
        raise missing(
            f"ruleset {ruleset_id} has no board {board_id[:40]!r}; offered: {', '.join(boards)}",
            f"{prefix}.board_id",
        )
    try:
        return get_ruleset(ruleset_id, lang, board)
    except EngineError as exc:  # pragma: no cover - catalogue and engine disagree
        raise LobbyError.settings(str(exc), prefix) from exc


def challenge_modes(rs: Ruleset) -> tuple[str, ...]:
    """Challenge modes a ruleset offers, the default first."""
    if rs.word_check == WordCheck.DEFERRED:
        return (CHALLENGE_ACCEPT_OR_CHECK, CHALLENGE_INSTANT)
    return (CHALLENGE_INSTANT,)


#: A first-move deadline (``MatchOptions.no_show_timeout``) is 0 (none) or this many seconds.
MIN_NO_SHOW_S = 5
MAX_WAIT_S = 7 * 86400


def validate_settings(
    *,
    ruleset_id: str,
    language: str = "",
    board_id: str = "",
    seats: int = 0,
    challenge_mode: str = "",
    clock_s: int | None = None,
    idle_kick_s: int | None = None,
    pass_and_play: bool = False,
    unrated: bool = False,
    spectators_allowed: bool = False,
    bots: tuple[tuple[int, int], ...] = (),
    private: bool = False,
    host_starts: bool = False,
    bot_think_ms: int = 0,
    bot_think: tuple[tuple[int, int], ...] = (),
    no_show_s: float = 0.0,
    prefix: str = "settings",
) -> TableConfig:
    """Validates table settings; returns the normalised config or raises ``LobbyError``.

    ``seats`` 0 means the ruleset's minimum; ``clock_s`` None/0 means the ruleset's default (Word
    Tiles: 10 minutes; others untimed); ``bots`` are (seat, level) pairs.
    """
    rs = resolve_ruleset(ruleset_id, language, board_id, f"{prefix}.ruleset")
    n = seats or rs.min_players
    if not rs.min_players <= n <= rs.max_players:
        allowed = (
            f"exactly {rs.min_players}"
            if rs.min_players == rs.max_players
            else f"{rs.min_players}..{rs.max_players}"
        )
        raise LobbyError.settings(f"{rs.name} is played by {allowed} players, not {n}", f"{prefix}.seats")
    modes = challenge_modes(rs)
    mode = challenge_mode or modes[0]
    if mode not in modes:
        raise LobbyError.settings(
            f"{rs.name} offers challenge modes {', '.join(modes)}, not {mode}",
            f"{prefix}.options.challenge_mode",
        )
    clock = int(clock_s or 0)
    if clock < 0:
        raise LobbyError.settings("clock must not be negative", f"{prefix}.options.clock.per_player")
    clock = clock or rs.clock.default
    why = rs.clock.check_game_clock(clock, rs.name) if clock else ""
    if why:
        raise LobbyError.settings(why, f"{prefix}.options.clock.per_player")
    idle = int(idle_kick_s or 0)
    why = rs.clock.check_turn_deadline(idle, rs.name) if idle else ""
    if why:
        raise LobbyError.settings(why, f"{prefix}.options.clock.idle_kick_after")
    if think_ms_problem(bot_think_ms):
        raise LobbyError.settings(think_ms_problem(bot_think_ms), f"{prefix}.bot_think_ms")
    if no_show_s and not MIN_NO_SHOW_S <= no_show_s <= MAX_WAIT_S:
        raise LobbyError.settings("no_show_timeout must be 0 or 5 s .. 7 days",
                                  f"{prefix}.options.no_show_timeout")
    seen: set[int] = set()
    for i, (seat, level) in enumerate(bots):
        where = f"{prefix}.bots[{i}]"
        if not 0 <= seat < n:
            raise LobbyError.settings(f"bot seat {seat} outside 0..{n - 1}", f"{where}.seat")
        if seat in seen:
            raise LobbyError.settings(f"two bots at seat {seat}", f"{where}.seat")
        if not BOT_LEVEL_MIN <= level <= BOT_LEVEL_MAX:
            raise LobbyError.settings(f"bot level must be {BOT_LEVEL_MIN}..{BOT_LEVEL_MAX}, "
                                      f"not {level}", f"{where}.bot_level")
        seen.add(seat)
    if len(bots) >= n:
        raise LobbyError.settings("at least one seat must be left for a human", f"{prefix}.bots")
    return TableConfig(
        ruleset_id=ruleset_id,
        language=rs.language,
        board_id=rs.board.id,
        seats=n,
        challenge_mode=mode,
        clock_s=clock,
        idle_kick_s=idle,
        pass_and_play=pass_and_play,
        unrated=unrated or pass_and_play,
        spectators_allowed=spectators_allowed,
        bots=tuple(sorted(bots)),
        private=private,
        host_starts=host_starts,
        bot_think_ms=bot_think_ms,
        bot_think=tuple(sorted((s, ms) for s, ms in bot_think if ms)),
        no_show_s=no_show_s,
    )


def think_ms_problem(ms: int) -> str:
    """Why ``ms`` is not a bot think time the lobby accepts ("" when it is; 0 = the default)."""
    if ms and not THINK_MS_MIN <= ms <= THINK_MS_MAX:
        return f"bot think time must be {THINK_MS_MIN}..{THINK_MS_MAX} ms (0 = the default), not {ms}"
    return ""
