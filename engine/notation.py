"""Moves in the notation players and records use: ``8H WORD`` (across), ``H8 WORD`` (down).

The position always names the square where the main word starts, even when a tile already on
the board lies there. In the word, an upper-case letter is a tile from the rack, a lower-case
letter a blank standing for that letter, ``.`` (or the letter already there, or letters in
parentheses as GCG records write them: ``(XY)``) a tile already on the board that the play passes
through, and ``*`` a War of Words wildcard.

This module is the one writer and reader of that notation: the match server's events, the CLI,
GCG import and export and Hindsight all go through it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from wordarena.engine.board import Cells, format_position, parse_position, square_name
from wordarena.engine.errors import InputError
from wordarena.engine.placement import Placement
from wordarena.engine.rulesets.layout import BoardLayout
from wordarena.engine.tiles import ACTION_PREFIX, WILDCARD

THROUGH = "."


def format_play(position: str, word: str) -> str:
    """``8H WORD``: a position and a word as one move text."""
    return f"{position} {word}"


def word_chars(word: str) -> Iterator[tuple[str, bool]]:
    """(char, played-through) for each square of a written word: ``.`` and letters in
    parentheses (``(XY)``, as GCG records write them) are tiles already on the board."""
    inside = False
    for char in word:
        if char == "(":
            inside = True
        elif char == ")":
            inside = False
        else:
            yield char, inside or char == THROUGH


def placements_from_word(
    layout: BoardLayout, cells: Cells, position: str, word: str
) -> tuple[Placement, ...]:
    """The new tiles of ``word`` laid from ``position``; squares already holding a tile are
    played through (``.`` or the same letter). Raises ``InputError`` naming the problem."""
    row, col, across = parse_position(position, layout.rows, layout.cols)
    if not word:
        raise InputError("the word is empty", "word")
    placements = []
    for k, (ch, through) in enumerate(word_chars(word)):
        r, c = (row, col + k) if across else (row + k, col)
        if not layout.in_bounds(r, c):
            raise InputError(f"{word!r} from {position} runs off the board", "word")
        on_board = cells[layout.index(r, c)]
        if on_board is not None:
            if ch != THROUGH and ch.upper() != on_board.letter:
                raise InputError(
                    f"{square_name(r, c)} holds {on_board.letter}, not {ch}", "word"
                )
            continue
        if through:
            raise InputError(f"{ch!r} at {square_name(r, c)} is played through, but the square "
                             "is empty", "word")
        if not (ch.isalpha() or ch == WILDCARD):
            raise InputError(f"{ch!r} is not a letter", "word")
        placements.append(Placement(r, c, ch.upper(), blank=ch.islower()))
    if not placements:
        raise InputError(f"{word!r} at {position} places no new tile", "word")
    return tuple(placements)


def word_from_placements(
    layout: BoardLayout, cells: Cells, placements: tuple[Placement, ...], across: bool
) -> tuple[str, str]:
    """(position, word) of a play in record notation, played-through tiles written as ``.``."""
    by_square = {(p.row, p.col): p for p in placements}
    step = (0, 1) if across else (1, 0)
    r, c = min(by_square)

    def occupied(rr: int, cc: int) -> bool:
        return layout.in_bounds(rr, cc) and (
            (rr, cc) in by_square or cells[layout.index(rr, cc)] is not None
        )

    while occupied(r - step[0], c - step[1]):
        r, c = r - step[0], c - step[1]
    start = (r, c)
    letters = []
    while occupied(r, c):
        p = by_square.get((r, c))
        letters.append(THROUGH if p is None else (p.letter.lower() if p.blank else p.letter))
        r, c = r + step[0], c + step[1]
    return format_position(*start, across), "".join(letters)


def play_notation(
    layout: BoardLayout, cells: Cells, placements: Sequence[Placement], across: bool
) -> str:
    """``8H WORD`` for a play of ``placements`` on ``cells`` (the board before the play), its
    main word running ``across`` or down; '' when it places no tile."""
    if not placements:
        return ""
    return format_play(*word_from_placements(layout, cells, tuple(placements), across))


def placed_notation(
    layout: BoardLayout, cells: Cells, placed: Sequence[Sequence[Any]], across: bool
) -> str:
    """``play_notation`` of a play as engine events store it: ``[[square index, letter,
    blank], ...]`` (action tiles are not part of the word and are left out)."""
    tiles = tuple(
        Placement(*divmod(int(p[0]), layout.cols), str(p[1]), bool(p[2])) for p in placed
    )
    return play_notation(layout, cells, tiles, across)


# --- War of Words action tiles ------------------------------------------------------------------
#
# An action tile is written as the square it goes on and its rack token: ``H8 @bomb``
# (``8H @bomb`` is the same square: one tile has no direction), ``K3 @3W``, and a Blaster with the
# way it fires after a colon, ``H8 @blaster:right`` (``up``, ``down``, ``left``, ``right``). A play
# joins parts with ``+``: ``8H WORD + K10 @bomb``, ``E5 @portal + K11 @portal``.

ACTION_FACING_SEPARATOR = ":"
PART_SEPARATOR = " + "


def action_text(layout: BoardLayout, index: int, token: str, facing: str = "") -> str:
    """One action tile as it is typed: ``H8 @bomb``, ``K3 @3W``, ``H8 @blaster:right``."""
    where = square_name(*divmod(int(index), layout.cols))
    return f"{where} {token}" + (f"{ACTION_FACING_SEPARATOR}{facing}" if facing else "")


def actions_notation(layout: BoardLayout, actions: Sequence[Sequence[Any]]) -> str:
    """A play of action tiles only, as engine events store them (``[[square index, token,
    facing?], ...]``), as it is typed: ``H8 @bomb + K3 @3W`` (in the order played; '' for none).
    Read back by the CLI's play reader, it places the same tiles."""
    return PART_SEPARATOR.join(action_text(layout, a[0], str(a[1]), str(a[2]) if len(a) > 2 else "")
                               for a in actions)


def event_notation(layout: BoardLayout, cells: Cells, data: dict[str, Any]) -> str:
    """The notation of a stored play (a ``play`` event's data) on ``cells``, the board before
    it: ``8H WORD`` for its letters (action tiles played with them are not part of the word),
    ``H8 @bomb + K3 @3W`` for a War of Words play of action tiles only."""
    if data.get("placed"):
        return placed_notation(layout, cells, data["placed"], bool(data.get("across", True)))
    return actions_notation(layout, data.get("actions") or ())


def placement_from_action(layout: BoardLayout, square: str, action: str) -> Placement:
    """The placement of the action tile ``action`` (``@bomb``, ``@3W``, ``@blaster:left``) on
    ``square``. Raises ``InputError`` for an unknown tile, a Blaster without its facing, or a
    facing on any other tile."""
    from wordarena.engine.warofwords.catalog import ACTIONS, FACINGS

    row, col, _ = parse_position(square, layout.rows, layout.cols)
    name, _, facing = action.removeprefix(ACTION_PREFIX).partition(ACTION_FACING_SEPARATOR)
    name = name.strip()
    name = name.upper() if name[:1].isdigit() else name.lower()
    spec = ACTIONS.get(name)
    if spec is None:
        raise InputError(f"{action!r} is not an action tile (e.g. @bomb, @3W, @blaster:right)",
                         "action")
    facing = facing.strip().lower()
    if spec.needs_facing and facing not in FACINGS:
        raise InputError(
            f"say which way the {name} fires: {ACTION_PREFIX}{name}:up, :down, :left or :right",
            "action")
    if facing and not spec.needs_facing:
        raise InputError(f"only a Blaster has a facing, not {ACTION_PREFIX}{name}", "action")
    return Placement(row, col, spec.token, facing=facing)
