"""How a bot uses its War of Words action tiles.

Candidate action plays are *targeted* here (which squares are worth trying for each tile on
the rack: a Bomb near the opponents' most valuable letters, a Shield over the bot's own, a
Poison among the opponents' letters, a Medic or Rain among the bot's, Lightning on Water the bot
has words for, multiplier tiles under squares of good words …) and *judged* by the engine
itself: each candidate is applied with ``engine.game.apply`` to the real state (states are
immutable, so this is a copy) and scored by what it did to the scores — no rule is re-implemented
here. Tiles whose effect lasts (Poison, Medic, Rain, Fire, Whirlwind, Black Hole, Shield,
multiplier tiles) add an estimate of their future turns on top of what the first turn showed.

``with_actions`` is the bots' single entry point: given the letter move (or pass / exchange)
a bot chose, it returns that action or a better one with action tiles added (or, when the bot
has no word, an action-only play). Strong levels take the best play whenever it gains; weak
levels use their action tiles rarely.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.errors import EngineError
from engine.game.actions import Action, Play
from engine.game.state import GameState
from engine.game.turns import apply
from engine.movegen import Move
from engine.placement import Placement
from engine.rulesets.layout import WATER
from engine.tiles import is_action
from engine.warofwords.arena import Arena
from engine.warofwords.catalog import FACINGS, Kind, Target, spec_of

TARGETS_PER_TILE = 6  # candidate squares tried (with ``apply``) per action tile on the rack
LASTING = {"poison": 1.0, "medic": 1.0, "rain": 1.2, "fire": 0.6, "whirlwind": 0.5}
SHIELD_SHARE = 0.3  # share of the shielded letters' worth a Shield is reckoned to save
BLACK_HOLE_SHARE = 0.6  # share of its 7x7's worth a Black Hole is reckoned to destroy in time
MULTIPLIER_SHARE = 0.25  # share of a multiplier's extra points the bot expects to collect
PORTAL_SHARE = 0.5  # share of the better next-turn word a Portal pair opens that the bot expects
MIN_GAIN = {1: 12.0, 2: 8.0, 3: 4.0, 4: 2.0, 5: 1.0}  # gain an action play must bring
USE_CHANCE = {1: 0.05, 2: 0.1, 3: 0.5, 4: 1.0, 5: 1.0}  # how often a level considers actions


@dataclass(frozen=True, slots=True)
class ActionPlay:
    """A candidate: the action tiles to add, what it gained over the plain move, and why."""

    placements: tuple[Placement, ...]
    gain: float
    label: str


def with_actions(state: GameState, seat: int, chosen: Action, moves: Sequence[Move],
                 level: int, rng: random.Random) -> Action:
    """``chosen`` (a bot's letter play, pass or exchange), or a play adding action tiles to
    it when that wins more. ``moves`` are the bot's letter moves, best first."""
    tokens = [t for t in state.racks[seat] if is_action(t)]
    if not tokens or state.pending is not None or rng.random() >= USE_CHANCE.get(level, 1.0):
        return chosen
    letters = chosen.placements if isinstance(chosen, Play) else ()
    if level <= 2:  # weak levels: now and then a random sensible-looking action
        options = [a for a in candidates(state, seat, letters, moves, quick=True) if a.gain > 0]
        if not options:
            return chosen
        pick = rng.choice(options)
        return Play(seat, letters + pick.placements)
    best = best_action(state, seat, letters, moves)
    clogged = len(tokens) >= 4  # a rack full of action tiles makes poor words: spend them
    threshold = 0.0 if clogged or not letters else MIN_GAIN.get(level, 1.0)
    if best is None or best.gain <= threshold:
        return chosen
    return Play(seat, letters + best.placements)


def best_action(state: GameState, seat: int, letters: tuple[Placement, ...],
                moves: Sequence[Move]) -> ActionPlay | None:
    """The best single action tile to add to ``letters`` (possibly none: an action-only
    play), judged by ``apply``; None when no candidate is legal."""
    found = candidates(state, seat, letters, moves)
    return max(found, key=lambda a: a.gain, default=None)


def candidates(state: GameState, seat: int, letters: tuple[Placement, ...],
               moves: Sequence[Move], quick: bool = False) -> list[ActionPlay]:
    """Every targeted action candidate with its gain over playing ``letters`` alone (or
    passing). ``quick``: fewer targets per tile (weak levels)."""
    base = outcome(state, seat, Play(seat, letters) if letters else None)
    arena = Arena(state)
    taken = {p.row * arena.cols + p.col for p in letters}
    out: list[ActionPlay] = []
    per_tile = 2 if quick else TARGETS_PER_TILE
    for token in dict.fromkeys(t for t in state.racks[seat] if is_action(t)):
        if token == "@portal":
            targets = _portal_targets(state, seat, letters, arena, taken, per_tile)
        else:
            targets = _targets(arena, seat, token, taken, moves)[:per_tile]
        for placement, bonus, label in targets:
            play = Play(seat, (*letters, placement))
            got = outcome(state, seat, play, lasting=LASTING.get(token[1:], 0.0))
            if got is None or base is None:
                continue
            out.append(ActionPlay((placement,), got - base + bonus, label))
    return out


def outcome(state: GameState, seat: int, play: Play | None, lasting: float = 0.0) -> float | None:
    """What ``play`` does for ``seat``: its score change minus the best opponent's, after the
    whole turn as the engine applies it (None when the engine refuses it). ``play`` None: the
    baseline of playing nothing (0). ``lasting``: per future turn, this share of what the
    play's own persistent tile gained or cost this turn is added again (``horizon`` turns)."""
    if play is None:
        return 0.0
    try:
        after, events = apply(state, play)
    except EngineError:
        return None
    mine = after.scores[seat] - state.scores[seat]
    others = [after.scores[s] - state.scores[s] for s in range(state.players) if s != seat]
    value = float(mine - max(others, default=0))
    if lasting:
        tile_points = 0
        for ev in events:
            if ev.type == "effect" and ev.data.get("by") == seat and ev.seat is not None \
                    and ev.data.get("effect") in LASTING:
                tile_points += ev.data["points"] * (1 if ev.seat == seat else -1)
        value += lasting * tile_points * horizon(state)
    return value


def horizon(state: GameState) -> int:
    """Turns of one player's a lasting tile is still expected to act (fewer as the bag empties)."""
    return max(1, min(5, len(state.bag) // 10 + 1))


# --- targeting ----------------------------------------------------------------------------


def _targets(arena: Arena, seat: int, token: str, taken: set[int],
             moves: Sequence[Move]) -> list[tuple[Placement, float, str]]:
    """Squares worth trying for ``token``, most promising first: (placement, bonus, label).
    The bonus is the estimated future value the first turn does not show."""
    spec = spec_of(token)
    if spec is None:
        return []
    name = spec.name
    worth = _worth(arena, seat)
    free = [i for i in range(len(arena.cells)) if i not in taken and _may_stand(arena, i, spec.target)]
    out: list[tuple[float, int, str, float]] = []  # (rank, square, facing, bonus)
    if name in ("bomb", "whirlwind", "poison", "fire"):
        for i in free:
            rank = -sum(worth.get(j, 0) for j in arena.area(i, 3))  # opponents' letters count >0
            if rank < 0:
                out.append((rank, i, "", 0.0))
    elif name in ("medic", "rain"):
        for i in free:
            rank = sum(worth.get(j, 0) > 0 for j in arena.area(i, 3)) - \
                sum(worth.get(j, 0) < 0 for j in arena.area(i, 3))
            if rank < 0:
                out.append((rank, i, "", 0.0))
    elif name == "shield":
        for i in free:
            mine = sum(w for j in arena.area(i, 3) if (w := worth.get(j, 0)) < 0)  # own: < 0
            if mine < 0:
                out.append((mine, i, "", SHIELD_SHARE * -mine))
    elif name == "blaster":
        from engine.warofwords.effects import blaster_line

        for i in free:
            for facing in FACINGS:
                rank = -sum(worth.get(j, 0) for j in blaster_line(arena, i, facing))
                if rank < 0:
                    out.append((rank, i, facing, 0.0))
    elif name == "blackhole":
        for i in free:
            rank = -sum(worth.get(j, 0) for j in arena.area(i, 7))
            if rank < 0:
                out.append((rank, i, "", BLACK_HOLE_SHARE * -rank))
    elif name in ("lightning", "pirate"):
        patches = _water_moves(arena, moves)
        for i in free:
            if arena.squares[i].terrain != WATER:
                continue
            use = patches.get(arena.layout.water_patch[i], 0.0)
            if name == "lightning":  # electrified Water doubles the letters of the words we have
                out.append((-use - 0.01 * (arena.cells[i] is None), i, "", 0.5 * use))
            else:
                out.append((-1.0, i, "", 0.0))
    elif spec.kind is Kind.SQUARE and name != "star":  # multiplier tiles under good squares
        for rank, i, bonus in _multiplier_squares(arena, moves, taken, spec.letter_mult,
                                                  spec.word_mult):
            out.append((rank, i, "", bonus))
    # nuke, star, sandstorm, quicksand: not worth a bot's while (kept or swapped away); portal:
    # ``_portal_targets``
    out.sort(key=lambda t: (t[0], t[1]))
    seen: set[tuple[int, str]] = set()
    result = []
    for _, i, facing, bonus in out:
        if (i, facing) in seen:
            continue
        seen.add((i, facing))
        r, c = divmod(i, arena.cols)
        result.append((Placement(r, c, token, facing=facing), bonus, f"{name} {arena.name(i)}"))
    return result


def _portal_targets(state: GameState, seat: int, letters: tuple[Placement, ...], arena: Arena,
                    taken: set[int], per_tile: int) -> list[tuple[Placement, float, str]]:
    """Squares for a Portal that would pair with the one waiting on the board, each with its
    bonus: ``PORTAL_SHARE`` of how much better the bot's best word next turn is (the engine
    applies the play with and without the Portal; the generator reads through the pair).
    Without a waiting Portal there is nothing to pair with: no target."""
    from engine.movegen import generate_moves
    from engine.warofwords.arena import markers

    if sum(m.kind == "portal" for m in markers(state)) % 2 == 0:
        return []
    cols = arena.cols
    ranked = []
    for i in range(len(arena.cells)):
        if i in taken or not _may_stand(arena, i, Target.EMPTY):
            continue
        r, c = divmod(i, cols)
        near = sum(1 for j in (i - cols, i + cols, i - 1 if c else -1, i + 1 if c + 1 < cols else -1)
                   if 0 <= j < len(arena.cells) and arena.cells[j] is not None)
        if near:
            ranked.append((-near, i))
    ranked.sort()

    def best_next(play: Play | None) -> float | None:
        try:
            after = apply(state, play)[0] if play is not None else state
        except EngineError:
            return None
        if after.over:
            return None
        moves = generate_moves(after, seat=seat)
        return float(moves[0].score) if moves else 0.0

    without = best_next(Play(seat, letters) if letters else None)
    if without is None:
        return []
    out = []
    for _, i in ranked[:per_tile]:
        r, c = divmod(i, cols)
        placement = Placement(r, c, "@portal")
        with_pair = best_next(Play(seat, (*letters, placement)))
        if with_pair is not None and with_pair > without:
            out.append((placement, PORTAL_SHARE * (with_pair - without), f"portal {arena.name(i)}"))
    return out


def _worth(arena: Arena, seat: int) -> dict[int, int]:
    """Per square holding a letter: what destroying it would cost its owner (the engine's own
    ``letter_worth``, at least 1), negative for ``seat``'s own letters."""
    out = {}
    for i, tile in enumerate(arena.cells):
        if tile is None:
            continue
        w = max(1, arena.letter_worth(i))
        out[i] = -w if tile.owner == seat else w
    return out


def _may_stand(arena: Arena, i: int, target: Target) -> bool:
    """A cheap pre-filter (the engine decides in the end): a square the tile's target allows."""
    sq = arena.squares[i]
    if target is Target.EMPTY:
        return arena.cells[i] is None and not sq.blocked
    if target is Target.WATER:
        return sq.terrain == WATER
    if target is Target.SAND:
        return sq.terrain == "sand"
    return True


def _water_moves(arena: Arena, moves: Iterable[Move]) -> dict[int, float]:
    """Per Water patch: the best score among the bot's letter moves that lay a letter on it."""
    out: dict[int, float] = {}
    for k, move in enumerate(moves):
        if k >= 200:
            break
        for i, _, _ in move.tiles:
            patch = arena.layout.water_patch[i]
            if patch >= 0 and arena.squares[i].terrain == WATER:
                out[patch] = max(out.get(patch, 0.0), float(move.score))
    return out


def _multiplier_squares(arena: Arena, moves: Sequence[Move], taken: set[int], lm: int,
                        wm: int) -> list[tuple[float, int, float]]:
    """Empty squares under the bot's good words this turn (not the one it plays now): a
    multiplier tile there makes that word — or one like it — worth more next turn."""
    out: list[tuple[float, int, float]] = []
    for move in moves[:30]:
        squares = [i for i, _, _ in move.tiles]
        if taken & set(squares):
            continue
        for i, letter, blank in move.tiles:
            sq = arena.squares[i]
            if arena.cells[i] is not None or sq.blocked or max(sq.letter_mult, sq.word_mult) > 1:
                continue
            value = arena.state.ruleset.tiles.value(letter) if not blank else 0
            extra = (wm - 1) * move.score if wm > 1 else (lm - 1) * value
            if extra > 0:
                out.append((-extra, i, MULTIPLIER_SHARE * extra))
    return out
