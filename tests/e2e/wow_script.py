"""The typed turns of a Pass and Play War of Words game that puts down every action tile kind and
moves a Rain and a Whirlwind: worked out on the engine from the deal a known seed gives (the
match server's ``--deal-seed``), so that the pty test can type them one by one into
``wordarena play``. The script is the test's plan, not its oracle: what the server accepted and
shows is checked on the screen and through the CLI."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BOARD = "warofwords-desert"  # Sand (Quicksand) and Water (Pirate Ship, Lightning) on one board
SEATS = 2
#: A seed whose deal lets ``plan`` put every kind down and move both movable kinds (found by
#: running ``plan`` over seeds 1, 2, …; re-run when the supply or the engine's rules change).
DEAL_SEED = 26
#: Every action tile kind (ActionKind): multiplier tiles count as two kinds, nL and nW.
KINDS = ("bomb", "blaster", "blackhole", "fire", "lightning", "whirlwind", "nuke", "poison",
         "medic", "rain", "shield", "star", "nL", "nW", "quicksand", "portal", "pirate",
         "sandstorm")


def kind_of(token: str) -> str:
    """``@3L`` → ``nL``, ``@bomb`` → ``bomb``."""
    name = token[1:]
    return "n" + name[-1] if name[:1].isdigit() else name


@dataclass
class Script:
    """The typed lines, the kinds each line puts down, and the moves it makes."""

    lines: list[str] = field(default_factory=list)
    kinds: list[list[str]] = field(default_factory=list)
    moved: list[list[str]] = field(default_factory=list)

    def done(self) -> bool:
        used = {k for ks in self.kinds for k in ks}
        moved = {k for ms in self.moved for k in ms}
        return used >= set(KINDS) and moved >= {"rain", "whirlwind"}


def _free(state: Any, target: str, taken: set[int], order: list[int]) -> int | None:
    """The first free square of ``order`` (no letter, action tile or scenery) of the terrain
    ``target`` names (``water``, ``sand``, ``plain``; ``any``: every terrain)."""
    from wordarena.engine.rulesets.layout import PLAIN, SAND, WATER
    from wordarena.engine.warofwords.arena import live_squares, markers

    squares = live_squares(state)
    marked = {m.index for m in markers(state)}
    for i in order:
        sq = squares[i]
        if i in taken or i in marked or state.cells[i] is not None or sq.blocked:
            continue
        wanted = {"water": WATER, "sand": SAND, "plain": PLAIN}.get(target)
        if wanted is not None and sq.terrain != wanted:
            continue
        return i
    return None


def _target(token: str) -> str:
    """Where the plan puts ``token``: a Star on plain ground, a Pirate Ship on Water, every other
    tile on Sand (the Dune Sea is mostly Sand; Quicksand needs it)."""
    from wordarena.engine.warofwords.catalog import Target, spec_of

    spec = spec_of(token)
    assert spec is not None
    if spec.name == "star":
        return "plain"
    return {Target.WATER: "water", Target.SAND: "sand"}.get(spec.target, "sand")


def _action_turn(state: Any, seat: int, pending: set[str],
                 moved: set[str]) -> tuple[Any, list[str], list[str], str]:
    """A play of one tile of every pending kind on the rack (and a move of the seat's Rain or
    Whirlwind not moved yet); None when the rack holds none."""
    from wordarena.engine.board import square_name
    from wordarena.engine.game.actions import Move, Play
    from wordarena.engine.placement import Placement
    from wordarena.engine.warofwords.arena import markers

    layout = state.ruleset.board
    order = sorted(range(layout.rows * layout.cols), key=lambda i: (i * 37) % (layout.rows * layout.cols))
    taken: set[int] = set()
    placements, kinds, parts = [], [], []
    for token in dict.fromkeys(t for t in state.racks[seat] if t.startswith("@")):
        if kind_of(token) not in pending or kind_of(token) in kinds:
            continue
        i = _free(state, _target(token), taken, order)
        if i is None:
            continue
        taken.add(i)
        r, c = divmod(i, layout.cols)
        facing = "left" if token == "@blaster" else ""
        placements.append(Placement(r, c, token, facing=facing))
        kinds.append(kind_of(token))
        parts.append(f"{square_name(r, c)} {token}{':' + facing if facing else ''}")
    if not placements:
        return None, [], [], ""
    shifts, shifted = [], []
    for m in markers(state):
        if m.owner == seat and m.kind in ("rain", "whirlwind") and m.kind not in moved | set(shifted):
            dest = _free(state, "any", taken | {m.index}, order[::-1])
            if dest is not None:
                taken.add(dest)
                shifts.append(Move(*divmod(m.index, layout.cols), *divmod(dest, layout.cols)))
                shifted.append(m.kind)
                parts.append(f"{square_name(*divmod(m.index, layout.cols))}>"
                             f"{square_name(*divmod(dest, layout.cols))}")
    return Play(seat, tuple(placements), tuple(shifts)), kinds, shifted, " + ".join(parts)


def _word_turn(state: Any, seat: int) -> tuple[Any, str]:
    from wordarena.engine.movegen import generate_moves
    from wordarena.engine.notation import play_notation

    moves = generate_moves(state, seat)
    if not moves:
        return None, ""
    best = moves[0]
    return best.to_play(seat), play_notation(state.ruleset.board, state.cells, best.placements(),
                                             best.across)


def plan(seed: int, turns: int = 80) -> Script:
    """The script for the game ``seed`` deals (stops once every kind is down and both movable
    kinds have moved, or after ``turns`` turns)."""
    from wordarena.engine.errors import RuleError
    from wordarena.engine.families import get_ruleset
    from wordarena.engine.game import Exchange, Pass, apply, start_game
    from wordarena.engine.lexicon import load_lexicon

    ruleset = get_ruleset("warofwords", "en", BOARD)
    state, _ = start_game(ruleset, SEATS, seed, load_lexicon(ruleset.lexicon), True,
                          pass_and_play=True)
    out = Script()
    for _ in range(turns):
        if out.done() or state.over:
            break
        seat = state.to_move
        used = {k for ks in out.kinds for k in ks}
        moved = {k for ms in out.moved for k in ms}
        action, kinds, shifted, line = _action_turn(state, seat, set(KINDS) - used, moved)
        if action is None:
            rack = state.racks[seat]
            swaps_left = state.ruleset.exchange.per_player - state.exchanges[seat]
            if swaps_left > 0 and len(state.bag) >= len(rack):
                action, line = Exchange(seat, tuple(rack)), "swap " + " ".join(rack)
            else:
                action, line = _word_turn(state, seat)
                if action is None:
                    action, line = Pass(seat), "pass"
        try:
            state, _ = apply(state, action)
        except RuleError:
            state, _ = apply(state, Pass(seat))
            line, kinds, shifted = "pass", [], []
        out.lines.append(line)
        out.kinds.append(kinds)
        out.moved.append(shifted)
    return out
