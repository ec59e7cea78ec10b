"""A player's move as the contract writes it (``Move``, ``Placement``) read into engine values
(``Play``, ``Exchange``…, ``engine.placement.Placement``), and an engine refusal of it told back
in the contract's terms. Only the shape is checked here; the rules are the
engine's.
"""

from __future__ import annotations

import sys
from typing import Any

from wordarena.engine.game import Action, Exchange, GameState, Pass, Play, Resign
from wordarena.engine.game.actions import Move
from wordarena.engine.placement import Placement
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.tiles import BLANK, WILDCARD
from wordarena.services.common.errors import invalid_argument
from wordarena.services.match import messages, sight
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e


def placements_of(ruleset: Ruleset, pls: Any, field: str = "placements") -> tuple[Placement, ...]:
    """Contract placements as engine placements: squares on the board, letters of the ruleset's
    alphabet, action tiles only in War of Words (INVALID_ARGUMENT naming the field otherwise)."""
    layout = ruleset.board
    if not pls:
        raise invalid_argument(field, "at least one placement is required",
                               messages.violation(e.RULE_CODE_NO_TILES,
                                                  "a play must place at least one tile"))
    if len(pls) > ruleset.rack_size:
        raise invalid_argument(
            field,
            f"at most {ruleset.rack_size} tiles",
            messages.violation(e.RULE_CODE_TOO_MANY_TILES, "more tiles than a rack holds"),
        )
    out = []
    has_letter = ruleset.tiles.has_letter
    for k, p in enumerate(pls):
        square = p.square
        row, col = square.row, square.col
        if not layout.in_bounds(row, col):
            v = messages.violation(
                e.RULE_CODE_OFF_BOARD,
                f"({row}, {col}) is off the {layout.rows}x{layout.cols} board",
            )
            v.squares.append(c.Square(row=row, col=col))
            raise invalid_argument(f"{field}[{k}].square", v.message, v)
        if p.action:
            if not ruleset.tiles.has_actions:
                raise invalid_argument(f"{field}[{k}].action", "action tiles are War of Words tiles")
            token = messages.action_token(p.action, p.action_factor)
            if not token:
                raise invalid_argument(f"{field}[{k}].action", "not an action tile")
            facing = {v: k for k, v in messages.FACING_PB.items()}.get(p.facing, "")
            out.append(Placement(row, col, token, facing=facing))
            continue
        blank = p.is_blank
        if p.is_wildcard:
            letter = WILDCARD
        else:
            letter = p.letter.strip().upper()
            if not has_letter(letter):
                v = messages.violation(
                    e.RULE_CODE_INVALID_BLANK_LETTER if blank else e.RULE_CODE_LETTER_NOT_IN_SET,
                    f"{p.letter[:8]!r} is not a letter of the {ruleset.language} alphabet",
                )
                raise invalid_argument(f"{field}[{k}].letter", v.message, v)
            # The board keeps this letter as long as the match lives: one shared string per
            # letter rather than a fresh one per tile (49 bytes each, a few dozen a match).
            letter = sys.intern(letter)
        out.append(Placement(row, col, letter, bool(blank)))
    return tuple(out)


def effect_moves_of(state: GameState, pbs: Any, placements: Any, field: str) -> tuple[Move, ...]:
    """Contract ``EffectMove``s as engine moves: each ``effect_id`` must name an action tile of
    the current view (``sight.visible_effects``), each ``to`` a square of the board
    (INVALID_ARGUMENT naming the field otherwise). Whose effect it is and whether it may move are
    the engine's checks. Moves without a placement are refused here, before anything else:
    moving alone is not a turn."""
    if not pbs:
        return ()
    if not state.ruleset.tiles.has_actions:
        raise invalid_argument(field, "only War of Words has effects to move")
    if not placements:
        raise invalid_argument(
            field, "moving a Rain or Whirlwind alone is not a turn: play at least one tile too",
            messages.violation(e.RULE_CODE_NO_TILES,
                            "moving a Rain or Whirlwind alone is not a turn: play at least one tile"))
    layout = state.ruleset.board
    ids = dict(sight.visible_effects(state))
    out = []
    for k, pb in enumerate(pbs):
        marker = ids.get(pb.effect_id)
        if marker is None:
            raise invalid_argument(f"{field}[{k}].effect_id",
                                   f"no action tile on the board has the id {pb.effect_id[:40]!r}")
        if not layout.in_bounds(pb.to.row, pb.to.col):
            raise invalid_argument(f"{field}[{k}].to",
                                   f"({pb.to.row}, {pb.to.col}) is off the {layout.rows}x{layout.cols} board")
        row, col = divmod(marker.index, layout.cols)
        out.append(Move(row, col, pb.to.row, pb.to.col))
    return tuple(out)


def action_of(state: GameState, seat: int, move: c.Move) -> Action:
    """The engine action of a contract ``Move`` made by ``seat`` in ``state``."""
    ruleset = state.ruleset
    which = move.WhichOneof("kind")
    if which == "play":
        shifts = effect_moves_of(state, move.play.effect_moves, move.play.placements,
                                 "move.play.effect_moves")
        return Play(seat, placements_of(ruleset, move.play.placements, "move.play.placements"),
                    shifts)
    if which == "pass_turn":
        return Pass(seat)
    if which == "exchange":
        if not move.exchange.tiles:
            raise invalid_argument("move.exchange.tiles", "name at least one tile",
                                   messages.violation(e.RULE_CODE_NO_TILES, "name the tiles to exchange"))
        tokens = []
        for t in move.exchange.tiles:
            if t.action:  # War of Words: an action tile goes back like a letter
                tokens.append(messages.action_token(t.action, t.action_factor) or "@?")
                continue
            tokens.append(
                BLANK if t.is_blank else WILDCARD if t.is_wildcard else t.letter.strip().upper()
            )
        return Exchange(seat, tuple(tokens))
    if which == "resign":
        return Resign(seat)
    raise invalid_argument("move", "exactly one of play, pass_turn, exchange, resign is required")


def expected_seq_of(request: Any) -> int:
    """A turn's ``expected_seq``: required, at least 1 (every match begins with MatchStarted at
    seq 1, so 0 is never a seq a client has received). Whether it is current is the manager's
    check."""
    if request.expected_seq < 1:
        raise invalid_argument("expected_seq", "required: the latest seq you have received (at least 1)")
    return int(request.expected_seq)


