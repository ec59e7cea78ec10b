"""GCG game records: parse (bytes or text) into a ``GameRecord`` and write one back.

A move line reads ``>nick: RACK MOVE SCORE TOTAL`` where MOVE is a placement (``8D WINDY``,
``E3 JAVE..N``: row first = across, ``.`` or ``(XY)`` = tiles already on the board, lowercase =
a blank), a pass (``-``), an exchange (``-ABC`` or ``-7``), a phony taken back (``--``), a
challenge bonus (``(challenge)``), a time penalty (``(time)``), an out-play bonus (``(RACK)``
with the opponents' tiles) or an end-of-game rack penalty (``(RACK) -N``). Pragmas start with
``#``: ``#player1 nick Full Name`` (up to ``#player4``), ``#lexicon``, ``#title``,
``#description``, ``#id``, ``#note`` (a note belongs to the move before it; lines that follow a
note without a ``#`` continue it), ``#rack1``…``#rack4``, ``#character-encoding``; any other
pragma is kept as written. Malformed input raises ``InputError`` naming the line.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum

from wordarena.engine.errors import InputError
from wordarena.engine.notation import format_play

MAX_PLAYERS = 4
MOVE_SEPARATOR = ">"  # War of Words: ``H8>J9`` moves a Rain / Whirlwind from H8 to J9
LETTER_SEPARATOR = "="  # War of Words: ``G5=A`` a letter laid on G5 (a play through Portals)


class MoveKind(StrEnum):
    """What a move line of a record does."""

    PLAY = "play"
    PASS = "pass"
    EXCHANGE = "exchange"
    PHONY = "phony"  # ``--``: the player's previous play is taken off the board
    CHALLENGE = "challenge"  # ``(challenge)``: bonus for a valid play that was challenged
    TIME = "time"  # ``(time)``: overtime penalty
    OUT = "out"  # ``(RACK) +N``: bonus for going out, RACK = the opponents' tiles
    END_RACK = "end-rack"  # ``(RACK) -N``: the player's own tiles deducted at the end
    EFFECT = "effect"  # ``(effect)``: War of Words: points an action tile's effect moved
    LEFT = "left"  # ``(left)``: the player is out of the game (resigned, timed out, left, kicked)


ADJUSTMENTS = frozenset({MoveKind.CHALLENGE, MoveKind.TIME, MoveKind.OUT, MoveKind.END_RACK,
                         MoveKind.EFFECT, MoveKind.LEFT})


@dataclass(frozen=True)
class Player:
    """A ``#playerN nick Full Name`` pragma (seat = N - 1)."""

    seat: int
    nick: str
    name: str


@dataclass(frozen=True)
class Move:
    """One move line. ``word`` is as written: the placed word (``JAVE..N``), the exchanged
    tiles (``ABC`` or ``7``) or the rack in parentheses (``OPEG``); ``rack`` is '' if not given.
    A War of Words play may hold action tiles (``actions``), and only those (no position and
    no word)."""

    nick: str
    seat: int
    rack: str
    kind: MoveKind
    position: str
    word: str
    score: int
    total: int
    notes: tuple[str, ...] = ()
    line: int = field(default=0, compare=False)
    # War of Words: letters of a play through Portals square by square (``G5=A``, ``D11=n``),
    # action tiles played (``K10@blaster:right``), then moves of Rain / Whirlwind (``H8>J9``)
    actions: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameRecord:
    """A parsed GCG file."""

    players: tuple[Player, ...]
    moves: tuple[Move, ...] = ()
    lexicon: str = ""
    title: str = ""
    description: str = ""
    id: str = ""  # ``#id authority identifier`` as written after ``#id``
    encoding: str = ""  # the ``#character-encoding`` pragma, '' when absent
    notes: tuple[str, ...] = ()  # notes before the first move
    final_racks: tuple[tuple[int, str], ...] = ()  # ``#rackN`` pragmas: (seat, rack)
    pragmas: tuple[tuple[str, str], ...] = ()  # any other pragma: (name, value)

    def seat_of(self, nick: str) -> int | None:
        """The seat of a nick, or None."""
        return next((p.seat for p in self.players if p.nick == nick), None)


# --- decoding ------------------------------------------------------------------------------

_ENCODING = re.compile(rb"^#character-encoding[ \t]+(\S+)", re.MULTILINE)


def decode_gcg(data: bytes) -> str:
    """Text of a GCG file: the ``#character-encoding`` pragma's encoding if it is known and
    decodes the bytes, else UTF-8, else ISO-8859-1 (which never fails). A BOM is dropped."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    declared = _ENCODING.search(data)
    candidates = [declared.group(1).decode("ascii", "replace")] if declared else []
    for encoding in [*candidates, "utf-8"]:
        try:
            return data.decode(encoding)
        except (LookupError, UnicodeDecodeError):
            continue
    return data.decode("iso-8859-1")


# --- parsing -------------------------------------------------------------------------------

_MOVE = re.compile(r"^>([^:\s]+):(.*)$")
_NUMBER = re.compile(r"^[+-]?\d+$")
_SCORE = re.compile(r"^[+-]\d+$")
_TOTAL = re.compile(r"^-?\d+$")
_PRAGMA = re.compile(r"^#(\S+)(?:[ \t]+(.*))?$")


class _Builder:
    """Collects a record line by line."""

    def __init__(self) -> None:
        self.players: dict[int, Player] = {}
        self.moves: list[Move] = []
        self.fields: dict[str, str] = {}
        self.notes: list[str] = []
        self.final_racks: list[tuple[int, str]] = []
        self.pragmas: list[tuple[str, str]] = []
        self.last_was_note = False

    def add_note(self, text: str, continuation: bool = False) -> None:
        if self.moves:
            move = self.moves[-1]
            notes = list(move.notes)
            if continuation and notes:
                notes[-1] += "\n" + text
            else:
                notes.append(text)
            self.moves[-1] = replace(move, notes=tuple(notes))
        elif continuation and self.notes:
            self.notes[-1] += "\n" + text
        else:
            self.notes.append(text)

    def record(self) -> GameRecord:
        seats = sorted(self.players)
        if seats != list(range(len(seats))):
            raise InputError(f"players must be #player1..#player{len(seats)}, got seats "
                             f"{[s + 1 for s in seats]}", "players")
        return GameRecord(
            players=tuple(self.players[s] for s in seats), moves=tuple(self.moves),
            lexicon=self.fields.get("lexicon", ""), title=self.fields.get("title", ""),
            description=self.fields.get("description", ""), id=self.fields.get("id", ""),
            encoding=self.fields.get("character-encoding", ""), notes=tuple(self.notes),
            final_racks=tuple(self.final_racks), pragmas=tuple(self.pragmas),
        )


def parse_gcg(data: bytes | str) -> GameRecord:
    """Parse a GCG file (bytes are decoded as ``decode_gcg`` says; CRLF and CR are fine)."""
    text = decode_gcg(data) if isinstance(data, bytes) else data
    if text.startswith("\ufeff"):
        text = text[1:]
    builder = _Builder()
    for number, raw in enumerate(text.splitlines(), start=1):
        _parse_line(builder, raw.rstrip(), number)
    if not builder.players:
        raise InputError("no #player1/#player2 pragmas: not a GCG record", "line 1")
    return builder.record()


def _parse_line(builder: _Builder, line: str, number: int) -> None:
    where = f"line {number}"
    if not line.strip():
        return
    if line.startswith("#"):
        _parse_pragma(builder, line, where)
        return
    if line.startswith(">"):
        builder.moves.append(_parse_move(builder, line, number))
        builder.last_was_note = False
        return
    if builder.last_was_note:
        builder.add_note(line, continuation=True)
        return
    raise InputError(f"expected a move (>nick: …) or a pragma (#…), got {line[:40]!r}", where)


def _parse_pragma(builder: _Builder, line: str, where: str) -> None:
    match = _PRAGMA.match(line)
    if not match:
        raise InputError(f"malformed pragma {line[:40]!r}", where)
    name, value = match.group(1), (match.group(2) or "").strip()
    builder.last_was_note = name == "note"
    player = re.fullmatch(r"player(\d)", name)
    rack = re.fullmatch(r"rack(\d)", name)
    if name == "note":
        builder.add_note(value)
    elif player:
        _add_player(builder, int(player.group(1)) - 1, value, where)
    elif rack:
        seat = int(rack.group(1)) - 1
        if not 0 <= seat < MAX_PLAYERS or not _is_tiles(value):
            raise InputError(f"#rack{seat + 1} needs a seat 1-{MAX_PLAYERS} and tiles", where)
        builder.final_racks.append((seat, value))
    elif name in ("lexicon", "title", "description", "id", "character-encoding"):
        builder.fields[name] = value
    else:
        builder.pragmas.append((name, value))


def _add_player(builder: _Builder, seat: int, value: str, where: str) -> None:
    if not 0 <= seat < MAX_PLAYERS:
        raise InputError(f"GCG records have 1 to {MAX_PLAYERS} players, not #player{seat + 1}",
                         where)
    parts = value.split(None, 1)
    if not parts:
        raise InputError(f"#player{seat + 1} needs a nick (and a full name)", where)
    if seat in builder.players:
        raise InputError(f"#player{seat + 1} given twice", where)
    if builder.moves:
        raise InputError(f"#player{seat + 1} after the first move", where)
    nick = parts[0]
    if any(p.nick == nick for p in builder.players.values()):
        raise InputError(f"two players share the nick {nick!r}", where)
    builder.players[seat] = Player(seat, nick, parts[1].strip() if len(parts) > 1 else nick)


_WORD = re.compile(r"(?:\.|[^\W\d_]|\*|\([^\W\d_*]+\))+")
_RACK = re.compile(r"(?:[^\W\d_]|\?|\*)*(?:@\w+)*")
_ACTION = re.compile(r"[A-Za-z]\d{1,2}(?:@\w+(?::[a-z]+)?|>[A-Za-z]\d{1,2}|=(?:[^\W\d_]|\*))")


def _is_tiles(text: str) -> bool:
    """Letters and blanks (``?``); War of Words racks end with wildcards (``*``) and action
    tiles (``@bomb``)."""
    return _RACK.fullmatch(text) is not None


def _parse_move(builder: _Builder, line: str, number: int) -> Move:
    where = f"line {number}"
    match = _MOVE.match(line)
    if not match:
        raise InputError(f"a move line reads '>nick: RACK MOVE +SCORE TOTAL', got {line[:40]!r}",
                         where)
    nick, rest = match.group(1), match.group(2).split()
    seat = next((p.seat for p in builder.players.values() if p.nick == nick), None)
    if seat is None:
        raise InputError(f"{nick!r} is not a player of this record (#player pragmas)", where)
    if len(rest) < 3:
        raise InputError("a move needs at least a move, a score and a running total", where)
    end = _score_at(rest)
    if end is None:
        raise InputError("a move line ends with its score and running total (+32 32), got "
                         f"{' '.join(rest[-2:])!r}", where)
    score, total = int(rest[end]), int(rest[end + 1])
    head = rest[:end]
    actions: list[str] = []
    while head and _ACTION.fullmatch(head[-1]):
        actions.insert(0, head.pop())
    only_actions = len(head) < 2 or not _WORD.fullmatch(head[-1])
    if actions and only_actions and not (head and head[-1][:1] in ("-", "(")):
        kind, position, word, rack_parts = MoveKind.PLAY, "", "", head  # action tiles only
    else:
        kind, position, word, rack_parts = _classify(head, rest[-2].startswith("-"), where)
    if actions and kind is not MoveKind.PLAY:
        raise InputError(f"action tiles {' '.join(actions)} follow a {kind.value}", where)
    if len(rack_parts) > 1:
        raise InputError(f"unexpected {' '.join(rack_parts)!r} before the move", where)
    rack = rack_parts[0] if rack_parts else ""
    if rack and not _is_tiles(rack):
        raise InputError(f"rack {rack!r} is not letters and ?", where)
    return Move(nick, seat, rack, kind, position, word, score, total, line=number,
                actions=tuple(actions))


def _score_at(tokens: list[str]) -> int | None:
    """Index of the move's score in a move line's tokens, or None.

    The score and running total end the line, except that real records (Quackle's among them)
    may follow the total with the cross-words formed (``+26   66  BE, ET, DO``); established GCG
    readers ignore that text, and so do we. The score carries its sign (``+26``, ``-5``), the
    total does not, which tells ``-5 +0 100`` (exchange of five, score, total) apart."""
    if _NUMBER.match(tokens[-1]) and _NUMBER.match(tokens[-2]):
        return len(tokens) - 2
    for i in range(1, len(tokens) - 2):
        if _SCORE.match(tokens[i]) and _TOTAL.match(tokens[i + 1]) and not any(
                _NUMBER.match(t) for t in tokens[i + 2:]):
            return i
    return None


_SPECIAL = {"(challenge)": MoveKind.CHALLENGE, "(time)": MoveKind.TIME,
            "(effect)": MoveKind.EFFECT, "(left)": MoveKind.LEFT}


def _classify(head: list[str], negative: bool, where: str) -> tuple[MoveKind, str, str, list[str]]:
    """Kind, position, word and the tokens before them (the rack) of a move's head."""
    if not head:
        raise InputError("missing move", where)
    last = head[-1]
    if last.lower() in _SPECIAL:
        return _SPECIAL[last.lower()], "", "", head[:-1]
    if last.startswith("("):
        if not last.endswith(")") or not _is_tiles(last[1:-1]) or len(last) < 3:
            raise InputError(f"{last!r} is not (challenge), (time) or (RACK)", where)
        kind = MoveKind.END_RACK if negative else MoveKind.OUT
        return kind, "", last[1:-1], head[:-1]
    if last == "--":
        return MoveKind.PHONY, "", "", head[:-1]
    if last == "-":
        return MoveKind.PASS, "", "", head[:-1]
    if last.startswith("-"):
        tiles = last[1:]
        if not (tiles.isdigit() or _is_tiles(tiles)):
            raise InputError(f"exchange {last!r} is not -TILES or -N", where)
        return MoveKind.EXCHANGE, "", tiles, head[:-1]
    if len(head) < 2:
        raise InputError(f"a placement needs a position and a word, got {last!r}", where)
    position = head[-2]
    if not re.fullmatch(r"\d{1,2}[A-Za-z]|[A-Za-z]\d{1,2}", position):
        raise InputError(f"position {position!r} is not like 8D (across) or D8 (down)", where)
    if not _WORD.fullmatch(last):
        raise InputError(f"word {last!r} may hold only letters, '*', '.' and (XY)", where)
    return MoveKind.PLAY, position, last, head[:-2]


# --- writing -------------------------------------------------------------------------------


def write_gcg(record: GameRecord) -> str:
    """The record as GCG text (``\\n`` line ends); ``parse_gcg(write_gcg(r)) == r``."""
    lines: list[str] = []
    if record.encoding:
        lines.append(f"#character-encoding {record.encoding}")
    lines.extend(f"#player{p.seat + 1} {p.nick} {p.name}" for p in record.players)
    for name in ("title", "description", "id", "lexicon"):
        value = getattr(record, name)
        if value:
            lines.append(f"#{name} {value}")
    lines.extend(f"#{name} {value}".rstrip() for name, value in record.pragmas)
    lines.extend(_note_lines(record.notes))
    for move in record.moves:
        lines.append(format_move(move))
        lines.extend(_note_lines(move.notes))
    lines.extend(f"#rack{seat + 1} {rack}" for seat, rack in record.final_racks)
    return "\n".join(lines) + "\n"


def _note_lines(notes: Iterable[str]) -> list[str]:
    return [f"#note {note}".rstrip() for note in notes]


def format_move(move: Move) -> str:
    """One move line as GCG writes it."""
    if move.kind is MoveKind.PLAY:
        word = [format_play(move.position, move.word)] if move.word else []
        body = " ".join([*word, *move.actions])
    elif move.kind is MoveKind.PASS:
        body = "-"
    elif move.kind is MoveKind.PHONY:
        body = "--"
    elif move.kind is MoveKind.EXCHANGE:
        body = f"-{move.word}"
    elif move.kind in (MoveKind.CHALLENGE, MoveKind.TIME, MoveKind.EFFECT, MoveKind.LEFT):
        body = f"({move.kind.value})"
    else:
        body = f"({move.word})"
    sign = "-" if move.score < 0 or (move.kind is MoveKind.END_RACK and move.score == 0) else "+"
    return f">{move.nick}: {move.rack} {body} {sign}{abs(move.score)} {move.total}"
