"""Bots use their action tiles sensibly (issue 7: "bots also use their action tiles to sensible
effect (e.g. bomb where the opponent loses most, shield their own high-value tiles)").

Every candidate is judged by the engine's own ``apply``; these tests build positions where the
sensible choice is clear and check the bots make it.
"""

from __future__ import annotations

import random

from wow_helpers import game, sq

from wordarena.engine.bots import Bot, tactics
from wordarena.engine.errors import RuleError
from wordarena.engine.game import Play, apply
from wordarena.engine.placement import Placement


def put_at(i: int, token: str) -> Placement:
    return Placement(i // 15, i % 15, token)


def _action_squares(play: Play, token: str) -> list[int]:
    return [p.row * 15 + p.col for p in play.placements if p.letter == token]


def test_bomb_where_the_opponent_loses_most_and_you_lose_least() -> None:
    """"If a Bomb was played, all letters … in a 3x3 square centred on the Bomb Tile will be
    destroyed": the bot bombs the opponent's valuable letters, away from its own."""
    state = game(racks=(("@bomb",), ("E",)),
                 tiles=[("3C", "QUIZ", 1), ("12C", "CAT", 0), ("12J", "ZAX", 1)])
    best = tactics.best_action(state, 0, (), [])
    assert best is not None and best.gain > 0
    after, _ = apply(state, Play(0, best.placements))
    assert after.scores[1] < state.scores[1] and after.scores[0] == state.scores[0]
    # No square of the board does better (every bomb square tried with the engine).
    nets = []
    for i in range(225):
        try:
            got, _ = apply(state, Play(0, (put_at(i, "@bomb"),)))
        except RuleError:  # not a square a Bomb may go on
            continue
        nets.append((got.scores[0] - state.scores[0]) - (got.scores[1] - state.scores[1]))
    assert best.gain == max(nets)


def test_shield_over_your_own_high_value_tiles() -> None:
    """"unless a Shield owned by the opposite player is positioned over them": a Shield is
    worth most over the bot's own most valuable letters."""
    state = game(racks=(("@shield",), ("E",)), tiles=[("8F", "JINX", 0), ("2A", "AT", 0)])
    best = tactics.best_action(state, 0, (), [])
    assert best is not None and best.gain > 0
    (p,) = best.placements
    covered = {sq("F8"), sq("G8"), sq("H8"), sq("I8")}
    around = {(p.row + dr) * 15 + p.col + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)}
    assert len(covered & around) >= 2
    # over the J or the X: both are worth 8, so either end of JINX is the best cover
    assert around & {sq("F8"), sq("I8")}


def test_poison_among_the_opponents_letters_medic_among_yours() -> None:
    """"Poison Tiles are evaluated every turn … points are deducted from whoever owns any
    letters"; "Medic Tiles … points are granted": poison goes on the opponent, medic on us."""
    state = game(racks=(("@poison", "@medic"), ("E",)),
                 tiles=[("3C", "TOAST", 1), ("12C", "BEARD", 0)])
    found = tactics.candidates(state, 0, (), [])
    poison = max((a for a in found if a.placements[0].letter == "@poison"), key=lambda a: a.gain)
    medic = max((a for a in found if a.placements[0].letter == "@medic"), key=lambda a: a.gain)
    assert poison.gain > 0 and medic.gain > 0
    assert poison.placements[0].row in (1, 2, 3) and medic.placements[0].row in (10, 11, 12)


def test_blaster_line_through_the_opponents_word() -> None:
    """"all letters … to the left, right, above, or below the Blaster (depending on which
    direction the Blaster is facing) will be destroyed": the bot aims along the opponent's
    word, not its own."""
    state = game(racks=(("@blaster",), ("E",)), tiles=[("5B", "QUARTZ", 1), ("12B", "FOXES", 0)])
    best = tactics.best_action(state, 0, (), [])
    assert best is not None
    (p,) = best.placements
    after, _ = apply(state, Play(0, best.placements))
    assert after.scores[1] <= state.scores[1] - 20 and after.scores[0] == state.scores[0]
    assert p.facing in ("left", "right") and p.row == 4


def test_strong_bot_adds_an_action_tile_to_its_word(lexicon) -> None:  # type: ignore[no-untyped-def]
    """"Any Action Tiles may be played as well as a word during a single turn": the strong
    bot plays its best word and, in the same turn, bombs the opponent's letters."""
    rack = ("R", "A", "T", "E", "S", "N", "@bomb")
    state = game(racks=(rack, ("E",)), tiles=[("8F", "TIN", 0), ("2A", "QUIZ", 1)])
    state = state.evolve(lexicon=lexicon)
    action = Bot(5, seed=1, lexicon=lexicon).choose(state)
    assert isinstance(action, Play)
    assert any(not p.letter.startswith("@") for p in action.placements)
    bombs = _action_squares(action, "@bomb")
    assert len(bombs) == 1 and bombs[0] // 15 in (0, 1, 2)
    after, _ = apply(state, action)
    assert after.scores[1] < 0


def test_weak_bots_use_action_tiles_rarely(lexicon) -> None:  # type: ignore[no-untyped-def]
    """Levels 1 and 2 reach for their action tiles far less often than level 5."""
    rack = ("R", "A", "T", "E", "S", "N", "@bomb")
    state = game(racks=(rack, ("E",)), tiles=[("8F", "TIN", 0), ("2A", "QUIZ", 1)])
    state = state.evolve(lexicon=lexicon)
    used = {}
    for level in (1, 5):
        n = 0
        for seed in range(20):
            bot = Bot(level, seed=seed, lexicon=lexicon)
            bot.rng = random.Random(seed)
            act = bot.choose(state)
            n += isinstance(act, Play) and bool(_action_squares(act, "@bomb"))
        used[level] = n
    assert used[5] == 20 and used[1] <= 4


def test_portal_put_down_to_pair_when_it_opens_a_better_word_next_turn(lexicon) -> None:  # type: ignore[no-untyped-def]
    """Portal (wordarena's rule): a bot puts its Portal down where it pairs with the one waiting
    on the board and its best word next turn (read through the pair) beats its best without;
    with no Portal waiting there is nothing to pair with, so no Portal target."""
    from wordarena.engine.movegen import generate_moves
    from wordarena.engine.warofwords.arena import Marker

    base = game(racks=(("@portal", "Q", "I", "S"), ("E",)),
                tiles=[("8F", "JINX", 1), ("3B", "TOE", 1)], bag=()).evolve(lexicon=lexicon)
    assert tactics._portal_targets(base, 0, (), tactics.Arena(base), set(), 6) == []
    state = base.evolve(effects=(*base.effects, Marker("portal", sq("A1"), 1)))
    found = [a for a in tactics.candidates(state, 0, (), []) if a.label.startswith("portal")]
    assert found and all(a.gain > 0 for a in found)
    best = max(found, key=lambda a: a.gain)
    after, _ = apply(state, Play(0, best.placements))
    plain, _ = apply(base, Play(0, best.placements))  # the same Portal, nothing to pair with
    assert generate_moves(after, seat=0)[0].score > generate_moves(plain, seat=0)[0].score
