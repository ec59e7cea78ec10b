"""Replay a GCG record on the engine and report every disagreement with it.

The replay does not check words (records come from other word lists). Before each move the
player gets, with ``set_rack``, the rack the record shows (the other racks go back to the bag,
so the bag always holds every tile not on the board). Each placement goes through the engine's
placement rules and scorer; pass and exchange go through ``apply`` too. Adjustments (challenge
bonus, time penalty, out-play bonus, end-of-game rack penalty) and phonies taken back are
checked as record arithmetic. Every running total is recomputed from the player's previous
total and the move's score.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from wordarena.engine.board import Cells, parse_position, square_name, with_tiles, without_tiles
from wordarena.engine.errors import InputError, Rule, RuleError
from wordarena.engine.game import Event, Exchange, GameState, Pass, Play, apply, set_rack, start_game
from wordarena.engine.game.actions import Move as TileMove
from wordarena.engine.interchange.gcg import LETTER_SEPARATOR, MOVE_SEPARATOR, GameRecord, Move, MoveKind
from wordarena.engine.interchange.pragmas import record_seed
from wordarena.engine.notation import format_play, placement_from_action, word_chars
from wordarena.engine.placement import Placement
from wordarena.engine.rulesets.layout import BoardLayout
from wordarena.engine.rulesets.model import OutRule, Ruleset
from wordarena.engine.tiles import ACTION_PREFIX, BLANK, Tile


@dataclass(frozen=True, slots=True)
class Finding:
    """One disagreement between a record and the engine, at a line of the record."""

    line: int
    code: str  # "score-mismatch", "total-mismatch", an engine rule code ("not-connected") …
    message: str

    def to_dict(self) -> dict[str, object]:
        return {"line": self.line, "code": self.code, "message": self.message}


@dataclass(frozen=True, slots=True)
class Step:
    """A move replayed: the state after it, the engine's score (plays) and its findings."""

    move: Move
    state: GameState
    score: int | None
    findings: tuple[Finding, ...]
    before: GameState | None = None  # the position the mover faced, their rack dealt (turns only)


def check_record(record: GameRecord, ruleset: Ruleset, leaves: bool = False) -> list[Finding]:
    """Every disagreement between ``record`` and the engine playing ``ruleset``.

    With ``leaves``, also report a rack that lacks the tiles its player kept from their last
    turn (off by default: annotated records often show only the tiles an opponent played)."""
    unsupported = unsupported_letters(record, ruleset)
    if unsupported:
        return [unsupported]
    findings: list[Finding] = []
    for step in replay_record(record, ruleset, leaves):
        findings.extend(step.findings)
    return findings


def unsupported_letters(record: GameRecord, ruleset: Ruleset) -> Finding | None:
    """A finding when the record uses letters the ruleset's tile set does not have."""
    known = set(ruleset.tiles.counts)
    for move in record.moves:
        letters = {ch.upper() for ch in move.rack + move.word if ch.isalpha()}
        if move.kind is MoveKind.EXCHANGE and move.word.isdigit():
            letters = {ch for ch in move.rack if ch.isalpha()}
        bad = sorted(letters - known)
        if bad:
            return Finding(
                move.line, "unsupported-letters",
                f"the record uses {''.join(bad)}, which the {ruleset.tiles.id} tile set does not "
                f"have; pick the record's language (e.g. --language {_guess_language(bad)})",
            )
    return None


def _guess_language(letters: list[str]) -> str:
    return "pl" if set(letters) & set("ĄĆĘŁŃÓŚŹŻ") else "…"


def replay_record(record: GameRecord, ruleset: Ruleset, leaves: bool = False) -> Iterator[Step]:
    """Replay ``record`` move by move on the engine (words unchecked), yielding each step.
    ``leaves`` as for ``check_record``."""
    players = len(record.players)
    if not ruleset.min_players <= players <= ruleset.max_players:
        raise InputError(
            f"{ruleset.name} is played by {ruleset.min_players}-{ruleset.max_players} players; "
            f"the record has {players}", "players",
        )
    replay = _Replay(record, ruleset, leaves)
    for move in record.moves:
        yield replay.step(move)


class _Replay:
    """The running replay: engine state, the record's totals, and what a phony takes back."""

    def __init__(self, record: GameRecord, ruleset: Ruleset, leaves: bool) -> None:
        self.record = record
        self.check_leaves = leaves
        self.ruleset = ruleset
        seed = record_seed(record) or 0  # War of Words' random effects replay from it
        state, _ = start_game(ruleset, len(record.players), seed=seed, check_words=False)
        self.state = _racks_to_bag(state)
        self.totals = [0] * len(record.players)  # as the record writes them
        self.correct = [0] * len(record.players)  # as the arithmetic says
        self.next_seat: int | None = None
        self.gone: set[int] = set()  # seats out of the game (``(left)`` lines)
        self.last_play: tuple[int, tuple[int, ...], int] | None = None  # seat, squares, score
        self.leaves: list[Counter[str] | None] = [None] * len(record.players)
        self.findings: list[Finding] = []
        self.before: GameState | None = None  # set when a turn deals the mover's rack
        self.effects: list[tuple[int, int]] = []  # War of Words: (seat, points) still to write

    def note(self, move: Move, code: str, message: str) -> None:
        self.findings.append(Finding(move.line, code, message))

    def step(self, move: Move) -> Step:
        self.findings = []
        self.before = None
        handler = {
            MoveKind.PLAY: self.play, MoveKind.PASS: self.pass_, MoveKind.EXCHANGE: self.exchange,
            MoveKind.PHONY: self.phony, MoveKind.OUT: self.out, MoveKind.END_RACK: self.end_rack,
            MoveKind.EFFECT: self.effect, MoveKind.LEFT: self.left,
        }.get(move.kind, self.adjustment)
        score = handler(move)
        self.check_total(move)
        return Step(move, self.state, score, tuple(self.findings), self.before)

    # --- turns -----------------------------------------------------------------------------

    def take_turn(self, move: Move, rack: list[str], used: list[str]) -> None:
        """Turn order, the rack against the last leave, and the rack dealt from the bag."""
        for seat, points in self.effects:
            self.note(move, "effect-missing", f"the record leaves out an effect of {points:+d} "
                      f"for {self.record.players[seat].nick}")
        self.effects = []
        if self.next_seat is not None and move.seat != self.next_seat:
            expected = self.record.players[self.next_seat].nick
            self.note(move, "out-of-turn", f"{move.nick} moves but it is {expected}'s turn")
        self.next_seat = self.after(move.seat)
        leave = self.leaves[move.seat]
        if self.check_leaves and move.rack and leave is not None:
            missing = leave - Counter(rack)
            if missing:
                self.note(move, "rack-mismatch",
                          f"rack {move.rack} lacks {_tiles(missing)} kept from the last turn")
        if move.rack:
            missing = Counter(used) - Counter(rack)
            if missing:
                self.note(move, Rule.TILES_NOT_ON_RACK.value,
                          f"the move uses {_tiles(missing)}, not on the rack {move.rack}")
            rack = rack + list(missing.elements())
        else:
            rack = list(used)
        self.deal(move, rack)

    def after(self, seat: int) -> int:
        """The seat to move after ``seat``: the next one still in the game."""
        n = len(self.record.players)
        for step in range(1, n + 1):
            if (seat + step) % n not in self.gone:
                return (seat + step) % n
        return seat

    def deal(self, move: Move, rack: list[str]) -> None:
        """Give the mover exactly ``rack``; tiles no longer unseen are reported and made up."""
        state = _racks_to_bag(self.state)
        try:
            state = set_rack(state, move.seat, tuple(rack))
        except InputError:
            missing = Counter(rack) - Counter(state.bag)
            self.note(move, "rack-not-in-bag",
                      f"rack {move.rack or _tiles(Counter(rack))} needs {_tiles(missing)}, but "
                      f"every such tile is already on the board")
            bag = list((Counter(state.bag) - Counter(rack)).elements())
            racks = _put(state.racks, move.seat, tuple(rack))
            state = state.evolve(racks=racks, bag=tuple(bag))
        self.state = state.evolve(to_move=move.seat, result=None, zero_run=0, pending=None)
        self.before = self.state

    def play(self, move: Move) -> int | None:
        layout = self.ruleset.board
        placements: list[Placement] = []
        span: list[tuple[int, int]] = []
        across = True
        try:
            if move.position:
                row, col, across = parse_position(move.position, layout.rows, layout.cols)
                placements, span = self.placements(move, row, col, across)
            moves = []
            for action in move.actions:
                if MOVE_SEPARATOR in action:
                    moves.append(_tile_move(layout, action))
                    continue
                if LETTER_SEPARATOR in action:
                    square, _, char = action.partition(LETTER_SEPARATOR)
                    r, c, _ = parse_position(square, layout.rows, layout.cols)
                    placements.append(Placement(r, c, char.upper(), char.islower()))
                    continue
                square, at, token = action.partition(ACTION_PREFIX)
                placements.append(placement_from_action(layout, square, at + token))
        except InputError as exc:
            self.note(move, "bad-position", exc.detail)
            return None
        tokens = [p.token for p in placements]
        rack = _rack_tokens(move.rack)
        self.take_turn(move, rack, tokens)
        self.leaves[move.seat] = (Counter(rack) - Counter(tokens)) if move.rack else None
        before = self.state.cells
        try:
            self.state, events = apply(self.state, Play(move.seat, tuple(placements), tuple(moves)))
            score: int | None = int(events[0].data["score"])
            self.effects = _effects(events)
        except RuleError as exc:
            self.note(move, exc.code, f"{format_play(move.position, move.word)}: {exc}")
            left = Counter(self.state.racks[move.seat]) - Counter(tokens)
            self.state = self.state.evolve(
                cells=_force(self.state.cells, layout, placements, move.seat),
                racks=_put(self.state.racks, move.seat, tuple(left.elements())),
            )
            score = None
        if span:
            self.check_span(move, span, across)
        if score is not None and score != move.score:
            self.note(move, "score-mismatch", f"{format_play(move.position, move.word)} scores {score}, "
                      f"the record says {move.score}")
        squares = tuple(i for i, cell in enumerate(self.state.cells) if cell and not before[i])
        self.last_play = (move.seat, squares, move.score)
        return score

    def placements(self, move: Move, row: int, col: int, across: bool
                   ) -> tuple[list[Placement], list[tuple[int, int]]]:
        """The new tiles of a written word, and every square the word covers."""
        layout = self.ruleset.board
        cells = self.state.cells
        placements: list[Placement] = []
        span: list[tuple[int, int]] = []
        for char, through in word_chars(move.word):
            r, c = row, col
            row, col = (row, col + 1) if across else (row + 1, col)
            span.append((r, c))
            on_board = layout.in_bounds(r, c)
            tile = cells[layout.index(r, c)] if on_board else None
            if through or (tile is not None and char != "."):
                self.check_through(move, r, c, tile, "" if char == "." else char, on_board)
                continue
            placements.append(Placement(r, c, char.upper(), char.islower()))
        return placements, span

    def check_through(self, move: Move, r: int, c: int, tile: Tile | None, char: str,
                      on_board: bool) -> None:
        where = square_name(r, c) if on_board else f"({r + 1}, {c + 1})"
        if tile is None:
            state = "empty" if on_board else "off the board"
            self.note(move, "through-empty", f"{move.word} plays through {where}, which is {state}")
            return
        if char and char.upper() != tile.letter:
            self.note(move, "through-mismatch",
                      f"{move.word} writes {char} on {where}, which holds {tile.letter}")

    def check_span(self, move: Move, span: list[tuple[int, int]], across: bool) -> None:
        """The written word must be the whole run of tiles along its line."""
        layout = self.ruleset.board
        dr, dc = (0, 1) if across else (1, 0)
        (r0, c0), (r1, c1) = span[0], span[-1]
        for r, c in ((r0 - dr, c0 - dc), (r1 + dr, c1 + dc)):
            if layout.in_bounds(r, c) and self.state.cells[layout.index(r, c)] is not None:
                self.note(move, "word-mismatch",
                          f"{move.word} at {move.position} is touched by a tile on "
                          f"{square_name(r, c)} that the record leaves out")

    def pass_(self, move: Move) -> int | None:
        rack = _rack_tokens(move.rack)
        self.take_turn(move, rack, [])
        self.leaves[move.seat] = Counter(rack) if move.rack else None
        self.engine_turn(move, Pass(move.seat))
        self.expect_zero(move)
        return None

    def exchange(self, move: Move) -> int | None:
        rack = _rack_tokens(move.rack)
        tiles = [] if move.word.isdigit() else _rack_tokens(move.word)
        self.take_turn(move, rack, tiles)
        self.leaves[move.seat] = (Counter(rack) - Counter(tiles)) if move.rack and tiles else None
        count = int(move.word) if move.word.isdigit() else len(tiles)
        self.check_exchange_bag(move, count)
        if tiles:
            self.engine_turn(move, Exchange(move.seat, tuple(tiles)))
        self.expect_zero(move)
        return None

    def check_exchange_bag(self, move: Move, count: int) -> None:
        """The bag (unseen tiles less the opponents' full racks) must allow the exchange."""
        others = (len(self.record.players) - 1) * self.ruleset.rack_size
        bag = len(self.state.bag) - others
        need = max(self.ruleset.exchange.min_bag, count)
        if bag < need:
            self.note(move, Rule.EXCHANGE_BAG_TOO_SMALL.value,
                      f"exchanging {count} needs {need} tiles in the bag; it held {max(bag, 0)}")

    def engine_turn(self, move: Move, action: Pass | Exchange) -> None:
        try:
            self.state, events = apply(self.state, action)
            self.effects = _effects(events)
        except RuleError as exc:
            if exc.rule is not Rule.EXCHANGE_BAG_TOO_SMALL:  # checked on the real bag above
                self.note(move, exc.code, str(exc))

    def expect_zero(self, move: Move) -> None:
        if move.score != 0:
            self.note(move, "score-mismatch", f"a {move.kind.value} scores 0, "
                      f"the record says {move.score}")

    # --- adjustments -----------------------------------------------------------------------

    def phony(self, move: Move) -> int | None:
        last = self.last_play
        if last is None or last[0] != move.seat:
            self.note(move, "nothing-to-withdraw",
                      f"-- takes back {move.nick}'s last play, but the last play is not theirs")
            return None
        seat, squares, score = last
        self.state = self.state.evolve(cells=without_tiles(self.state.cells, squares))
        self.last_play = None
        rack = _rack_tokens(move.rack)
        self.leaves[seat] = Counter(rack) if move.rack else None
        if move.score != -score:
            self.note(move, "phony-score",
                      f"taking back a play of {score} scores {-score}, the record says {move.score}")
        return -score

    def out(self, move: Move) -> int | None:
        letters = _rack_tokens(move.word)
        factor = 2 if self.ruleset.out_rule is OutRule.DOUBLE else 1
        expected = factor * self.value(letters)
        if move.score != expected:
            self.note(move, "out-bonus-mismatch",
                      f"going out against ({move.word}) earns {expected}, the record says {move.score}")
        unseen = Counter(self.ruleset.tiles.initial_bag()) - _board_tokens(self.state.cells)
        if len(self.record.players) == 2 and unseen != Counter(letters):
            self.note(move, "out-rack-mismatch",
                      f"the out-play bonus names ({move.word}) but the tiles not on the board are "
                      f"{_tiles(unseen)}")
        return expected

    def end_rack(self, move: Move) -> int | None:
        expected = -self.value(_rack_tokens(move.word))
        if move.score != expected:
            self.note(move, "end-penalty-mismatch",
                      f"({move.word}) left on the rack costs {-expected}, the record says {move.score}")
        return expected

    def effect(self, move: Move) -> int | None:
        """War of Words: the next score change the engine's effects made, in the engine's order."""
        if not self.effects:
            self.note(move, "effect-mismatch", f"no effect changed {move.nick}'s score here")
            return None
        seat, points = self.effects.pop(0)
        if (seat, points) != (move.seat, move.score):
            self.note(move, "effect-mismatch",
                      f"the next effect gives {points:+d} to {self.record.players[seat].nick}, "
                      f"the record says {move.score:+d} to {move.nick}")
        return points

    def left(self, move: Move) -> int | None:
        """A player leaves the game (resigned, timed out, left, kicked): the turn order skips
        them from now on; it scores nothing."""
        self.gone.add(move.seat)
        if self.next_seat == move.seat:
            self.next_seat = self.after(move.seat)
        self.expect_zero(move)
        return None

    def adjustment(self, move: Move) -> int | None:
        """Challenge bonuses and time penalties: only their sign is a rule."""
        if move.kind is MoveKind.CHALLENGE and move.score < 0:
            self.note(move, "bad-adjustment", f"a challenge bonus of {move.score} is negative")
        if move.kind is MoveKind.TIME and move.score > 0:
            self.note(move, "bad-adjustment", f"a time penalty of +{move.score} is positive")
        return None

    def value(self, tokens: list[str]) -> int:
        return sum(self.ruleset.tiles.value(t) for t in tokens)

    def check_total(self, move: Move) -> None:
        """The total must be the previous total plus the score. After a wrong total, the next
        one may go on from either the written or the correct total (no cascade)."""
        previous, correct = self.totals[move.seat], self.correct[move.seat]
        if move.total not in (previous + move.score, correct + move.score):
            self.note(move, "total-mismatch",
                      f"{move.nick}: {previous} {'+' if move.score >= 0 else '-'} "
                      f"{abs(move.score)} = {previous + move.score}, the record says {move.total}")
            self.correct[move.seat] = previous + move.score
        else:
            self.correct[move.seat] = move.total
        self.totals[move.seat] = move.total


# --- helpers -------------------------------------------------------------------------------


def _rack_tokens(text: str) -> list[str]:
    """Rack tokens of a written rack: letters upper-cased, ``?`` the blank, ``*`` a War of
    Words wildcard; action tiles (``@bomb``, ``@3W``) end it."""
    letters, *actions = text.split(ACTION_PREFIX)
    return ([BLANK if ch == BLANK else ch.upper() for ch in letters]
            + [ACTION_PREFIX + name for name in actions])


def _tile_move(layout: BoardLayout, text: str) -> TileMove:
    """``H8>J9``: a Rain / Whirlwind moved from H8 to J9."""
    start, _, end = text.partition(MOVE_SEPARATOR)
    (r0, c0, _), (r1, c1, _) = (parse_position(s, layout.rows, layout.cols) for s in (start, end))
    return TileMove(r0, c0, r1, c1)


def _effects(events: list[Event]) -> list[tuple[int, int]]:
    """(seat, points) of each score change a War of Words effect made, in order."""
    return [(e.seat, int(e.data.get("points", 0))) for e in events
            if e.type == "effect" and e.seat is not None and int(e.data.get("points", 0))]


def _tiles(counter: Counter[str]) -> str:
    return "".join(sorted(counter.elements()))


def _board_tokens(cells: Cells) -> Counter[str]:
    return Counter(t.token for t in cells if t is not None)


def _racks_to_bag(state: GameState) -> GameState:
    """Empty every rack: the bag holds exactly the tiles that are not on the board."""
    unseen = Counter(state.ruleset.tiles.initial_bag()) - _board_tokens(state.cells)
    return state.evolve(racks=((),) * state.players, bag=tuple(unseen.elements()))


def _put(values: tuple[tuple[str, ...], ...], index: int, value: tuple[str, ...]
         ) -> tuple[tuple[str, ...], ...]:
    return (*values[:index], value, *values[index + 1:])


def _force(cells: Cells, layout: BoardLayout, placements: list[Placement], seat: int) -> Cells:
    """Lay a refused play's tiles on the empty squares anyway, so that the board stays in step."""
    tiles = [
        (layout.index(p.row, p.col), Tile(p.letter, p.blank, seat))
        for p in placements
        if layout.in_bounds(p.row, p.col) and cells[layout.index(p.row, p.col)] is None
    ]
    return with_tiles(cells, tiles)
