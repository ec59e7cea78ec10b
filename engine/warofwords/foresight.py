"""What a War of Words play would do, told before it is played (the match server's PreviewPlay):
the same steps 1 to 3 of the turn ``engine.warofwords.turn.resolve_play`` carries out when the
play is submitted — the one writer of those rules — read on a copy, and told as the player may
see it.

What the preview tells: every ``effect`` event of the play (letters destroyed with what each
owner loses, Water electrified, the board irradiated, multiplier tiles and Stars placed, Rain /
Whirlwind moved), never the random outcomes (an 11L revealed under destroyed scenery is drawn
when the play is made). The turn's lasting effects (Fire, Poison, a Black Hole growing …) act
at the end of every turn, a pass or swap too, and are not part of it.

Clouds ("You can't see under clouds"): a square under one is named by no effect and what lies
there counts in no effect's points. Nor is a square whose fate may depend on what a cloud hides
named: one next to a clouded square when Shields stop the tile (a Shield under the cloud may
cover it), and those of a Blaster's line beyond a clouded square (Titanium there would stop it).
``reach_hidden`` says that the play acts on such squares: it may destroy more than it says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wordarena.engine.game.play import PlayVerdict
from wordarena.engine.game.state import GameState
from wordarena.engine.warofwords import effects
from wordarena.engine.warofwords.arena import Arena
from wordarena.engine.warofwords.catalog import Kind
from wordarena.engine.warofwords.clouds import hidden_squares
from wordarena.engine.warofwords.turn import ActionPlay, resolve_play

#: Notes a preview does not tell: drawn at random when the play is made.
RANDOM_NOTES = frozenset({"reveal-11L"})
#: Destructive tiles no Shield stops.
UNSHIELDABLE = frozenset({"nuke"})


@dataclass(frozen=True, slots=True)
class Foresight:
    """A play's effects as (seat whose score changes or None, event data), in the order the
    play would log them, and whether it acts on squares the player cannot see."""

    effects: tuple[tuple[int | None, dict[str, Any]], ...]
    reach_hidden: bool


def foresee(state: GameState, seat: int, verdict: PlayVerdict) -> Foresight:
    """What the legal War of Words play judged by ``verdict`` would do (see the module)."""
    found = verdict.details
    if verdict.error is not None or not isinstance(found, ActionPlay):
        return Foresight((), False)
    withheld = _withheld(state, found)
    arena = resolve_play(state, seat, verdict)
    out: list[tuple[int | None, dict[str, Any]]] = []
    for k, ev in enumerate(arena.events):
        if ev.type != "effect" or ev.data.get("effect") in RANDOM_NOTES:
            continue
        data = dict(ev.data)
        data.pop("score", None)  # the score after it: other effects may come between
        if data.get("destroyed"):
            worths = arena.worths.get(k, {})
            shown = [i for i in worths if i not in withheld]
            if not shown:
                continue
            data["squares"] = [arena.name(i) for i in shown]
            data["points"] = -sum(worths[i] for i in shown)
        elif _named(arena, data) & withheld:
            continue
        out.append((ev.seat, data))
    return Foresight(tuple(out), bool(withheld))


def _named(arena: Arena, data: dict[str, Any]) -> set[int]:
    """The squares a note names (its square, a moved tile's origin)."""
    names = [data.get("at"), data.get("origin")]
    return {_index(arena, n) for n in names if isinstance(n, str)}


def _index(arena: Arena, name: str) -> int:
    return (int(name[1:]) - 1) * arena.cols + ord(name[0].upper()) - 65


def _withheld(state: GameState, found: ActionPlay) -> set[int]:
    """The squares the play's destructive tiles act on whose fate the player cannot see."""
    hidden = hidden_squares(state) if state.effects else frozenset()
    if not hidden:
        return set()
    arena = Arena(state)
    layout = state.ruleset.board
    acting = [(layout.index(p.row, p.col), spec.name, p.facing)
              for p, spec in zip(found.tiles, found.specs, strict=True)
              if spec.kind is Kind.DESTRUCTIVE or spec.name == "whirlwind"]
    acting += [(dst, "whirlwind", "") for src, dst in found.moves
               if (m := arena.marker_at(src)) is not None and m.kind == "whirlwind"]
    out: set[int] = set()
    for index, kind, facing in acting:
        line = effects.reach(arena, kind, index, facing)
        if kind == "blaster":  # beyond a clouded square the line may have stopped (Titanium)
            first = next((k for k, i in enumerate(line) if i in hidden), len(line))
            out.update(line[first:])
            line = line[:first]
        out.update(i for i in line if i in hidden)
        if kind not in UNSHIELDABLE:  # a Shield under a cloud covers the squares next to it
            out.update(i for i in line if any(j in hidden for j in arena.area(i, 3)))
    return out
