"""The move log in words: one line per event of a match (plays in notation with their blanks in
lower case and action tiles as typed, checks, departures, chat, War of Words happenings) and a
play's score breakdown (``WoRD 24 (Wx2) + AB 5 = 29``).

Like :mod:`render` (the board, rack, seats and game screen), it works from contract messages, so
a live match, a spectated one and a replayed record read the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from wordarena.clients.cli import actions, effects, render
from wordarena.clients.cli.safe import safe_text
from wordarena.engine.board import parse_position, square_name
from wordarena.engine.errors import InputError
from wordarena.engine.tiles import ACTION_PREFIX as ACTION_MARK
from wordarena.v1 import common_pb2


def describe_event(event: common_pb2.Event, names: Sequence[str] | None = None) -> str | None:
    """One line for the move log; None for events not worth a line (heartbeats, draws)."""
    kind = event.WhichOneof("kind")

    def who(seat: int) -> str:
        return safe_text(names[seat]) if names and 0 <= seat < len(names) else f"seat {seat}"

    if kind == "turn_played":
        e = event.turn_played
        notation = play_text(e.notation, e.placements)
        # Rain / Whirlwind moves as typed: C3>E5 (the effect id names the square it left).
        for mv in e.effect_moves:
            notation += f" + {safe_text(mv.effect_id.partition('@')[2])}>{square_name(mv.to.row, mv.to.col)}"
        bingo = " (bingo!)" if e.breakdown.bingo_bonus else ""
        shown = sum(1 for _ in e.placements)
        hidden = max(0, e.breakdown.tiles_placed - shown)
        if not shown and not e.notation and not e.effect_moves:  # all under a cloud: nothing to name
            return f"{who(e.seat)} played under a cloud for {e.points}{bingo}"
        if hidden:
            notation += f" + {render.counted(hidden, 'tile')} under a cloud"
        return f"{who(e.seat)}: {notation} for {e.points}{bingo}"
    if kind == "turn_passed":
        return f"{who(event.turn_passed.seat)} passed"
    if kind == "tiles_exchanged":
        e = event.tiles_exchanged
        mine = f" ({render.rack_letters(common_pb2.Rack(tiles=e.returned))})" if e.returned else ""
        return f"{who(e.seat)} swapped {render.counted(e.count, 'tile')}{mine}"
    if kind == "play_pending":
        e = event.play_pending
        played = render.words_text(e.breakdown) or play_text("", e.placements)
        return (f"{who(e.seat)} played {played} for {e.breakdown.total} "
                f"(pending: {who(e.decider_seat)} accepts or checks)")
    if kind == "play_accepted":
        e = event.play_accepted
        return f"{who(e.decider_seat)} accepted {who(e.seat)}'s play ({e.points} pts)"
    if kind == "play_checked":
        e = event.play_checked
        if e.result == common_pb2.CHECK_RESULT_HELD:
            return (f"{who(e.checker_seat)} checked {who(e.seat)}'s play: the words are good, it "
                    f"stands ({e.points} pts) and {who(e.checker_seat)} lost the turn")
        return (f"{who(e.checker_seat)} checked {who(e.seat)}'s play: "
                f"{safe_text(', '.join(e.invalid_words)) or 'invalid'} not valid, taken back; "
                f"{who(e.checker_seat)} moves")
    if kind == "player_timed_out":
        return f"{who(event.player_timed_out.seat)} ran out of time"
    if kind == "player_left":
        e = event.player_left
        verb = "resigned" if e.kind == common_pb2.LEAVE_KIND_RESIGNED else "left"
        return f"{who(e.seat)} {verb}"
    if kind == "player_kicked":
        return f"{who(event.player_kicked.seat)} was kicked for idleness"
    if kind == "effect":
        return effects.line(event.effect, who)
    if kind == "chat":
        e = event.chat
        sender = safe_text(e.sender.display_name) or (who(e.seat) if e.HasField('seat') else '?')
        channel = " (observers)" if e.observers else ""
        return f"💬 {sender}{channel}: {safe_text(e.text)}"
    if kind == "game_over":
        e = event.game_over
        return "Game over: " + ", ".join(f"{who(fs.seat)} {fs.final_score}" for fs in e.final_scores)
    if kind == "match_started":
        return "The match started"
    return None


def describe_events(events: Iterable[common_pb2.Event], names: Sequence[str] | None = None) -> list[str]:
    """Move-log lines for events in order; the Effect events that tell one happening (one per
    player whose score it moved) make one line with every player's points."""
    out: list[str] = []
    group: list[common_pb2.Effect] = []

    def who(seat: int) -> str:
        return safe_text(names[seat]) if names and 0 <= seat < len(names) else f"seat {seat}"

    def flush() -> None:
        if group:
            out.append(effects.merged_line(group, who))
            group.clear()

    for event in events:
        if event.WhichOneof("kind") == "effect":
            if group and not effects.same_happening(group[0], event.effect):
                flush()
            group.append(event.effect)
            continue
        flush()
        line = describe_event(event, names)
        if line:
            out.append(line)
    flush()
    return out


def placement_text(p: common_pb2.Placement) -> str:
    """One placement as it is typed: ``H8 w`` (a blank), ``H8 @bomb``, ``H8 @blaster:right``."""
    where = square_name(p.square.row, p.square.col)
    if p.action:
        facing = actions.FACING_NAMES.get(p.facing)
        return f"{where} {actions.token(p.action, p.action_factor)}" + (f":{facing}" if facing else "")
    return f"{where} {p.letter.lower() if p.is_blank else safe_text(p.letter) or '*'}"


def play_text(notation: str, placements: Iterable[common_pb2.Placement]) -> str:
    """A play as it is typed: the word in notation (blanks in lower case, as on the board), then
    its action tiles joined with ``+`` (``8H WoRD + K10 @bomb``); the letters one by one when
    there is no notation."""
    placed = list(placements)
    parts = []
    if notation and not any(not p.action for p in placed) and ACTION_MARK in notation:
        return safe_text(notation)  # War of Words, action tiles only: ``H8 @bomb + K3 @3W``
    if notation:
        parts.append(blanks_lower(safe_text(notation), placed))
    else:
        parts.extend(placement_text(p) for p in placed if not p.action)
    parts.extend(placement_text(p) for p in placed if p.action)
    return " + ".join(parts) or "-"


def blanks_lower(notation: str, placements: Iterable[common_pb2.Placement]) -> str:
    """``8H WORD`` with the letters that blanks of ``placements`` stand for in lower case."""
    blanks = {(p.square.row, p.square.col) for p in placements if p.is_blank}
    position, _, word = notation.partition(" ")
    if not blanks or not word:
        return notation
    try:
        row, col, across = parse_position(position, 26, 26)
    except InputError:
        return notation
    letters = [ch.lower() if ((row, col + k) if across else (row + k, col)) in blanks else ch
               for k, ch in enumerate(word)]
    return f"{position} {''.join(letters)}"


def blank_squares(placements: Iterable[common_pb2.Placement],
                  board: common_pb2.BoardView | None = None) -> set[tuple[int, int]]:
    """The squares holding blanks: those of ``placements`` and those already on ``board``."""
    out = {(p.square.row, p.square.col) for p in placements if p.is_blank}
    if board is not None:
        out |= {(sq.square.row, sq.square.col) for sq in board.squares
                if sq.HasField("tile") and sq.tile.is_blank}
    return out


def _premium_applied_text(p: common_pb2.PremiumApplied, w: common_pb2.WordScore) -> str:
    """One premium a word used: ``Lx2``, ``Wx3``, or for a colour square the letter (else the
    square) it multiplied and the colour (``H8 on blue x3``): a colour square multiplies a letter
    of its colour, not the word."""
    if p.kind == common_pb2.PREMIUM_KIND_COLOUR:
        letter = next((ls.letter for ls in w.letters
                       if (ls.square.row, ls.square.col) == (p.square.row, p.square.col)), "")
        colour = common_pb2.TileColour.Name(p.colour).removeprefix("TILE_COLOUR_").lower()
        where = safe_text(letter) or f"{chr(65 + p.square.col)}{p.square.row + 1}"
        return f"{where} on {colour} x{p.factor}"
    return f"{'W' if p.kind == common_pb2.PREMIUM_KIND_WORD else 'L'}x{p.factor}"


def breakdown_text(b: common_pb2.ScoreBreakdown, blanks: set[tuple[int, int]] | None = None) -> str:
    """``WoRD 24 (Wx2) + AB 5 = 29 (+35 bingo)``: letters standing on ``blanks`` in lower case,
    as on the board."""
    words = []
    for w in b.words:
        prem = ",".join(_premium_applied_text(p, w) for p in w.premiums)
        word = safe_text(w.word)
        if len(w.letters) == len(word):  # the server writes a blank's letter in lower case
            word = "".join(ch.lower() if ls.letter.islower() or
                           (ls.square.row, ls.square.col) in (blanks or ()) else ch
                           for ch, ls in zip(word, w.letters, strict=True))
        words.append(f"{word} {w.score}" + (f" ({prem})" if prem else ""))
    bingo = f" (+{b.bingo_bonus} bingo)" if b.bingo_bonus else ""
    return (" + ".join(words) or "no word (action tiles only)") + f" = {b.total}{bingo}"
