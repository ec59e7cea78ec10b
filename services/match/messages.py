"""A match's parts as the contract's messages: tiles, racks, squares, boards, breakdowns,
placements, timestamps, players, options, rule violations, and War of Words' live squares and
clouds. Conversions only: what a viewer may see of them is decided by ``sight`` (and, for
events and views, ``projection``), never here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp

from wordarena.engine.board import Cells, square_name
from wordarena.engine.errors import Rule
from wordarena.engine.rulesets.layout import COLOUR_NAMES, Square
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.tiles import WILDCARD
from wordarena.services.common import rulesets
from wordarena.services.common.rulesets import ACTION_KINDS as ACTION_KINDS
from wordarena.services.common.rulesets import COLOURS as COLOURS
from wordarena.services.common.rulesets import FAMILIES as FAMILIES
from wordarena.services.common.rulesets import action_kind as action_kind
from wordarena.services.common.rulesets import ruleset_ref as ruleset_ref
from wordarena.services.common.rulesets import square as square
from wordarena.services.common.rulesets import tile as tile
from wordarena.services.match.core import Options, SeatInfo
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e

SEAT_STATUS = {"active": c.SEAT_STATUS_ACTIVE, "resigned": c.SEAT_STATUS_RESIGNED,
               "timed-out": c.SEAT_STATUS_TIMED_OUT, "left": c.SEAT_STATUS_LEFT,
               "kicked": c.SEAT_STATUS_KICKED}
REASONS = {"out": c.GAME_OVER_REASON_OUT_OF_TILES, "zero-turns": c.GAME_OVER_REASON_SCORELESS_TURNS,
           "resigned": c.GAME_OVER_REASON_PLAYERS_LEFT, "left": c.GAME_OVER_REASON_PLAYERS_LEFT,
           "kicked": c.GAME_OVER_REASON_PLAYERS_LEFT, "timed-out": c.GAME_OVER_REASON_TIMEOUT,
           "aborted": c.GAME_OVER_REASON_ABORTED}

# Engine rule codes → contract rule codes.
RULES: dict[str, int] = {
    Rule.GAME_OVER: e.RULE_CODE_GAME_OVER,
    Rule.NOT_YOUR_TURN: e.RULE_CODE_NOT_YOUR_TURN,
    Rule.PLAYER_NOT_ACTIVE: e.RULE_CODE_SEAT_INACTIVE,
    Rule.NO_TILES: e.RULE_CODE_NO_TILES,
    Rule.TILES_NOT_ON_RACK: e.RULE_CODE_TILES_NOT_ON_RACK,
    Rule.OFF_BOARD: e.RULE_CODE_OFF_BOARD,
    Rule.SQUARE_OCCUPIED: e.RULE_CODE_SQUARE_OCCUPIED,
    Rule.SQUARE_BLOCKED: e.RULE_CODE_SQUARE_BLOCKED,
    Rule.DUPLICATE_SQUARE: e.RULE_CODE_DUPLICATE_SQUARE,
    Rule.NOT_IN_LINE: e.RULE_CODE_NOT_IN_LINE,
    Rule.GAP: e.RULE_CODE_GAP,
    Rule.NOT_CONNECTED: e.RULE_CODE_NOT_CONNECTED,
    Rule.FIRST_MOVE_OFF_START: e.RULE_CODE_FIRST_MOVE_OFF_START,
    Rule.FIRST_MOVE_TOO_SHORT: e.RULE_CODE_WORD_TOO_SHORT,
    Rule.NO_WORD: e.RULE_CODE_NO_WORD,
    Rule.LETTER_NOT_IN_SET: e.RULE_CODE_LETTER_NOT_IN_SET,
    Rule.BAD_BLANK: e.RULE_CODE_INVALID_BLANK_LETTER,
    Rule.WORD_NOT_IN_LEXICON: e.RULE_CODE_WORD_NOT_IN_LEXICON,
    Rule.EXCHANGE_LIMIT: e.RULE_CODE_EXCHANGE_LIMIT,
    Rule.EXCHANGE_BAG_TOO_SMALL: e.RULE_CODE_EXCHANGE_BAG_TOO_SMALL,
    Rule.PENDING_DECISION: e.RULE_CODE_DECISION_PENDING,
    Rule.NOTHING_PENDING: e.RULE_CODE_NO_PENDING_PLAY,
    Rule.NOT_ALLOWED: e.RULE_CODE_NOT_ALLOWED,
    Rule.EFFECT_NOT_MOVABLE: e.RULE_CODE_EFFECT_NOT_MOVABLE,
}


#: The engine's colour names (what a colour premium is called in a breakdown) to its colours.
COLOUR_BY_NAME = {name: colour for colour, name in COLOUR_NAMES.items()}

def violation(code: int, message: str, words: Sequence[str] = (), code_name: str = "") -> e.RuleViolation:
    """A RuleViolation; ``code_name`` defaults to the enum value's name without its prefix."""
    name = code_name or e.RuleCode.Name(code).removeprefix("RULE_CODE_")
    return e.RuleViolation(code=code, code_name=name, message=message, words=list(words))  # type: ignore[arg-type]


def rule_violation(rule: str, message: str, words: Sequence[str] = ()) -> e.RuleViolation:
    """The contract's RuleViolation for an engine ``RuleError``."""
    code = RULES.get(rule, e.RULE_CODE_UNSPECIFIED)
    name = e.RuleCode.Name(code).removeprefix("RULE_CODE_") if code else rule.upper().replace("-", "_")
    return violation(code, message, words, name)


def timestamp(epoch: float) -> Timestamp:
    ts = Timestamp()
    ts.FromNanoseconds(int(epoch * 1e9))
    return ts


def duration(seconds: float) -> Duration:
    d = Duration()
    d.FromNanoseconds(int(max(seconds, 0.0) * 1e9))
    return d


def square_at(row: int, col: int) -> c.Square:
    return c.Square(row=row, col=col, notation=square_name(row, col) if 0 <= col < 26 else "")


_RACK_TILES: dict[tuple[str, str, bool], c.Tile] = {}


def rack(ruleset: Ruleset, tokens: Sequence[str], irradiated: bool = False) -> c.Rack:
    """A rack of ``tokens``; each token's ``Tile`` is built once per ruleset (the Rack copies
    it). On an irradiated War of Words board every letter is worth 1 (``irradiate``)."""
    tiles = []
    for t in tokens:
        got = _RACK_TILES.get((ruleset.id, t, irradiated))
        if got is None:
            got = _RACK_TILES[(ruleset.id, t, irradiated)] = irradiate(tile(ruleset, t), irradiated)
        tiles.append(got)
    return c.Rack(tiles=tiles)


def irradiate(t: c.Tile, irradiated: bool) -> c.Tile:
    """``t`` as an irradiated board counts it ("all letters are worth 1 point"): a letter's
    value 1 (blanks and wildcards stay 0, action tiles have none); ``t`` itself otherwise."""
    if irradiated and t.value:
        t.value = 1
    return t


_STATIC: dict[str, tuple[bytes, ...]] = {}


def _static_squares(ruleset: Ruleset) -> tuple[bytes, ...]:
    """Serialized BoardSquares without tiles, cached per ruleset id."""
    got = _STATIC.get(ruleset.id)
    if got is None:
        got = _STATIC[ruleset.id] = _build_static(ruleset)
    return got


def _build_static(ruleset: Ruleset) -> tuple[bytes, ...]:
    layout = ruleset.board
    return tuple(rulesets.board_square(ruleset, i, sq).SerializeToString()
                 for i, sq in enumerate(layout.squares))


def board_square(ruleset: Ruleset, index: int, cell: Any, placed_seq: int = 0,
                 pending: bool = False) -> c.BoardSquare:
    """One square with the tile (an engine ``Tile`` or None) on it."""
    b = c.BoardSquare.FromString(_static_squares(ruleset)[index])
    if cell is not None:
        b.tile.CopyFrom(tile(ruleset, cell.letter, cell.blank, cell.owner, placed_seq, on_board=True))
        b.pending = pending
    return b


def board_view(ruleset: Ruleset, cells: Cells, placed_seq: dict[int, int], pending: set[int],
               electrification: Sequence[int] = (), irradiated: bool = False) -> c.BoardView:
    layout = ruleset.board
    view = c.BoardView(board_id=layout.id, rows=layout.rows, cols=layout.cols, irradiated=irradiated)
    for i in range(layout.rows * layout.cols):
        view.squares.append(board_square(ruleset, i, cells[i], placed_seq.get(i, 0), i in pending))
    if layout.start is not None:
        view.start_square.CopyFrom(square(ruleset, layout.start))
    for pid, el in enumerate(electrification):
        view.water_patches.append(c.WaterPatch(patch_id=pid + 1, electrification=el))
    return view


_EMPTY_BOARDS: dict[str, bytes] = {}


def empty_board_view(ruleset: Ruleset) -> c.BoardView:
    """``board_view`` of the ruleset's empty board (every new match shows it), built once per
    ruleset id like its squares (``_static_squares``) and parsed from its bytes after that."""
    got = _EMPTY_BOARDS.get(ruleset.id)
    if got is None:
        cells = (None,) * (ruleset.board.rows * ruleset.board.cols)
        got = _EMPTY_BOARDS[ruleset.id] = board_view(ruleset, cells, {}, set()).SerializeToString()
    return c.BoardView.FromString(got)


def breakdown(ruleset: Ruleset, data: dict[str, Any], tiles_placed: int = 0) -> c.ScoreBreakdown:
    """The contract's ScoreBreakdown from the engine's ``ScoreBreakdown.to_dict()``."""
    return c.ScoreBreakdown(**breakdown_fields(ruleset, data, tiles_placed))


# A breakdown is built on every play (tens of messages: a LetterScore per letter of every word).
# It is written as plain dicts handed to the message constructor once, which protobuf's C code
# reads in one go: about half the time of building and appending every message from Python. The
# squares' dicts are built once per board and square and shared: never change one.
_SQUARE_FIELDS: dict[tuple[int, int], dict[str, Any]] = {}
_PREMIUM_FIELDS: dict[tuple[str, str, int], dict[str, Any]] = {}


def _square_fields(cols: int, index: int) -> dict[str, Any]:
    """``rulesets.square``'s fields (a board ``cols`` wide), as a shared dict."""
    got = _SQUARE_FIELDS.get((cols, index))
    if got is None:
        row, col = divmod(index, cols)
        got = _SQUARE_FIELDS[(cols, index)] = {"row": row, "col": col, "notation": square_name(row, col)}
    return got


def _premium_fields(cols: int, name: str, kind_name: str, factor: int) -> dict[str, Any]:
    """A ``PremiumApplied``'s fields (the engine names its square, ``J2``; a board ``cols``
    wide), as a shared dict."""
    key = (name, kind_name, factor)
    got = _PREMIUM_FIELDS.get(key)
    if got is None:
        col, row = ord(name[0].upper()) - 65, int(name[1:]) - 1
        colour = COLOUR_BY_NAME.get(kind_name, 0)
        kind = c.PREMIUM_KIND_WORD if kind_name.endswith("W") else (
            c.PREMIUM_KIND_COLOUR if colour else c.PREMIUM_KIND_LETTER)
        got = _PREMIUM_FIELDS[key] = {
            "square": _square_fields(cols, row * cols + col), "kind": kind,
            "factor": factor, "colour": COLOURS.get(colour, 0)}
    return got


def breakdown_fields(ruleset: Ruleset, data: dict[str, Any], tiles_placed: int = 0) -> dict[str, Any]:
    """``breakdown``'s ScoreBreakdown as the fields to build it from (a message's constructor
    takes them, e.g. ``TurnPlayed(breakdown=...)``)."""
    cols = ruleset.board.cols
    words = []
    for k, w in enumerate(data.get("words", [])):
        # blanks and wildcards in lower case (engine.scoring)
        letters = [{"square": _square_fields(cols, int(ls["square"])), "letter": str(ls["letter"]),
                    "base_value": int(ls["value"]), "newly_placed": bool(ls["new"]),
                    "letter_factor": int(ls["factor"]), "electrification": int(ls["electrification"]),
                    "points": int(ls["points"])} for ls in w.get("letters", [])]
        ws: dict[str, Any] = {
            "word": w["word"], "main_word": k == 0, "letter_total": int(w["letter_sum"]),
            "bonus_letter_bonus": int(w.get("bonus_letter", 0)), "word_factor": int(w["word_factor"]),
            "score": int(w["score"]),
            "premiums": [_premium_fields(cols, str(p["square"]), str(p["kind"]), int(p["factor"]))
                         for p in w.get("premiums", [])],
            "letters": letters}
        if letters:
            first, last = letters[0]["square"], letters[-1]["square"]
            ws["start"] = first
            ws["direction"] = c.DIRECTION_DOWN if first["col"] == last["col"] and len(letters) > 1 \
                else c.DIRECTION_ACROSS
        words.append(ws)
    total, bingo = int(data.get("total", 0)), int(data.get("bingo", 0))
    return {"total": total, "bingo_bonus": bingo, "tiles_placed": tiles_placed, "words": words,
            "words_total": total - bingo}


def placements(ruleset: Ruleset, placed: Sequence[Sequence[Any]]) -> list[c.Placement]:
    """``[[index, letter, blank], ...]`` → Placements."""
    return [c.Placement(**p) for p in placement_fields(ruleset, placed)]


def placement_fields(ruleset: Ruleset, placed: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    """``placements`` as the fields to build them from (see ``breakdown_fields``)."""
    cols = ruleset.board.cols
    return [{"square": _square_fields(cols, int(index)), "letter": letter if letter != WILDCARD else "",
             "is_blank": bool(blank), "is_wildcard": letter == WILDCARD} for index, letter, blank in placed]


# --- War of Words: action tiles, live squares and clouds ------------------------------------

FACING_PB = {"up": c.FACING_UP, "down": c.FACING_DOWN, "left": c.FACING_LEFT,
             "right": c.FACING_RIGHT}
EFFECT_KINDS: dict[str, int] = {
    "poison": c.EFFECT_KIND_POISONED, "medic": c.EFFECT_KIND_HEALED, "rain": c.EFFECT_KIND_RAINED,
    "quicksand": c.EFFECT_KIND_RESCORED, "grown": c.EFFECT_KIND_MULTIPLIER_CHANGED,
    "reveal-11L": c.EFFECT_KIND_MULTIPLIER_CHANGED, "placed": c.EFFECT_KIND_MULTIPLIER_CHANGED,
    "electrified": c.EFFECT_KIND_ELECTRIFIED, "blackhole-size": c.EFFECT_KIND_RESIZED,
    "collapsed": c.EFFECT_KIND_RESIZED, "fire-spread": c.EFFECT_KIND_SPREAD,
    "moved": c.EFFECT_KIND_MOVED, "clouds": c.EFFECT_KIND_MOVED,
    "irradiated": c.EFFECT_KIND_IRRADIATED, "expired": c.EFFECT_KIND_EXPIRED,
    "swallowed": c.EFFECT_KIND_EXPIRED,
}


def action_token(kind: int, factor: int = 0) -> str:
    """The rack token of a contract action tile (``""`` when it names none)."""
    if kind == c.ACTION_KIND_LETTER_MULTIPLIER:
        return f"@{factor}L" if 2 <= factor <= 8 else ""
    if kind == c.ACTION_KIND_WORD_MULTIPLIER:
        return f"@{factor}W" if 2 <= factor <= 8 else ""
    names = {v: k for k, v in ACTION_KINDS.items()}
    return "@" + names[kind] if kind in names else ""


def square_state(sq: Square) -> list[Any]:
    """A live square as stored in an event payload."""
    return [sq.letter_mult, sq.word_mult, sq.colour, sq.terrain]


def live_square(ruleset: Ruleset, index: int, sq: Square, cell: Any, placed_seq: int = 0,
                hidden: bool = False, irradiated: bool = False) -> c.BoardSquare:
    """A War of Words square as it is now; under a cloud only its place and ``hidden``."""
    if hidden:
        return c.BoardSquare(square=square(ruleset, index), hidden=True)
    b = rulesets.board_square(ruleset, index, sq)
    if cell is not None:
        b.tile.CopyFrom(irradiate(tile(ruleset, cell.letter, cell.blank, cell.owner, placed_seq,
                                       on_board=True), irradiated))
    return b


def cloud_pb(ruleset: Ruleset, centre: int) -> c.Cloud:
    from wordarena.engine.warofwords.clouds import CLOUD_SIZE

    layout = ruleset.board
    r, col = divmod(centre, layout.cols)
    h = CLOUD_SIZE // 2
    r0, c0 = max(0, r - h), max(0, col - h)
    r1, c1 = min(layout.rows, r + h + 1), min(layout.cols, col + h + 1)
    return c.Cloud(top_left=square_at(r0, c0), rows=r1 - r0, cols=c1 - c0)


def effect_id(kind: str, where: str) -> str:
    """The effect id of the action tile ``kind`` lying on the square named ``where``
    (``rain@H8``): unique, since no two action tiles lie on one square."""
    return f"{kind}@{where}"


def square_index(ruleset: Ruleset, name: str) -> int:
    """The index of the square named ``name`` (``H8``) in an engine event."""
    return (int(name[1:]) - 1) * ruleset.board.cols + ord(name[0].upper()) - 65


def player(seat: SeatInfo) -> c.Player:
    """The contract's Player of a seat's occupant."""
    return c.Player(player_id=seat.player_id, display_name=seat.display_name, guest=seat.guest,
                    bot=seat.bot, bot_level=seat.bot_level)


def match_options(o: Options) -> c.MatchOptions:
    """The contract's MatchOptions of a match's options."""
    out = c.MatchOptions(challenge_mode=o.challenge_mode,  # type: ignore[arg-type]
                         pass_and_play=o.pass_and_play, unrated=o.unrated,
                         spectators_allowed=o.spectators_allowed)
    if o.per_player_seconds:
        out.clock.per_player.CopyFrom(duration(o.per_player_seconds))
    if o.idle_kick_seconds:
        out.clock.idle_kick_after.CopyFrom(duration(o.idle_kick_seconds))
    if o.no_show_seconds:
        out.no_show_timeout.CopyFrom(duration(o.no_show_seconds))
    return out
