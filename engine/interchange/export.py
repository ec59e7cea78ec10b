"""A played game as a GCG record: ``record_from_events(events, players)``.

The input is a match's event log exactly as ``engine.game.start_game`` and ``apply`` return it
(and as the match server stores it), so the CLI's self-play and the match server's records are
written by this one function. Nothing is replayed: the board and the racks are followed from the
events alone (no lexicon is needed), and each play is written with the notation module.

What the record holds (``docs/interchange.md``, *Records wordarena writes*):

* ``#player1`` … from the caller's (nick, name) per seat; ``#lexicon`` the ruleset's lexicon;
  the pragmas ``#ruleset`` (the ruleset id, as ``gcg check --ruleset`` takes it) and
  ``#language`` (as ``gcg check --language``); with racks shown, ``#seed`` (the match's seed:
  it fixes the bag's order, so it is written only where racks may be seen).
* one line per turn: plays (``8D WINDY``), passes (``-``), exchanges (``-KOI``, or ``-3``
  without racks), Word Tiles' checked plays (a play that fails the check is taken back with
  ``--``; the checker who loses the turn by a check that holds passes), the end-of-game lines
  (``(RACK) +N`` for going out, ``(RACK) -N`` for the tiles left) and, in War of Words, the
  action tiles of a play and every score change an effect causes (``(effect)`` lines);
* wordarena's ``(left)`` line when a seat resigns, times out, leaves or is kicked (a note says
  which), and ``#note`` lines for what GCG has no move for: (War of Words) what each effect did.

``racks=False`` leaves every hidden rack out (and writes exchanges as a count): a record of a
running match must not show hidden racks. A play's line then shows as its rack the tiles it put
down (``>ann: CAT 8G CAT +10 10``), which every player saw: GCG readers (macondo's among them)
need a rack token on a play line. The racks left at the end of a finished game are public (the
``game-over`` event shows them), so the end-of-game lines are written either way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from wordarena.engine.board import COLUMNS, Cells, empty_cells, square_name, with_tiles, without_tiles
from wordarena.engine.errors import InputError
from wordarena.engine.families import parse_ruleset_id
from wordarena.engine.game.events import Event
from wordarena.engine.interchange.gcg import (
    LETTER_SEPARATOR,
    MOVE_SEPARATOR,
    GameRecord,
    Move,
    MoveKind,
    Player,
)
from wordarena.engine.interchange.pragmas import LANGUAGE, RULESET, SEED
from wordarena.engine.notation import ACTION_FACING_SEPARATOR, placed_notation, placements_from_word
from wordarena.engine.rulesets.model import OutRule, Ruleset
from wordarena.engine.tiles import BLANK, Tile, is_letter_token, remove_tokens

DEPARTURES = {"resigned": "resigned", "timed-out": "ran out of time", "left": "left the game",
              "kicked": "was kicked"}


@dataclass
class _Writer:
    """The record being written, and the game followed event by event."""

    ruleset: Ruleset
    nicks: tuple[str, ...]
    show_racks: bool
    cells: Cells
    racks: list[tuple[str, ...]]
    totals: list[int]
    moves: list[Move] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # notes before the first move
    gone: set[int] = field(default_factory=set)  # seats that left the game (no rack counted)
    pending: Event | None = None  # Word Tiles: the play waiting for accept or check

    def line(self, seat: int, kind: MoveKind, score: int, *, rack: tuple[str, ...] = (),
             position: str = "", word: str = "", notes: tuple[str, ...] = (),
             actions: tuple[str, ...] = (), public: tuple[str, ...] = ()) -> None:
        """A move line; without racks shown, its rack is ``public``: the tiles a play put down,
        which every player saw (GCG readers need a rack token on a play line)."""
        self.totals[seat] += score
        shown = rack_text(rack) if self.show_racks else rack_text(public)
        self.moves.append(Move(self.nicks[seat], seat, shown, kind, position, word, score,
                               self.totals[seat], notes, actions=actions))

    def note(self, text: str) -> None:
        """A note on the last move line (before the first move: on the record)."""
        if not self.moves:
            self.notes.append(text)
        else:
            self.moves[-1] = replace(self.moves[-1], notes=(*self.moves[-1].notes, text))

    # --- turns ---------------------------------------------------------------------------

    def play(self, event: Event) -> None:
        """A play's line, written from the board before it; its tiles go on the board."""
        seat = _seat(event)
        data = event.data
        placed = data.get("placed") or []
        rack = self.racks[seat]
        notation = placed_notation(self.ruleset.board, self.cells, placed, bool(data["across"]))
        position, _, word = notation.partition(" ")
        letters: tuple[str, ...] = ()
        if placed and not self.straight(position, word, placed):  # through a Portal pair
            position, word = "", ""
            letters = tuple(letter_text(self.ruleset, p) for p in placed)
        actions = (*letters,
                   *(action_text(self.ruleset, a) for a in data.get("actions") or []),
                   *(move_text(self.ruleset, m) for m in data.get("moves") or []))
        self.cells = with_tiles(self.cells, [(int(i), Tile(str(letter), bool(blank), seat))
                                             for i, letter, blank in placed])
        used = [BLANK if blank else str(letter) for _, letter, blank in placed]
        used += [str(a[1]) for a in data.get("actions") or []]
        self.racks[seat] = remove_tokens(rack, used)
        self.line(seat, MoveKind.PLAY, int(data["score"]), rack=rack, position=position,
                  word=word, actions=actions, public=tuple(used))

    def straight(self, position: str, word: str, placed: Sequence[Sequence[Any]]) -> bool:
        """True when ``position word`` lays exactly the ``placed`` tiles (False for a play
        whose words run through a Portal pair, which the notation writes as a straight line)."""
        try:
            laid = placements_from_word(self.ruleset.board, self.cells, position, word)
        except InputError:
            return False
        cols = self.ruleset.board.cols
        return sorted((p.row * cols + p.col, p.letter, p.blank) for p in laid) == sorted(
            (int(i), str(letter), bool(blank)) for i, letter, blank in placed)

    def exchange(self, event: Event) -> None:
        seat = _seat(event)
        private = event.data.get("private") or {}
        returned = [str(t) for t in private.get("returned", [])]
        rack = self.racks[seat]
        self.racks[seat] = remove_tokens(rack, returned) + tuple(private.get("drawn", []))
        word = rack_text(returned) if self.show_racks and returned else str(event.data["count"])
        self.line(seat, MoveKind.EXCHANGE, 0, rack=rack, word=word)

    def decided(self, event: Event) -> None:
        """Word Tiles: the pending play accepted, standing after a check, or taken back."""
        pending, self.pending = self.pending, None
        if pending is None:
            raise InputError(f"{event.type} with no pending play", "events")
        if event.type == "play-accepted" or event.data.get("held"):
            self.play(pending)
            if event.type == "play-checked":  # the check held: the checker loses the turn
                self.line(_seat(event), MoveKind.PASS, 0, rack=self.racks[_seat(event)])
                words = ", ".join(str(w) for w in pending.data.get("words", []))
                self.note(f"checked by {self.nicks[_seat(event)]}: {words}: the play holds")
            return
        score = int(pending.data["score"])
        self.play(pending)
        seat = _seat(pending)
        self.cells = without_tiles(self.cells, [int(p[0]) for p in pending.data["placed"]])
        self.racks[seat] = self.racks[seat] + tuple(
            BLANK if p[2] else str(p[1]) for p in event.data.get("returned", []))
        self.line(seat, MoveKind.PHONY, -score, rack=self.racks[seat])
        self.note(f"checked by {self.nicks[_seat(event)]}: not words: "
                  f"{', '.join(event.data.get('invalid_words', []))}")

    def effect(self, event: Event) -> None:
        """War of Words: a score change is an ``(effect)`` line; a destroyed square leaves the
        board; every effect gets a note."""
        data = event.data
        squares = [str(s) for s in data.get("squares", [])]
        if data.get("destroyed"):
            layout = self.ruleset.board
            self.cells = without_tiles(self.cells, [_index(layout.cols, s) for s in squares])
        text = effect_text(data, self.nicks)
        if event.seat is not None and int(data.get("points", 0)):
            self.line(_seat(event), MoveKind.EFFECT, int(data["points"]), notes=(text,))
        else:
            self.note(text)

    def game_over(self, event: Event) -> None:
        """The end-of-game lines: going out, the tiles left on the racks."""
        data = event.data
        racks = [tuple(str(t) for t in r) for r in data.get("racks", [])]
        adjustments = [int(a) for a in data.get("adjustments", [])]
        reason = data.get("reason")
        self.note(f"game over: {reason}")
        if reason not in ("out", "zero-turns"):  # a departure: no rack is counted
            return
        letters = [[] if s in self.gone else [t for t in r if is_letter_token(t)]
                   for s, r in enumerate(racks)]
        skip: set[int] = set()
        if reason == "out" and self.ruleset.out_rule is not OutRule.DEDUCT:
            out = max((s for s in range(len(racks)) if not letters[s] and s not in self.gone),
                      key=lambda s: adjustments[s])
            others = [t for s in range(len(racks)) if s != out for t in letters[s]]
            if others:
                self.line(out, MoveKind.OUT, adjustments[out], word=rack_text(others))
            skip.add(out)
        if self.ruleset.out_rule is OutRule.DOUBLE and reason == "out":
            return  # the player out gains twice; nobody else loses anything
        for seat, adjustment in enumerate(adjustments):
            if seat not in skip and letters[seat]:
                self.line(seat, MoveKind.END_RACK, adjustment, word=rack_text(letters[seat]))


def lexicon_name(name: str) -> str:
    """The ``#lexicon`` of a record: the word list's own name, which a reader can look up
    (``docs/lexicon.md``): ``word-list-4.1.0+wwf`` for ``en`` (npm word-list 4.1.0 and the Words
    With Friends additions), the Debian list's package for the others (``wbritish+wwf``,
    ``wspanish``); a name the catalog does not know is written as it is."""
    from wordarena.engine.lexicon.catalog import SOURCES

    source = SOURCES.get(name)
    if source is None:
        return name
    base = source.debian_package or ("word-list-4.1.0" if source.bundled else name)
    return base + ("+wwf" if source.additions else "")


def rack_text(tokens: Sequence[str]) -> str:
    """A rack as GCG writes it: letters and blanks (``?``) in rack order, then War of Words
    wildcards (``*``) and action tiles (``@bomb``)."""
    letters = [t for t in tokens if is_letter_token(t)]
    return "".join(letters) + "".join(t for t in tokens if not is_letter_token(t))


def letter_text(ruleset: Ruleset, placed: Sequence[Any]) -> str:
    """A letter of a play event (``[index, "A", blank]``) as a move token: ``G5=A`` (a blank
    in lower case, ``G5=a``; a wildcard ``G5=*``)."""
    row, col = divmod(int(placed[0]), ruleset.board.cols)
    letter = str(placed[1]).lower() if placed[2] else str(placed[1])
    return f"{square_name(row, col)}{LETTER_SEPARATOR}{letter}"


def action_text(ruleset: Ruleset, action: Sequence[Any]) -> str:
    """An action tile of a play event (``[index, "@blaster", "right"]``) as a move token:
    ``K10@blaster:right`` (the square, the rack token, the facing)."""
    row, col = divmod(int(action[0]), ruleset.board.cols)
    facing = f"{ACTION_FACING_SEPARATOR}{action[2]}" if len(action) > 2 and action[2] else ""
    return f"{square_name(row, col)}{action[1]}{facing}"


def move_text(ruleset: Ruleset, move: Sequence[Any]) -> str:
    """A move of a Rain / Whirlwind (``[from index, to index]``) as a move token: ``H8>J9``."""
    cols = ruleset.board.cols
    return MOVE_SEPARATOR.join(square_name(*divmod(int(i), cols)) for i in move[:2])


def effect_text(data: Mapping[str, Any], nicks: Sequence[str]) -> str:
    """A War of Words effect as a note: ``bomb by alice at H8: -12 (H7 H8) destroyed``."""
    by = data.get("by")
    parts = [str(data.get("effect", "effect"))]
    if isinstance(by, int) and 0 <= by < len(nicks):
        parts.append(f"by {nicks[by]}")
    if data.get("at"):
        parts.append(f"at {data['at']}")
    text = " ".join(parts)
    points = int(data.get("points", 0))
    if points or data.get("squares"):
        text += f": {points:+d}"
    if data.get("squares"):
        text += f" ({' '.join(str(s) for s in data['squares'])})"
    if data.get("destroyed"):
        text += " destroyed"
    return "effect " + text


def _seat(event: Event) -> int:
    if event.seat is None:
        raise InputError(f"{event.type} event without a seat", "events")
    return event.seat


def _index(cols: int, name: str) -> int:
    """The index of a square named like ``H8``."""
    return (int(name[1:]) - 1) * cols + COLUMNS.index(name[0].upper())


def record_from_events(
    events: Sequence[Event], players: Sequence[tuple[str, str]], *, racks: bool = True,
    title: str = "", record_id: str = "",
) -> GameRecord:
    """The GCG record of the game ``events`` (a whole log, from ``game-started``) describe.

    ``players`` is (nick, full name) per seat; nicks must be distinct words without ``:``.
    ``racks=False`` writes no rack and no seed (a running match's record). ``record_id`` is
    written as ``#id`` (``authority identifier``, e.g. ``wordarena 4f2c…``)."""
    if not events or events[0].type != "game-started":
        raise InputError("an event log starts with game-started", "events[0]")
    head = events[0].data
    ruleset = parse_ruleset_id(str(head["ruleset"]))
    count = int(head["players"])
    nicks = _nicks(players, count)
    dealt = (head.get("private") or {}).get("racks") or [[] for _ in range(count)]
    writer = _Writer(ruleset, nicks, racks, empty_cells(ruleset.board.rows, ruleset.board.cols),
                     [tuple(str(t) for t in r) for r in dealt], [0] * count)
    for event in events[1:]:
        _follow(writer, event)
    pragmas = [(RULESET, ruleset.id), (LANGUAGE, ruleset.language)]
    if racks:
        pragmas.append((SEED, str(head["seed"])))
    over = any(e.type == "game-over" for e in events)
    final = () if over or not racks else tuple(
        (s, rack_text(r)) for s, r in enumerate(writer.racks) if r)
    return GameRecord(
        players=tuple(Player(s, nicks[s], players[s][1] or nicks[s]) for s in range(count)),
        moves=tuple(writer.moves), lexicon=lexicon_name(ruleset.lexicon), title=title, id=record_id,
        notes=tuple(writer.notes),
        final_racks=final, pragmas=tuple(pragmas),
    )


def _follow(writer: _Writer, event: Event) -> None:
    kind = event.type
    if kind == "play":
        writer.play(event)
    elif kind == "play-pending":
        writer.pending = event
    elif kind in ("play-accepted", "play-checked"):
        writer.decided(event)
    elif kind == "tiles-drawn":
        seat = _seat(event)
        drawn = (event.data.get("private") or {}).get("tiles", [])
        writer.racks[seat] = writer.racks[seat] + tuple(str(t) for t in drawn)
    elif kind == "passed":
        writer.line(_seat(event), MoveKind.PASS, 0, rack=writer.racks[_seat(event)])
    elif kind == "exchanged":
        writer.exchange(event)
    elif kind == "effect":
        writer.effect(event)
    elif kind in DEPARTURES:
        seat = _seat(event)
        writer.gone.add(seat)
        by = event.data.get("by")
        who = f" by {writer.nicks[by]}" if isinstance(by, int) else ""
        writer.line(seat, MoveKind.LEFT, 0,
                    notes=(f"{writer.nicks[seat]} {DEPARTURES[kind]}{who}",))
    elif kind == "game-over":
        writer.game_over(event)


def _nicks(players: Sequence[tuple[str, str]], count: int) -> tuple[str, ...]:
    if len(players) != count:
        raise InputError(f"the game has {count} players; {len(players)} were named", "players")
    nicks = tuple(nick for nick, _ in players)
    for nick in nicks:
        if not nick or any(ch.isspace() or ch == ":" for ch in nick):
            raise InputError(f"nick {nick!r} must be one word without ':'", "players")
    if len(set(nicks)) != len(nicks):
        raise InputError("two players share a nick", "players")
    return nicks
