"""What each viewer may see of a match: the match server's hidden-information rules.

A viewer's rack and private event data (drawn or exchanged tiles) only ever come from the
viewer's own seat (``private_to``); other seats show rack sizes; the bag order never appears;
spectators see no rack at all.

"Clouds obscure an area on the board approximately 5x5 in size. You can't see under clouds."
Every War of Words projection goes through ``engine.warofwords.clouds``: a square under a cloud
is sent as ``hidden`` with nothing else (no tile, premium, terrain or scenery), events name no
hidden square (placements, words, effect squares are redacted), and ``PreviewPlay`` gives no
in-play score for a play under a cloud ("If you're playing any tile under a cloud, in-play
scoring stops working").
The rules for plays are the engine's (``engine.warofwords.clouds``); here they are applied to
the events and board views the server sends.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wordarena.engine.board import square_name
from wordarena.engine.rulesets.model import Ruleset
from wordarena.services.match.combat_log import note_reason, note_source
from wordarena.services.match.messages import (
    EFFECT_KINDS,
    action_kind,
    cloud_pb,
    effect_id,
    live_square,
    square,
    square_index,
    square_state,
)
from wordarena.services.match.store import StoredEvent
from wordarena.v1 import common_pb2 as c


def private_to(ev: StoredEvent, viewer: int | None) -> bool:
    """Whether ``viewer`` sees ``ev`` otherwise than a spectator does: the event changed the
    viewer's rack (``viewer_rack``) or returned the viewer's exchanged tiles. Everyone else
    gets the public projection, shared."""
    if viewer is None or ev.kind == "chat":
        return False
    if ev.kind == "tiles-exchanged":
        return True  # the exchanger's returned tiles (and rack); cheap to tell apart, rare
    after = ev.event.after
    return ev.kind == "match-started" or (
        ev.kind != "game-over" and after is not None and viewer in after.rack_changed)


def visible_effects(state: Any, hidden: frozenset[int] | set[int] | None = None) -> list[tuple[str, Any]]:
    """(ActiveEffect.effect_id, marker) of every action tile lying on the War of Words board
    that the players may see (clouds and tiles under a cloud left out), which
    ``EffectMove.effect_id`` is read against."""
    from wordarena.engine.warofwords.arena import markers
    from wordarena.engine.warofwords.clouds import hidden_squares

    if hidden is None:
        hidden = hidden_squares(state)
    cols = state.ruleset.board.cols
    return [(effect_id(m.kind, square_name(*divmod(m.index, cols))), m) for m in markers(state)
            if m.kind != "cloud" and m.index not in hidden]


def wow_board_view(state: Any, placed_seq: dict[int, int]) -> c.BoardView:
    """The War of Words board of ``state`` as anyone may see it: live multipliers and terrain,
    letters, persistent action tiles and clouds; nothing of what lies under a cloud."""
    from wordarena.engine.warofwords.arena import Arena, live_squares, markers
    from wordarena.engine.warofwords.catalog import ACTIONS
    from wordarena.engine.warofwords.clouds import hidden_squares
    from wordarena.engine.warofwords.persist import extent

    r = state.ruleset
    layout = r.board
    hidden = hidden_squares(state)
    squares = live_squares(state)
    view = c.BoardView(board_id=layout.id, rows=layout.rows, cols=layout.cols,
                       irradiated=state.irradiated)
    for i in range(layout.rows * layout.cols):
        view.squares.append(live_square(r, i, squares[i], state.cells[i], placed_seq.get(i, 0),
                                        i in hidden, state.irradiated))
    for pid, el in enumerate(state.electrification):
        view.water_patches.append(c.WaterPatch(patch_id=pid + 1, electrification=el))
    for m in markers(state):
        if m.kind == "cloud":
            view.clouds.append(cloud_pb(r, m.index))
    arena = Arena(state)
    for shown_id, m in visible_effects(state, hidden):
        spec = ACTIONS.get(m.kind)
        ext = extent(arena, m)
        eff = c.ActiveEffect(effect_id=shown_id, owner_seat=m.owner,
                             origin=square(r, m.index), movable=bool(spec and spec.movable),
                             area=[square(r, i) for i in ext.area if i not in hidden],
                             size=ext.size, turns_left=ext.turns_left)
        eff.action = action_kind("@" + m.kind)[0]  # type: ignore[assignment]
        view.effects.append(eff)
    return view


def wow_payload(before: Any, after: Any) -> tuple[dict[str, Any], list[int]]:
    """What a stored War of Words event needs to be projected without leaking: the squares
    under a cloud after the event (``hidden``), those under a cloud before or after it
    (``veiled``: events never name them) and the live state of every square whose view changed;
    and the changed squares' indexes."""
    from wordarena.engine.warofwords.arena import live_squares
    from wordarena.engine.warofwords.clouds import hidden_squares

    hb, ha = hidden_squares(before), hidden_squares(after)
    sb, sa = live_squares(before), live_squares(after)
    changed = [i for i in range(len(after.cells))
               if after.cells[i] != before.cells[i] or sa[i] != sb[i] or (i in ha) != (i in hb)]
    from wordarena.engine.warofwords.arena import markers

    payload = {"hidden": sorted(ha), "veiled": sorted(ha | hb),
               "squares": {str(i): square_state(sa[i]) for i in changed},
               "clouds": [m.index for m in markers(after) if m.kind == "cloud"]}
    return payload, changed


def word_squares(cols: int, rows: int, filled: set[int], placed: Sequence[int]) -> set[int]:
    """Every square of every word a play forms (its main word and cross words): the runs of
    filled squares through each placed square, across and down."""
    out: set[int] = set(placed)
    for start in placed:
        for step in (1, cols):
            line = [start]
            for sign in (-1, 1):
                i = start
                while True:
                    j = i + sign * step
                    if not 0 <= j < rows * cols or (step == 1 and j // cols != i // cols) \
                            or j not in filled:
                        break
                    line.append(j)
                    i = j
            if len(line) > 1:
                out.update(line)
    return out


def redact_play(turn: c.TurnPlayed, ruleset: Ruleset, veiled: set[int], touched: bool) -> None:
    """Withhold from a TurnPlayed what lies under a cloud: placements on veiled squares (and the
    notation of a play of action tiles only that put one there), and, when a word of the play
    ``touched`` a veiled square, the words, their premiums and the notation (the points stay:
    scores are public)."""
    cols = ruleset.board.cols
    keep = [p for p in turn.placements if p.square.row * cols + p.square.col not in veiled]
    letters = any(not p.action for p in turn.placements)
    withheld = len(keep) < len(turn.placements)
    del turn.placements[:]
    turn.placements.extend(keep)
    if withheld and not letters:  # action tiles only: the notation names every square
        turn.notation = ""
    if touched:
        del turn.breakdown.words[:]
        turn.notation = ""


def effect_pb(ruleset: Ruleset, seat: int | None, data: dict[str, Any], veiled: set[int]) -> c.Effect:
    """A combat-log line; squares under a cloud are left out, and an effect whose source lies
    under a cloud names neither its source tile nor its square. ``reason`` says what happened
    in words, naming only the squares shown (``note_reason``)."""
    def index(name: str) -> int:
        return square_index(ruleset, name)

    def visible(name: Any) -> bool:
        return isinstance(name, str) and index(name) not in veiled

    name = str(data.get("effect", ""))
    kind = c.EFFECT_KIND_DESTROYED if data.get("destroyed") else EFFECT_KINDS.get(name, 0)
    out = c.Effect(kind=kind, points=int(data.get("points", 0)))  # type: ignore[arg-type]
    if seat is not None:
        out.seat = seat
    if data.get("by") is not None:
        out.by_seat = int(data["by"])
    at = data.get("at")
    under = at is not None and not visible(at)
    source = str(data.get("tile") or data.get("source") or note_source(name, data))
    if not under:
        out.source = action_kind("@" + source)[0]  # type: ignore[assignment]
        if at is not None:
            i = index(at)
            out.square.CopyFrom(square(ruleset, i))
    names = [data["origin"]] if name == "moved" and isinstance(data.get("origin"), str) else []
    names += [n for n in data.get("squares", ()) if isinstance(n, str)]
    names += [n for n in data.get("centres", ()) if isinstance(n, str)]
    names += [t[0] for t in data.get("multipliers", ()) if t]
    names += [t[1] for t in data.get("tiles", ()) if len(t) > 1]
    shown = [n for n in names if visible(n)]
    out.squares.extend(square(ruleset, index(n)) for n in shown)
    if under:
        out.reason = "an effect under a cloud" + (f": {out.points:+d}" if out.points else "")
    else:
        out.reason = note_reason(name, source, at, data, shown)
    return out

