"""Clouds (the Cloudy Day in the Park board): 5x5 areas that hide what lies under them from
every view and switch off in-play score previews there. After every turn, swap or pass each
cloud drifts one square in a random direction (or stays), independently, from the match's
seeded RNG. The board file lists the clouds' starting centres under ``"clouds"``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import cache
from importlib import resources
from typing import Any

from wordarena.engine.game.state import GameState
from wordarena.engine.placement import Placement, next_square
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.tiles import is_action
from wordarena.engine.warofwords.arena import Arena, Marker, markers, portal_links

CLOUD_SIZE = 5
DRIFTS = ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1))


@cache
def board_extras(board_id: str) -> dict[str, Any]:
    """The War of Words-only keys of a board file (``clouds``)."""
    path = resources.files("wordarena.engine.rulesets") / "data" / "boards" / f"{board_id}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if k in ("clouds",)}


def initial_effects(ruleset: Ruleset) -> tuple[Marker, ...]:
    """The effects a match on this board starts with (its clouds)."""
    cols = ruleset.board.cols
    return tuple(Marker("cloud", int(r) * cols + int(c), -1)
                 for r, c in board_extras(ruleset.board.id).get("clouds", []))


def drift(arena: Arena) -> None:
    """Move every cloud one random step (or not), keeping its centre on the board."""
    moved = []
    for k, m in enumerate(arena.markers):
        if m.kind != "cloud":
            continue
        dr, dc = arena.pick(list(DRIFTS))
        r, c = divmod(m.index, arena.cols)
        r = min(arena.rows - 1, max(0, r + dr))
        c = min(arena.cols - 1, max(0, c + dc))
        arena.markers[k] = Marker("cloud", r * arena.cols + c, -1)
        moved.append(arena.name(r * arena.cols + c))
    if moved:
        arena.note("clouds", None, None, centres=moved)


def hidden_squares(state: GameState) -> frozenset[int]:
    """Indexes of the squares under a cloud now: hidden from every player's and spectator's
    view (letters, multipliers, terrain and action tiles)."""
    arena_cols = state.ruleset.board.cols
    rows = state.ruleset.board.rows
    out: set[int] = set()
    h = CLOUD_SIZE // 2
    for m in markers(state):
        if m.kind != "cloud":
            continue
        r0, c0 = divmod(m.index, arena_cols)
        for r in range(max(0, r0 - h), min(rows, r0 + h + 1)):
            for c in range(max(0, c0 - h), min(arena_cols, c0 + h + 1)):
                out.add(r * arena_cols + c)
    return frozenset(out)


def project(state: GameState) -> dict[str, Any]:
    """What anyone may see of the War of Words board: the cells, live multipliers / terrain
    and action tiles outside the clouds, the clouds' centres and the hidden squares."""
    from wordarena.engine.warofwords.arena import live_squares

    hidden = hidden_squares(state)
    cols = state.ruleset.board.cols
    squares = live_squares(state)
    return {
        "hidden": sorted(hidden),
        "clouds": [divmod(m.index, cols) for m in markers(state) if m.kind == "cloud"],
        "cells": [None if i in hidden else t for i, t in enumerate(state.cells)],
        "squares": {i: sq.label for i, sq in enumerate(squares)
                    if i not in hidden and sq.label},
        "tiles": [{"kind": m.kind, "square": m.index, "owner": m.owner, "age": m.age}
                  for m in markers(state) if m.owner >= 0 and m.index not in hidden],
        "electrification": list(state.electrification),
        "irradiated": state.irradiated,
    }


def reads_under_a_cloud(state: GameState, placed: Iterable[int], actions: Iterable[int] = ()) -> bool:
    """True when anything said about a play with letters on the squares ``placed`` (and action
    tiles on ``actions``) would tell what lies under a cloud: a tile of it lies under one, or a
    line through one of its letters runs on, through placed letters and board tiles, into a
    square under one (read through portals as words are). Such a play's words, their
    validity, even whether a line forms a word at all, depend on squares the player cannot
    see; every answer about plays (previews, Word Strength, Hindsight, refusals) asks this one
    question first. False on boards without clouds."""
    hidden = hidden_squares(state) if state.effects else frozenset()
    if not hidden:
        return False
    squares = set(placed)
    if squares & hidden or any(i in hidden for i in actions):
        return True
    layout, links, cells = state.ruleset.board, portal_links(state), state.cells
    for i in squares:
        for across in (True, False):
            for forward in (True, False):
                k, seen = i, {i}
                while (j := next_square(layout, links, k, across, forward)) is not None and j not in seen:
                    if j in hidden:
                        return True
                    if cells[j] is None and j not in squares:
                        break
                    k = j
                    seen.add(j)
    return False


def preview_allowed(state: GameState, placements: Sequence[Placement]) -> bool:
    """False when what a preview of the play would say depends on a square under a cloud (its
    tile lies under one, or one of its words runs on under one): in-play scoring stops there."""
    cols = state.ruleset.board.cols
    letters = [p.row * cols + p.col for p in placements if not is_action(p.letter)]
    actions = [p.row * cols + p.col for p in placements if is_action(p.letter)]
    return not reads_under_a_cloud(state, letters, actions)
