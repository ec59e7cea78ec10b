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
levels use their action tiles rarely. Levels 3-5 then move their own Rain / Whirlwind when a
move gains (``with_moves``; a move rides on a play, since moving alone is not a turn).

Portals (``_portal_targets``): a Portal pairs with the one waiting on the board when the bot's
best word reads better through the pair; with none waiting, a first Portal is put down
(``_portal_start``) on the empty square far from the letters whose open lines hold most premium
squares, when the move generator, with that square paired to the square next to the letters
where the bot's rack does best, finds a better word than the bot has now.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from wordarena.engine.errors import EngineError
from wordarena.engine.game.actions import Action, Play
from wordarena.engine.game.actions import Move as BoardMove
from wordarena.engine.game.state import GameState
from wordarena.engine.game.turns import apply
from wordarena.engine.movegen import Move, generate_moves
from wordarena.engine.placement import Placement
from wordarena.engine.rulesets.layout import WATER, Square
from wordarena.engine.tiles import WILDCARD, Tile, is_action
from wordarena.engine.warofwords.arena import Arena, Marker, markers, multiplier_number
from wordarena.engine.warofwords.catalog import FACINGS, Kind, Target, spec_of
from wordarena.engine.warofwords.effects import blaster_line

TARGETS_PER_TILE = 6  # candidate squares tried (with ``apply``) per action tile on the rack
LASTING = {"poison": 1.0, "medic": 1.0, "rain": 1.2, "fire": 0.6, "whirlwind": 0.5}
SHIELD_SHARE = 0.3  # share of the shielded letters' worth a Shield is reckoned to save
BLACK_HOLE_SHARE = 0.6  # share of its 7x7's worth a Black Hole is reckoned to destroy in time
MULTIPLIER_SHARE = 0.25  # share of a multiplier's extra points the bot expects to collect
PORTAL_SHARE = 0.5  # share of the better next-turn word a Portal pair opens that the bot expects
START_SHARE = 0.25  # the same for a first Portal: the pair opens only when the other one comes
PORTAL_REACH = 5  # squares walked along each open line from a first Portal's square
START_CANDIDATES = 2  # first-Portal squares tried with the move generator
START_LETTERS = 3  # letters (wildcards aside) a rack needs before a first Portal is weighed
PORTAL_APART = 2  # a first Portal stands more than this many squares from every letter
MOVE_TARGETS = 4  # destinations tried (with ``apply``) per Rain / Whirlwind of the bot's
MIN_MOVE_GAIN = 1.0  # gain a move of the bot's Rain / Whirlwind must bring
MIN_GAIN = {1: 12.0, 2: 8.0, 3: 4.0, 4: 2.0, 5: 1.0}  # gain an action play must bring
USE_CHANCE = {1: 0.05, 2: 0.1, 3: 0.5, 4: 1.0, 5: 1.0}  # how often a level considers actions


@dataclass(frozen=True, slots=True)
class ActionPlay:
    """A candidate: the action tiles to add, what it gained over the plain move, and why."""

    placements: tuple[Placement, ...]
    gain: float
    label: str


def with_actions(state: GameState, seat: int, chosen: Action, moves: Sequence[Move],
                 level: int, rng: random.Random, lexicon: Any = None) -> Action:
    """``chosen`` (a bot's letter play, pass or exchange), or a play adding action tiles to
    it when that wins more; levels 3-5 then add moves of their Rain / Whirlwind that gain
    (``with_moves``). ``moves`` are the bot's letter moves, best first; ``lexicon`` the bot's
    (default: the state's), for the Portal look-ahead."""
    action = _with_tiles(state, seat, chosen, moves, level, rng, lexicon)
    if level >= 3 and isinstance(action, Play) and action.placements and state.pending is None:
        action = with_moves(state, seat, action)
    return action


def _with_tiles(state: GameState, seat: int, chosen: Action, moves: Sequence[Move],
                level: int, rng: random.Random, lexicon: Any) -> Action:
    tokens = [t for t in state.racks[seat] if is_action(t)]
    if not tokens or state.pending is not None or rng.random() >= USE_CHANCE.get(level, 1.0):
        return chosen
    letters = chosen.placements if isinstance(chosen, Play) else ()
    if level <= 2:  # weak levels: now and then a random sensible-looking action
        options = [a for a in candidates(state, seat, letters, moves, quick=True, lexicon=lexicon)
                   if a.gain > 0]
        if not options:
            return chosen
        pick = rng.choice(options)
        return Play(seat, letters + pick.placements)
    best = best_action(state, seat, letters, moves, lexicon)
    clogged = len(tokens) >= 4  # a rack full of action tiles makes poor words: spend them
    threshold = 0.0 if clogged or not letters else MIN_GAIN.get(level, 1.0)
    if best is None or best.gain <= threshold:
        return chosen
    return Play(seat, letters + best.placements)


def best_action(state: GameState, seat: int, letters: tuple[Placement, ...],
                moves: Sequence[Move], lexicon: Any = None) -> ActionPlay | None:
    """The best single action tile (or Portal pair) to add to ``letters`` (possibly none: an
    action-only play), judged by ``apply``; None when no candidate is legal."""
    found = candidates(state, seat, letters, moves, lexicon=lexicon)
    return max(found, key=lambda a: a.gain, default=None)


def candidates(state: GameState, seat: int, letters: tuple[Placement, ...],
               moves: Sequence[Move], quick: bool = False, lexicon: Any = None) -> list[ActionPlay]:
    """Every targeted action candidate with its gain over playing ``letters`` alone (or
    passing). ``quick``: fewer targets per tile (weak levels)."""
    base = outcome(state, seat, Play(seat, letters) if letters else None)
    arena = Arena(state)
    taken = {p.row * arena.cols + p.col for p in letters}
    out: list[ActionPlay] = []
    per_tile = 2 if quick else TARGETS_PER_TILE
    for token in dict.fromkeys(t for t in state.racks[seat] if is_action(t)):
        if token == "@portal":
            targets = _portal_targets(state, seat, letters, arena, taken, per_tile, moves,
                                      lexicon)
        else:
            targets = [((p,), bonus, label) for p, bonus, label
                       in _targets(arena, seat, token, taken, moves)[:per_tile]]
        for placed, bonus, label in targets:
            play = Play(seat, (*letters, *placed))
            got = outcome(state, seat, play, lasting=LASTING.get(token[1:], 0.0))
            if got is None or base is None:
                continue
            out.append(ActionPlay(placed, got - base + bonus, label))
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
        for order, i, bonus in _multiplier_squares(arena, moves, taken, spec.letter_mult,
                                                   spec.word_mult):
            out.append((order, i, "", bonus))
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
                    taken: set[int], per_tile: int, moves: Sequence[Move] = (),
                    lexicon: Any = None) -> list[tuple[tuple[Placement, ...], float, str]]:
    """Portal placements worth trying, each with its bonus (the Portal itself scores nothing).

    With a Portal waiting on the board: the empty squares with most letters next to them (at
    most ``per_tile``), each worth ``PORTAL_SHARE`` of how much better
    the bot's best word is with the pair open there (``_through``: the move generator reading
    through the pair) than its best word now. With none waiting: a first Portal, or a pair
    from a rack holding two (``_portal_start``). ``moves``: the bot's letter moves now, best
    first (the baseline)."""
    if sum(m.kind == "portal" for m in markers(state)) % 2 == 0:
        return _portal_start(state, seat, arena, taken, moves, lexicon)
    out: list[tuple[tuple[Placement, ...], float, str]] = []
    now = _best_plain(state, seat, moves, lexicon)
    for i in _next_to_letters(arena, taken)[:per_tile]:
        through = _through(state, seat, (Marker("portal", i, seat),), lexicon)
        if through is not None and through > now:
            r, c = divmod(i, arena.cols)
            out.append(((Placement(r, c, "@portal"),), PORTAL_SHARE * (through - now),
                        f"portal {arena.name(i)}"))
    return out


def _through(state: GameState, seat: int, portals: tuple[Marker, ...], lexicon: Any) -> int | None:
    """The bot's best word score on the board as it is with ``portals`` added (pairing as the
    engine pairs them: in the order put down), read through the pairs by the move generator,
    with the bot's rack less its wildcards (they multiply the generator's work and fit
    anywhere anyway; ``_best_plain`` leaves them out of the baseline too). None without a
    lexicon."""
    lex = lexicon if lexicon is not None else state.lexicon
    if lex is None:
        return None
    rack = tuple(t for t in state.racks[seat] if t != WILDCARD and not is_action(t))
    racks = (*state.racks[:seat], rack, *state.racks[seat + 1:])
    hypothetical = state.evolve(effects=(*state.effects, *portals), racks=racks)
    try:
        found = generate_moves(hypothetical, seat, lex)
    except EngineError:
        return None
    return found[0].score if found else 0


def _best_plain(state: GameState, seat: int, moves: Sequence[Move], lexicon: Any) -> int:
    """The bot's best word now without wildcards: the best of ``moves`` (best first) that uses
    none, or, when no moves are given, the generator's (``_through`` with no Portal added)."""
    if not moves:
        return _through(state, seat, (), lexicon) or 0
    return next((m.score for m in moves if WILDCARD not in m.tokens), 0)


def _next_to_letters(arena: Arena, taken: set[int]) -> list[int]:
    """Empty squares a Portal may stand on, with letters next to them (across or down), most
    letters first."""
    cols, n = arena.cols, len(arena.cells)
    ranked = []
    for i in range(n):
        if i in taken or not _may_stand(arena, i, Target.EMPTY):
            continue
        c = i % cols
        near = sum(1 for j in (i - cols, i + cols, i - 1 if c else -1, i + 1 if c + 1 < cols else -1)
                   if 0 <= j < n and arena.cells[j] is not None)
        if near:
            ranked.append((-near, i))
    ranked.sort()
    return [i for _, i in ranked]


def _open_reach(arena: Arena, i: int, taken: set[int]) -> float:
    """What a word through a Portal on square ``i`` could use: the square's own premium
    (×3: a word through the pair may lay a letter on it) and, along each of the four
    directions, up to ``PORTAL_REACH`` open squares (empty, not blocked; the first that is not
    ends the line), the k-th worth (1 + its premium) / k. Premium: nL n - 1, nW 3 (n - 1)."""
    cols, rows = arena.cols, arena.rows
    r0, c0 = divmod(i, cols)
    total = 3.0 * _premium(arena.squares[i])
    for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        r, c = r0, c0
        for k in range(1, PORTAL_REACH + 1):
            r, c = r + dr, c + dc
            if not (0 <= r < rows and 0 <= c < cols):
                break
            j = r * cols + c
            sq = arena.squares[j]
            if arena.cells[j] is not None or sq.blocked or j in taken:
                break
            total += (1 + _premium(sq)) / k
    return total


def _premium(sq: Square) -> int:
    return (sq.letter_mult - 1) + 3 * (sq.word_mult - 1)


def _portal_start(state: GameState, seat: int, arena: Arena, taken: set[int],
                  moves: Sequence[Move], lexicon: Any) -> list[tuple[tuple[Placement, ...], float, str]]:
    """A first Portal when none is waiting on the board (``START_CANDIDATES`` move-generator
    calls).

    Where: the empty squares more than ``PORTAL_APART`` squares from every letter (on the board
    or played now: a Portal there opens ground no word reaches yet) whose own square and open
    lines hold most premium squares (``_open_reach``), best ``START_CANDIDATES``. Whether: each
    is paired, hypothetically, with the empty square with most letters next to it (where the
    bot's words already reach) and the bot's best word through that pair (``_through``) is
    compared with its best word now. A rack with two Portals puts both down (the pair opens at
    once): ``PORTAL_SHARE`` of the difference. With one, the pair opens only when the other
    Portal is put down (by the bot, or by an opponent who may use it too): ``START_SHARE`` of
    it, and only while the bag still holds a rackful (later the game may end first). Not weighed
    for a rack with fewer than ``START_LETTERS`` letters besides wildcards. No target when no
    pair beats the bot's best word now."""
    held = state.racks[seat].count("@portal")
    if held < 2 and len(state.bag) < state.ruleset.rack_size:
        return []
    if sum(not is_action(t) and t != WILDCARD for t in state.racks[seat]) < START_LETTERS:
        return []  # too few letters to read through a pair: not worth a generator call
    lettered = [i for i, t in enumerate(arena.cells) if t is not None] + sorted(taken)
    ends = _next_to_letters(arena, taken)
    if not lettered or not ends:
        return []
    near: set[int] = set()
    for i in lettered:
        near.update(arena.area(i, 2 * PORTAL_APART + 1))
    spots = sorted((-_open_reach(arena, i, taken), i) for i in range(len(arena.cells))
                   if i not in near and _may_stand(arena, i, Target.EMPTY))
    b = ends[0]
    rb, cb = divmod(b, arena.cols)
    now = _best_plain(state, seat, moves, lexicon)
    out: list[tuple[tuple[Placement, ...], float, str]] = []
    for _, a in spots[:START_CANDIDATES]:
        through = _through(state, seat, (Marker("portal", a, seat), Marker("portal", b, seat)),
                           lexicon)
        if through is None or through <= now:
            continue
        ra, ca = divmod(a, arena.cols)
        first = Placement(ra, ca, "@portal")
        if held >= 2:
            out.append(((first, Placement(rb, cb, "@portal")), PORTAL_SHARE * (through - now),
                        f"portal pair {arena.name(a)}-{arena.name(b)}"))
        else:
            out.append(((first,), START_SHARE * (through - now),
                        f"portal {arena.name(a)} (first of a pair)"))
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


# --- moving the bot's Rain / Whirlwind ----------------------------------------------------


def with_moves(state: GameState, seat: int, play: Play) -> Play:
    """``play`` with moves of the bot's own Rain and Whirlwind added where they gain: for each,
    a few destinations (``_move_targets``) are tried on top of the play so far with the
    engine's ``apply`` and judged by ``outcome`` against not moving it (Rain with its
    ``LASTING`` share of the turns to come, since it keeps paying where it stands; a Whirlwind
    by this turn: what it tears down when it lands and at the end of the turn). The best move
    that gains at least ``MIN_MOVE_GAIN`` is kept. Every play returned was accepted by ``apply``
    (or is ``play`` itself)."""
    if not play.placements:  # moving alone is not a turn
        return play
    arena = Arena(state)
    own = [m for m in arena.markers if m.owner == seat and m.kind in ("rain", "whirlwind")]
    if not own:
        return play
    cols = arena.cols
    cells: list[Tile | None] = list(arena.cells)  # the board with this play's letters
    busy = {m.index for m in arena.markers if m.owner >= 0}  # squares holding action tiles
    for p in play.placements:
        i = p.row * cols + p.col
        if is_action(p.letter):
            busy.add(i)
        else:
            cells[i] = Tile(p.letter, p.blank, seat)
    current = play
    for marker in own:
        lasting = LASTING["rain"] if marker.kind == "rain" else 0.0
        base = outcome(state, seat, current, lasting)
        if base is None:  # pragma: no cover - ``play`` comes from the engine's own checks
            return play
        best: tuple[float, Play, int] | None = None
        for dst in _move_targets(arena, cells, seat, marker, busy):
            r, c = divmod(dst, cols)
            fr, fc = divmod(marker.index, cols)
            trial = Play(seat, current.placements, (*current.moves, BoardMove(fr, fc, r, c)))
            got = outcome(state, seat, trial, lasting)
            if got is not None and got - base >= MIN_MOVE_GAIN and (best is None or got > best[0]):
                best = (got, trial, dst)
        if best is not None:
            current = best[1]
            busy.discard(marker.index)
            busy.add(best[2])
    return current


def _move_targets(arena: Arena, cells: Sequence[Tile | None], seat: int, marker: Marker,
                  busy: set[int]) -> list[int]:
    """Destinations worth trying for the bot's Rain or Whirlwind (squares holding no other
    action tile), best first, only those ranked above where it stands, at most
    ``MOVE_TARGETS``. ``cells``: the board with this turn's letters (the bot's own).

    Rain pays every letter's owner in its 3x3 the number of the multiplier under it (1 on a
    plain square) each turn: rank = that sum over the bot's letters minus over the opponents'
    (over the bot's own words, on premium squares first; off the opponents'). A Whirlwind
    destroys its 3x3 when moved and every turn: rank = what the opponents' letters there are
    worth minus what the bot's are (its own word of this turn included)."""
    squares = arena.squares
    out: list[tuple[float, int]] = []

    def rank(i: int) -> float:
        total = 0.0
        for j in arena.area(i, 3):
            tile = cells[j]
            if tile is None:
                continue
            if marker.kind == "rain":
                value = float(multiplier_number(squares[j]))
            else:
                value = float(max(1, arena.letter_worth(j)) if arena.cells[j] is not None
                              else max(1, arena.state.ruleset.tiles.value(tile.letter)))
            total += value if tile.owner == seat else -value
        return total if marker.kind == "rain" else -total

    here = rank(marker.index)
    for i in range(len(cells)):
        if i == marker.index or i in busy:
            continue
        got = rank(i)
        if got > here and got >= 0:
            out.append((-got, i))
    out.sort()
    return [i for _, i in out[:MOVE_TARGETS]]
