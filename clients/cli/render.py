"""Drawing a match with ``rich``: board (premiums, Word Tiles colours, last move, coordinates), rack
with values, seats with scores and clocks, whose turn, tiles left, the last moves, the result.

The move log's lines and score breakdowns are :mod:`movelog`'s; the legend is :mod:`legend`'s and
War of Words effects on the board :mod:`effects`'.

Everything works from contract messages (``MatchView``, ``Event``), so the same code draws a live
match, a spectated one and a replayed record.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from wordarena.clients.cli import actions, effects
from wordarena.clients.cli.clocks import clock_remaining as clock_remaining
from wordarena.clients.cli.clocks import clock_text, shown_deadlines
from wordarena.clients.cli.clocks import format_clock as format_clock
from wordarena.clients.cli.safe import safe_text
from wordarena.engine.board import COLUMNS
from wordarena.engine.rulesets.layout import SAND, STAR, TITANIUM, WATER, BoardLayout
from wordarena.engine.tiles import Tile
from wordarena.v1 import common_pb2, errors_pb2, match_pb2

# Square styles -------------------------------------------------------------------------------

TILE_STYLE = "bold black on #e8d3a0"
BLANK_TILE_STYLE = "bold #555555 on #e8d3a0"
LAST_MOVE_STYLE = "bold black on #ffd700"
PENDING_STYLE = "bold black on #c0a0ff"
ACTION_STYLE = "bold white on #6b3fa0"
START_STYLE = "bold white on #b03060"
PLAIN_STYLE = "#606060 on #1e3a2a"
HIDDEN_STYLE = "white on #8899aa"
_WORD_STYLES = {2: "bold white on #d47a9a", 3: "bold white on #c0392b", 4: "bold white on #7d1010"}
_LETTER_STYLES = {2: "bold white on #4aa3df", 3: "bold white on #1f5fa8", 4: "bold white on #0b2f66"}
COLOUR_STYLES = {
    common_pb2.TILE_COLOUR_YELLOW: "bold black on #f1c40f",
    common_pb2.TILE_COLOUR_GREEN: "bold black on #2ecc71",
    common_pb2.TILE_COLOUR_BLUE: "bold white on #3498db",
    common_pb2.TILE_COLOUR_RED: "bold white on #e74c3c",
}
_COLOUR_BY_VALUE = {1: common_pb2.TILE_COLOUR_YELLOW, 2: common_pb2.TILE_COLOUR_GREEN,
                    3: common_pb2.TILE_COLOUR_BLUE, 5: common_pb2.TILE_COLOUR_RED}
_COLOUR_LETTER = {common_pb2.TILE_COLOUR_YELLOW: "y", common_pb2.TILE_COLOUR_GREEN: "g",
                  common_pb2.TILE_COLOUR_BLUE: "b", common_pb2.TILE_COLOUR_RED: "r"}
_TERRAIN = {common_pb2.TERRAIN_KIND_WATER: ("~~", "white on #1060c0"),
            common_pb2.TERRAIN_KIND_SAND: ("::", "black on #d8c078")}


_SHORT_PREMIUMS = {(common_pb2.PREMIUM_KIND_WORD, 2): "DW", (common_pb2.PREMIUM_KIND_WORD, 3): "TW",
                   (common_pb2.PREMIUM_KIND_LETTER, 2): "DL", (common_pb2.PREMIUM_KIND_LETTER, 3): "TL",
                   (common_pb2.PREMIUM_KIND_WORD, 4): "QW", (common_pb2.PREMIUM_KIND_LETTER, 4): "QL"}
_PREMIUM_SUFFIX = {common_pb2.PREMIUM_KIND_WORD: "W", common_pb2.PREMIUM_KIND_LETTER: "L",
                   common_pb2.PREMIUM_KIND_LETTER_AND_WORD: "LW"}


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 tile``, ``2 tiles``, ``0 tiles``: a count with its noun in the right number."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def premium_label(p: common_pb2.Premium) -> str:
    """At most three characters for an empty premium square: ``TW``, ``DL``, ``QL``; War of Words
    multiplier tiles ``3L``, ``5W``, ``2LW``, ``11L``; Word Tiles colour squares ``xR`` …
    Every label names one premium (the legend explains them: :func:`legend`)."""
    if p.kind == common_pb2.PREMIUM_KIND_COLOUR:
        return "x" + _COLOUR_LETTER.get(p.colour, "?").upper()
    if (p.kind, p.factor) in _SHORT_PREMIUMS and not p.is_tile:
        return _SHORT_PREMIUMS[(p.kind, p.factor)]
    return f"{p.factor}{_PREMIUM_SUFFIX.get(p.kind, '?')}"[:3]


def premium_style(p: common_pb2.Premium) -> str:
    """The background of a premium square."""
    if p.kind == common_pb2.PREMIUM_KIND_COLOUR:
        return COLOUR_STYLES.get(p.colour, PLAIN_STYLE)
    if p.kind == common_pb2.PREMIUM_KIND_WORD:
        return _WORD_STYLES.get(p.factor, _WORD_STYLES[3])
    if p.kind == common_pb2.PREMIUM_KIND_LETTER:
        return _LETTER_STYLES.get(p.factor, _LETTER_STYLES[3])
    return "bold white on #8e44ad"


def tile_text(tile: common_pb2.Tile) -> str:
    """How a tile reads on a rack or in a list: the letter, lower case for a blank (``?`` on a
    rack), ``*`` wildcard, an action tile's token as it is typed (``@bomb``, ``@3W``)."""
    if tile.action:
        return actions.token(tile.action, tile.action_factor)
    if tile.is_wildcard:
        return "*"
    letter = tile.letter or "?"
    return letter.lower() if tile.is_blank and letter != "?" else letter


def last_move_seq(board: common_pb2.BoardView) -> int:
    """The seq of the latest tiles placed (0 when the board is empty)."""
    return max((sq.tile.placed_seq for sq in board.squares if sq.HasField("tile")), default=0)


def square_cell(sq: common_pb2.BoardSquare, highlight_seq: int,
                effect: common_pb2.ActiveEffect | None = None) -> tuple[str, str]:
    """Text (3 characters) and style of one square; ``effect``: a lasting War of Words effect
    covering it (its code on an empty square, its colour behind a tile)."""
    if sq.hidden:
        return " ░ ", HIDDEN_STYLE
    if effect is not None and not (sq.HasField("tile") and sq.tile.action):
        if sq.HasField("tile") and (sq.tile.letter or sq.tile.is_wildcard):
            return f" {tile_text(sq.tile):<2}"[:3], effects.style(effect)
        return f"{effects.code(effect):<2} ", effects.style(effect)
    if sq.HasField("tile") and (sq.tile.letter or sq.tile.is_wildcard or sq.tile.action):
        t = sq.tile
        text = f" {actions.board_code(t) if t.action else tile_text(t):<2}"[:3]
        if sq.pending:
            return text, PENDING_STYLE
        if highlight_seq and t.placed_seq == highlight_seq:
            return text, LAST_MOVE_STYLE
        colour = t.colour or (_COLOUR_BY_VALUE.get(t.value) if sq.premium.kind ==
                              common_pb2.PREMIUM_KIND_COLOUR else 0)
        if t.colour and colour in COLOUR_STYLES:
            return text, COLOUR_STYLES[colour]
        if t.action:
            return text, ACTION_STYLE
        return text, BLANK_TILE_STYLE if t.is_blank else TILE_STYLE
    if sq.scenery == common_pb2.SCENERY_KIND_TITANIUM:
        return " % ", "bold black on #b0b8c0"
    if sq.scenery:
        return " # ", "bold white on #555555"
    if sq.is_start:
        return " ★ ", START_STYLE
    if sq.is_star and sq.premium.is_tile and sq.premium.kind:  # a multiplier tile put on a Star
        return f"{premium_label(sq.premium):>2}☆"[-3:], premium_style(sq.premium)
    if sq.is_star:
        return " ☆ ", "bold yellow on #1e3a2a"
    if sq.HasField("premium") and sq.premium.kind:
        return f"{premium_label(sq.premium):>2} "[:3], premium_style(sq.premium)
    if sq.terrain in _TERRAIN:
        label, style = _TERRAIN[sq.terrain]
        return f"{label} ", style
    return " · ", PLAIN_STYLE


def engine_board_view(layout: BoardLayout, cells: Sequence[Tile | None] = (),
                      highlight: Collection[int] = ()) -> common_pb2.BoardView:
    """A contract BoardView of an engine board (premiums, terrain, tiles; ``highlight`` the
    indices of the last move), so that a local board (a replay, ``rules describe``) is drawn by
    the same renderer as a served one."""
    rows, cols = layout.rows, layout.cols
    view = common_pb2.BoardView(rows=rows, cols=cols)
    for i, sq in enumerate(layout.squares):
        b = view.squares.add()
        b.square.row, b.square.col = divmod(i, cols)
        if sq.colour:
            b.premium.kind = common_pb2.PREMIUM_KIND_COLOUR
            b.premium.factor = 3
            b.premium.colour = {1: 1, 2: 2, 3: 3, 5: 4}.get(sq.colour, 0)  # type: ignore[assignment]
        elif sq.word_mult > 1 and sq.letter_mult > 1:
            b.premium.kind = common_pb2.PREMIUM_KIND_LETTER_AND_WORD
            b.premium.factor = sq.word_mult
        elif sq.word_mult > 1:
            b.premium.kind = common_pb2.PREMIUM_KIND_WORD
            b.premium.factor = sq.word_mult
        elif sq.letter_mult > 1:
            b.premium.kind = common_pb2.PREMIUM_KIND_LETTER
            b.premium.factor = sq.letter_mult
        b.is_start = i == layout.start
        b.is_star = sq.terrain == STAR
        b.terrain = {WATER: common_pb2.TERRAIN_KIND_WATER,  # type: ignore[assignment]
                     SAND: common_pb2.TERRAIN_KIND_SAND}.get(sq.terrain, 0)
        if sq.blocked:
            b.scenery = (common_pb2.SCENERY_KIND_TITANIUM if sq.terrain == TITANIUM
                         else common_pb2.SCENERY_KIND_STONE)
        tile = cells[i] if cells else None
        if tile is not None:
            b.tile.letter = tile.letter
            b.tile.is_blank = tile.blank
            b.tile.placed_seq = 2 if i in highlight else 1
    return view


def board_renderable(board: common_pb2.BoardView, *, highlight_seq: int | None = None) -> Text:
    """The board with column letters on top and row numbers on the left."""
    rows, cols = board.rows or 15, board.cols or 15
    if highlight_seq is None:
        highlight_seq = last_move_seq(board)
    by_index = {sq.square.row * cols + sq.square.col: sq for sq in board.squares}
    lasting = effects.by_square(board)
    out = Text()
    out.append("    " + "".join(f" {c} " for c in COLUMNS[:cols]) + "\n", style="bold")
    for r in range(rows):
        out.append(f"{r + 1:>3} ", style="bold")
        for c in range(cols):
            sq = by_index.get(r * cols + c) or common_pb2.BoardSquare()
            text, style = square_cell(sq, highlight_seq, lasting.get((r, c)))
            out.append(text, style=style)
        out.append(f" {r + 1:<3}", style="bold")
        out.append("\n")
    out.append("    " + "".join(f" {c} " for c in COLUMNS[:cols]), style="bold")
    return out


def rack_renderable(rack: common_pb2.Rack) -> Text:
    """The rack: each tile with its value, e.g. ``[Q10] [A1] [?0]``."""
    out = Text("Rack: ", style="bold")
    if not rack.tiles:
        out.append("(empty)", style="dim")
    for t in rack.tiles:
        style = COLOUR_STYLES.get(t.colour, TILE_STYLE) if t.colour else TILE_STYLE
        if t.action:  # an action tile is worth nothing: its token is what is typed
            out.append(f" {tile_text(t)} ", style=ACTION_STYLE)
        else:
            out.append(f" {tile_text(t)}", style=style)
            out.append(f"{t.value:<2}", style=style + " dim" if "dim" not in style else style)
        out.append(" ")
    return out


def rack_letters(rack: common_pb2.Rack) -> str:
    """The rack as typed in a swap: letters, ``?`` for a blank, then the action tiles
    (``AEQ? @bomb @3W``)."""
    letters = "".join("?" if t.is_blank else tile_text(t) for t in rack.tiles if not t.action)
    return " ".join([letters, *(tile_text(t) for t in rack.tiles if t.action)]).strip()


def tile_counts_text(counts: Iterable[common_pb2.TileCount]) -> str:
    """``A×9 B×2 ?×2 @bomb×4 @3L×2``: tiles by kind, each named once and unambiguously."""
    return " ".join(f"{tile_text(tc.tile)}×{tc.count}" for tc in counts)


def seat_name(view: match_pb2.MatchView, seat: int) -> str:
    """Display name of a seat (``seat N`` when unknown)."""
    for s in view.seats:
        if s.index == seat and s.player.display_name:
            return safe_text(s.player.display_name)
    return f"seat {seat}"


def seats_renderable(view: match_pb2.MatchView, now: float | None = None) -> Text:
    """Scores, clocks and whose turn, one line per seat."""
    out = Text()
    to_move = view.to_move_seat if view.HasField("to_move_seat") else -1
    for s in view.seats:
        mine = view.HasField("viewer_seat") and s.index == view.viewer_seat
        marker = "▶ " if s.index == to_move else "  "
        name = safe_text(s.player.display_name) or f"seat {s.index}"
        if s.player.bot:
            name += f" (bot {s.player.bot_level})"
        if mine:
            name += " (you)"
        style = "bold green" if s.index == to_move else ""
        out.append(f"{marker}{name:<28}", style=style)
        out.append(f"{s.score:>5} pts", style="bold")
        out.append(f"   {counted(s.rack_count, 'tile')}")
        shown = clock_text(s.clock, now) if s.HasField("clock") else None
        if shown is not None:
            out.append(f"   {shown[0]}", style=shown[1])
        for deadline in shown_deadlines(s, now):
            out.append(f"   ⌛ {deadline}", style="yellow")
        if s.status not in (common_pb2.SEAT_STATUS_ACTIVE, common_pb2.SEAT_STATUS_UNSPECIFIED):
            out.append("   " + common_pb2.SeatStatus.Name(s.status).removeprefix("SEAT_STATUS_").lower(),
                       style="dim")
        out.append("\n")
    return out


def words_text(breakdown: common_pb2.ScoreBreakdown) -> str:
    """The words a play forms, as the player reads them: ``BRANDS`` or ``BRANDS, AX`` (empty when
    the breakdown names none)."""
    return ", ".join(safe_text(w.word) for w in breakdown.words)


def status_line(view: match_pb2.MatchView) -> Text:
    """Whose turn, tiles in the bag, pending decision."""
    out = Text()
    if view.status == match_pb2.MATCH_STATUS_FINISHED or view.HasField("result"):
        out.append("Game over", style="bold magenta")
    elif view.HasField("to_move_seat"):
        if view.to_move_seat in view.controlled_seats and len(view.controlled_seats) > 1:
            out.append(f"{seat_name(view, view.to_move_seat)}'s turn (pass and play: hand over the "
                       "screen; the rack shown is theirs)", style="bold green")
        elif view.to_move_seat in view.controlled_seats:
            out.append("Your turn", style="bold green")
        else:
            out.append(f"{seat_name(view, view.to_move_seat)} to move", style="bold")
    else:
        out.append(match_pb2.MatchStatus.Name(view.status).removeprefix("MATCH_STATUS_").lower())
    out.append(f"   ·   {counted(view.bag_count, 'tile')} in the bag   ·   turn {view.turn_number}")
    if view.HasField("pending") and view.pending.placements:
        decider = view.pending.decider_seat
        who = "you" if decider in view.controlled_seats else seat_name(view, decider)
        words = words_text(view.pending.breakdown)
        out.append(f"\nPending play by {seat_name(view, view.pending.seat)}: "
                   f"{words + ' ' if words else ''}({view.pending.breakdown.total} pts): "
                   f"{who} must accept or check", style="bold magenta")
    return out


def not_your_turn(view: match_pb2.MatchView) -> str:
    """"Not your turn" naming the player to move (the engine's message names seat numbers)."""
    if view.HasField("to_move_seat"):
        return f"It is not your turn: {seat_name(view, view.to_move_seat)} is to move"
    return "It is not your turn"


_REASONS = {
    common_pb2.GAME_OVER_REASON_OUT_OF_TILES: "a player went out",
    common_pb2.GAME_OVER_REASON_SCORELESS_TURNS: "too many scoreless turns",
    common_pb2.GAME_OVER_REASON_PLAYERS_LEFT: "the other players left",
    common_pb2.GAME_OVER_REASON_TIMEOUT: "clocks ran out",
    common_pb2.GAME_OVER_REASON_ABORTED: "aborted",
}


def result_text(view: match_pb2.MatchView, result: common_pb2.GameOver) -> str:
    """``GAME OVER (a player went out): Ann 312 WIN · Bot 290 LOSS — Ann wins``."""
    parts = []
    for fs in result.final_scores:
        outcome = common_pb2.Outcome.Name(fs.outcome).removeprefix("OUTCOME_")
        parts.append(f"{seat_name(view, fs.seat)} {fs.final_score} {outcome}")
    winners = [seat_name(view, s) for s in result.winner_seats]
    verdict = (" — tie between " + " and ".join(winners) if len(winners) > 1
               else f" — {winners[0]} wins" if winners else "")
    reason = _REASONS.get(result.reason, "over")
    if result.reason in (common_pb2.GAME_OVER_REASON_PLAYERS_LEFT, common_pb2.GAME_OVER_REASON_TIMEOUT):
        gone = [f"{seat_name(view, s.index)} {_GONE[s.status]}" for s in view.seats if s.status in _GONE]
        reason = " and ".join(gone) or reason
    return f"GAME OVER ({reason}): " + " · ".join(parts) + verdict


_GONE = {common_pb2.SEAT_STATUS_RESIGNED: "resigned", common_pb2.SEAT_STATUS_LEFT: "left",
         common_pb2.SEAT_STATUS_KICKED: "was kicked", common_pb2.SEAT_STATUS_TIMED_OUT: "ran out of time"}


def names_of(view: match_pb2.MatchView) -> list[str]:
    """Seat display names by index."""
    n = max((s.index for s in view.seats), default=-1) + 1
    names = [f"seat {i}" for i in range(n)]
    for s in view.seats:
        names[s.index] = safe_text(s.player.display_name) or names[s.index]
    return names


def violation_text(v: errors_pb2.RuleViolation) -> str:
    """A RuleViolation from a response (PreviewPlay, WordStrength) in plain words."""
    from wordarena.clients.cli.client import explain_rule_violation

    return explain_rule_violation(v)


#: What the screen says under the board once a Nuclear Bomb went off (BoardView.irradiated).
IRRADIATED = "☢ The board is irradiated: every letter is worth 1 point (your rack's too)"


def match_screen(view: match_pb2.MatchView, log: Sequence[str] = (), notices: Sequence[str] = (),
                 *, now: float | None = None, title: str = "") -> RenderableType:
    """The whole game screen."""
    parts: list[RenderableType] = []
    head = Text(title or f"wordarena · {view.ruleset.ruleset_id or '?'} · match {view.match_id}",
                style="bold cyan")
    parts.append(head)
    parts.append(board_renderable(view.board))
    names = names_of(view)
    for lasting in effects.board_lines(view.board, lambda seat: names[seat] if 0 <= seat < len(names)
                                       else f"seat {seat}"):
        parts.append(Text("  " + lasting, style="magenta"))
    if view.board.irradiated:
        parts.append(Text(IRRADIATED, style="bold green"))
    parts.append(seats_renderable(view, now))
    parts.append(status_line(view))
    if view.HasField("rack") and view.HasField("viewer_seat"):
        parts.append(rack_renderable(view.rack))
    if log:
        parts.append(Text("Last moves:", style="bold"))
        parts.extend(Text("  " + line) for line in log[-6:])
    if view.HasField("result") and view.result.final_scores:
        parts.append(Text(result_text(view, view.result), style="bold magenta"))
    for n in notices[-4:]:
        parts.append(Text(n, style="yellow"))
    return Group(*parts)
