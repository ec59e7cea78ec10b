"""A match's stored events, typed, and their versioned codec (the log is the source of truth).

A stored event is ``(seq, time, kind, payload)``; the payload is JSON. ``decode`` reads a
payload of any version the match server ever wrote into a ``MatchEvent``; ``encode`` writes
a ``MatchEvent`` as today's version. Nothing else reads or writes a payload's fields.

Versions (the payload's ``"v"``; a payload without it is version 0 or 1, told apart by its
content, since ``"v"`` was first written with version 2):

- **0** (before 2026-11): plays carry no ``notation``, and a board change
  ``[index, letter, blank, owner]`` no ``placed_seq`` (the tile was placed by the event itself).
  ``upgrade_log`` writes the notation from the board each play was made on.
- **1**: ``notation`` on every play with letters (a War of Words play of action tiles only has
  none: ``upgrade_log`` writes it too); board changes ``[index, letter, blank, owner,
  placed_seq]``, or ``[index]`` for a square emptied.
- **2** (today): version 1 with ``"v": 2``, and a notation on every play.

Every field, as stored:

- ``engine``: the engine events the stored event stands for (a play and the tiles drawn after
  it are one); replaying them from the match's seed rebuilds the game exactly;
- ``after``: the state's summary after it (``After``), on every event but chat;
- ``board``: the squares it changed (``SquareChange``); War of Words adds ``wow``: what the
  clouds hide (``CloudCover``); ``effect_moves``: a play's Rain / Whirlwind moves;
- ``notation``: a play's ``8H WORD``, written by the engine from the board before it;
- ``idle_for``: how long a kicked seat had been idle; ``chat``: a chat line (``ChatLine``);
  ``aborted``: why a match was withdrawn before anyone acted.

``tests/unit/match_core/test_events.py`` decodes every event of the stored-log fixtures
(``tests/service/match/stored_logs``) and encodes it back to the same payload.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from wordarena.engine.game.events import Event as EngineEvent
from wordarena.engine.notation import event_notation
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.tiles import Tile

__all__ = [
    "VERSION", "After", "ChatLine", "CloudCover", "MatchEvent", "SquareChange", "decode", "encode",
    "play_notation", "upgrade_log",
]

#: The version ``encode`` writes.
VERSION = 2


@dataclass(frozen=True, slots=True)
class SquareChange:
    """A square whose tile changed: the tile now on it (``None``: emptied) and the seq of the
    event that placed that tile (0 for an emptied square)."""

    index: int
    tile: Tile | None = None
    placed_seq: int = 0

    def encode(self) -> list[Any]:
        if self.tile is None:
            return [self.index]
        return [self.index, self.tile.letter, self.tile.blank, self.tile.owner, self.placed_seq]

    @staticmethod
    def decode(entry: Sequence[Any], seq: int) -> SquareChange:
        """A stored change; version 0's lack ``placed_seq``: their own event ``seq`` placed them."""
        if len(entry) == 1:
            return SquareChange(int(entry[0]))
        placed = int(entry[4]) if len(entry) > 4 else seq
        return SquareChange(int(entry[0]), Tile(entry[1], bool(entry[2]), int(entry[3])), placed)


@dataclass(frozen=True, slots=True)
class After:
    """The game's summary after an event: public (scores, bag, turn…) and private (the racks,
    which only their seat is shown)."""

    scores: tuple[int, ...]
    to_move: int | None
    bag: int
    turn: int
    zero_run: int
    rack_sizes: tuple[int, ...]
    #: The engine's seat statuses (``engine.game.outcome.SeatStatus`` values).
    seats: tuple[str, ...]
    exchanges: tuple[int, ...]
    racks: tuple[tuple[str, ...], ...]
    #: The squares of a play waiting for its decider (accept or check).
    pending: tuple[int, ...] = ()
    #: The seats' clocks (seconds left), when the match has clocks.
    clocks: tuple[float, ...] | None = None
    #: The seats whose rack this event changed (on the first event of an action only).
    rack_changed: tuple[int, ...] = ()
    #: War of Words, on game over: the seats that left in the first round (no result).
    first_round_left: tuple[int, ...] = ()
    #: War of Words: a Nuclear Bomb went off; every letter is worth 1 from then on.
    irradiated: bool = False
    #: Fields of a newer writer this one does not know, kept so that re-encoding loses nothing.
    extra: Mapping[str, Any] = field(default_factory=dict)

    _KNOWN = ("scores", "to_move", "bag", "turn", "zero_run", "rack_sizes", "seats", "exchanges",
              "racks", "pending", "clocks", "rack_changed", "first_round_left", "irradiated")

    def encode(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "scores": list(self.scores), "to_move": self.to_move, "bag": self.bag,
            "turn": self.turn, "zero_run": self.zero_run, "rack_sizes": list(self.rack_sizes),
            "seats": list(self.seats), "exchanges": list(self.exchanges),
            "racks": [list(r) for r in self.racks], "pending": list(self.pending),
        }
        if self.clocks is not None:
            out["clocks"] = list(self.clocks)
        out["rack_changed"] = list(self.rack_changed)
        if self.first_round_left:
            out["first_round_left"] = list(self.first_round_left)
        if self.irradiated:
            out["irradiated"] = True
        out.update(self.extra)
        return out

    @staticmethod
    def decode(d: Mapping[str, Any]) -> After:
        clocks = d.get("clocks")
        return After(
            scores=tuple(d["scores"]), to_move=d.get("to_move"), bag=int(d["bag"]),
            turn=int(d["turn"]), zero_run=int(d.get("zero_run", 0)),
            rack_sizes=tuple(d.get("rack_sizes") or (len(r) for r in d["racks"])),
            seats=tuple(d["seats"]), exchanges=tuple(d.get("exchanges") or ()),
            racks=tuple(tuple(r) for r in d["racks"]), pending=tuple(d.get("pending") or ()),
            clocks=None if clocks is None else tuple(clocks),
            rack_changed=tuple(d.get("rack_changed") or ()),
            first_round_left=tuple(d.get("first_round_left") or ()),
            irradiated=bool(d.get("irradiated")),
            extra={k: v for k, v in d.items() if k not in After._KNOWN})


@dataclass(frozen=True, slots=True)
class CloudCover:
    """War of Words: what an event's projection needs so as not to leak what clouds hide."""

    #: The squares under a cloud after the event: sent as hidden, nothing else.
    hidden: tuple[int, ...]
    #: The squares under a cloud before or after it: no event names them.
    veiled: tuple[int, ...]
    #: The live state of each square whose view changed (``messages.square_state``).
    squares: Mapping[int, tuple[Any, ...]]
    #: The centres of the clouds after the event.
    clouds: tuple[int, ...] = ()
    #: A word of the play lies (partly) under a cloud.
    touched: bool | None = None

    def encode(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hidden": list(self.hidden), "veiled": list(self.veiled),
                               "squares": {str(i): list(s) for i, s in self.squares.items()},
                               "clouds": list(self.clouds)}
        if self.touched is not None:
            out["touched"] = self.touched
        return out

    @staticmethod
    def decode(d: Mapping[str, Any]) -> CloudCover:
        return CloudCover(tuple(d["hidden"]), tuple(d["veiled"]),
                          {int(i): tuple(s) for i, s in (d.get("squares") or {}).items()},
                          tuple(d.get("clouds") or ()), d.get("touched"))


@dataclass(frozen=True, slots=True)
class ChatLine:
    """A chat message: its sender, the seat they hold (none: a watcher) and its channel."""

    player_id: str
    name: str
    text: str
    seat: int | None = None
    #: The observers' channel (seated players do not see it while the game runs).
    observers: bool = False

    def encode(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "player_id": self.player_id, "name": self.name,
                               "text": self.text}
        if self.observers:
            out["observers"] = True
        return out

    @staticmethod
    def decode(d: Mapping[str, Any]) -> ChatLine:
        return ChatLine(d["player_id"], d["name"], d["text"], d.get("seat"), bool(d.get("observers")))


@dataclass(frozen=True, slots=True)
class MatchEvent:
    """One stored event, typed (the module doc lists its fields)."""

    seq: int
    time: float
    kind: str
    engine: tuple[EngineEvent, ...] = ()
    after: After | None = None
    board: tuple[SquareChange, ...] = ()
    clouds: CloudCover | None = None
    #: A War of Words play's Rain / Whirlwind moves: (effect id before the move, new square).
    effect_moves: tuple[tuple[str, int], ...] = ()
    notation: str = ""
    idle_for: float | None = None
    chat: ChatLine | None = None
    #: An ``aborted`` event's reason (a match withdrawn before anyone acted).
    aborted: str | None = None

    @property
    def head(self) -> EngineEvent:
        """The engine event the stored event is about (a play before the tiles drawn after it)."""
        return self.engine[0] if self.engine else EngineEvent("")


def encode(ev: MatchEvent) -> dict[str, Any]:
    """``ev``'s payload in today's version (``VERSION``)."""
    out: dict[str, Any] = {"v": VERSION}
    if ev.chat is not None:
        out["chat"] = ev.chat.encode()
        return out
    if ev.aborted is not None:
        out["aborted"] = {"reason": ev.aborted}
        return out
    out["engine"] = [e.to_dict() for e in ev.engine]
    if ev.after is not None:
        out["after"] = ev.after.encode()
    if ev.idle_for is not None:
        out["idle_for"] = ev.idle_for
    out["board"] = [change.encode() for change in ev.board]
    if ev.clouds is not None:
        out["wow"] = ev.clouds.encode()
    if ev.effect_moves:
        out["effect_moves"] = [[effect, to] for effect, to in ev.effect_moves]
    if ev.notation:
        out["notation"] = ev.notation
    return out


def decode(seq: int, time: float, kind: str, payload: Mapping[str, Any]) -> MatchEvent:
    """The typed event of a stored payload of any version (the module doc)."""
    chat = payload.get("chat")
    if chat is not None:
        return MatchEvent(seq, time, kind, chat=ChatLine.decode(chat))
    if "aborted" in payload:
        return MatchEvent(seq, time, kind, aborted=str(payload["aborted"].get("reason", "")))
    after, wow = payload.get("after"), payload.get("wow")
    return MatchEvent(
        seq, time, kind,
        engine=tuple(EngineEvent.from_dict(e) for e in payload.get("engine") or ()),
        after=None if after is None else After.decode(after),
        board=tuple(SquareChange.decode(e, seq) for e in payload.get("board") or ()),
        clouds=None if wow is None else CloudCover.decode(wow),
        effect_moves=tuple((str(e), int(to)) for e, to in payload.get("effect_moves") or ()),
        notation=str(payload.get("notation") or ""),
        idle_for=payload.get("idle_for"), chat=None)


def play_notation(ruleset: Ruleset, cells: Sequence[Tile | None], head: EngineEvent) -> str:
    """The engine's notation of a play (a ``play`` engine event) on ``cells``, the board before
    it (``engine.notation.event_notation``: ``8H WORD``, or ``H8 @bomb`` for action tiles only);
    "" for any other event."""
    if head.type != "play":
        return ""
    return event_notation(ruleset.board, tuple(cells), head.data)


def upgrade_log(ruleset: Ruleset, events: Sequence[MatchEvent]) -> list[MatchEvent]:
    """A whole log of any versions as today's: version 0's plays get their notation, written
    from the board before each play as the log's board changes rebuild it."""
    if all(ev.notation or ev.kind != "turn-played" for ev in events):
        return list(events)
    layout = ruleset.board
    cells: list[Tile | None] = [None] * (layout.rows * layout.cols)
    out = []
    for ev in events:
        if ev.kind == "turn-played" and ev.engine and not ev.notation:
            ev = replace(ev, notation=play_notation(ruleset, cells, ev.head))
        for change in ev.board:
            cells[change.index] = change.tile
        out.append(ev)
    return out
