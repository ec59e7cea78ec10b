"""Bots start a Portal pair and move their Rain / Whirlwind (``engine.bots.tactics``).

Rule sentences: "Portal Tiles drastically change how players may place words on the board"
(wordarena's pairing: the first Portal put down waits, the next one pairs with it);
"Rain Tiles are evaluated every turn … points are granted to whoever owns any letters or
wildcards in that area"; "If a Whirlwind was played or moved to a new location, all letters …
in a 3x3 square under the Whirlwind's area of effect will be destroyed (unless a Shield owned
by the opposite player is positioned over them)"; "Moving a Rain or Whirlwind tile, and not
doing anything else, does not count as a turn."
"""

from __future__ import annotations

import pytest
from wow_helpers import game, marker, points, sq

from wordarena.engine.bots import Bot, tactics
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Play, apply
from wordarena.engine.game.state import GameState
from wordarena.engine.movegen import generate_moves
from wordarena.engine.warofwords.arena import Marker, markers, portal_links


def _portals(action: object) -> list[int]:
    assert isinstance(action, Play)
    return [p.row * 15 + p.col for p in action.placements if p.letter == "@portal"]


def _far_from_letters(state: GameState, i: int) -> bool:
    r, c = divmod(i, 15)
    return all(max(abs(r - j // 15), abs(c - j % 15)) > tactics.PORTAL_APART
               for j, t in enumerate(state.cells) if t is not None)


# --- starting a Portal pair ----------------------------------------------------------------

def _portal_position(lexicon, rack=("@portal", "Q", "U", "I", "Z", "E", "D", "O"),
                     bag=tuple("EEEEEEEEEEEE")):  # type: ignore[no-untyped-def]
    return game(racks=(rack, ("E",)), tiles=[("3B", "TOE", 1)], bag=bag).evolve(lexicon=lexicon)


def test_strong_bot_puts_a_first_portal_down_on_open_premium_ground(lexicon) -> None:  # type: ignore[no-untyped-def]
    """With no Portal waiting, a pair opening the empty side of the board to the bot's rack is
    worth starting: the strong bot plays its word and puts its Portal far from every letter,
    where the pair (completed next to the letters) gives its rack a better word than now."""
    state = _portal_position(lexicon)
    action = Bot(5, seed=1, lexicon=lexicon).choose(state)
    (a,) = _portals(action)
    assert any(not p.letter.startswith("@") for p in action.placements)  # with its word
    assert _far_from_letters(state, a)
    after, _ = apply(state, action)
    assert [m.index for m in markers(after) if m.kind == "portal"] == [a]
    assert portal_links(after) == {}  # the first Portal waits
    # The pair it starts is worth having: completed next to TOE, the rack reads through it.
    now = generate_moves(state, 0, lexicon)[0].score
    paired = state.evolve(effects=(*state.effects, Marker("portal", a, 0),
                                   Marker("portal", sq("C2"), 0)))
    assert generate_moves(paired, 0, lexicon)[0].score > now


def test_a_rack_with_both_portals_opens_the_pair_at_once(lexicon) -> None:  # type: ignore[no-untyped-def]
    state = _portal_position(lexicon, rack=("@portal", "@portal", "Q", "U", "I", "Z", "E", "D"))
    found = [x for x in tactics.candidates(state, 0, (), generate_moves(state, 0, lexicon),
                                           lexicon=lexicon) if x.label.startswith("portal pair")]
    assert found and all(len(x.placements) == 2 and x.gain > 0 for x in found)
    after, _ = apply(state, Play(0, max(found, key=lambda x: x.gain).placements))
    assert len(portal_links(after)) == 2


def test_no_first_portal_when_the_bag_cannot_bring_the_other(lexicon) -> None:  # type: ignore[no-untyped-def]
    """Near the end (fewer tiles in the bag than a rack) the pair may never open: no start."""
    state = _portal_position(lexicon, bag=("E", "E"))
    assert not _portals(Bot(5, seed=1, lexicon=lexicon).choose(state))
    assert not [x for x in tactics.candidates(state, 0, (), generate_moves(state, 0, lexicon),
                                              lexicon=lexicon) if "portal" in x.label]


def test_no_first_portal_when_no_pair_gives_the_rack_a_better_word(lexicon) -> None:  # type: ignore[no-untyped-def]
    """A rack of consonants has nothing to read through a pair: the Portal is not spent."""
    state = _portal_position(lexicon, rack=("@portal", "B", "C", "D", "F", "G", "H", "K"))
    moves = generate_moves(state, 0, lexicon)
    assert not [x for x in tactics.candidates(state, 0, (), moves, lexicon=lexicon)
                if "portal" in x.label]
    action = Bot(5, seed=1, lexicon=lexicon).choose(state)
    if isinstance(action, Play):  # a pass or an exchange spends nothing either
        assert not _portals(action)


# --- moving Rain ---------------------------------------------------------------------------

RACK = ("R", "A", "T", "E", "S", "N", "O", "L")
BLOCK = [("11B", "BEA", 0), ("12B", "RDS", 0), ("13B", "TON", 0)]  # the bot's 3x3 at B11-D13


def test_rain_raining_on_the_opponent_is_moved_onto_the_bots_letters(lexicon) -> None:  # type: ignore[no-untyped-def]
    state = game(racks=(RACK, ("E",)), bag=tuple("EEEEEEEEEEEE"),
                 tiles=[("3B", "JINX", 1), *BLOCK],
                 effects=[marker("rain", "C3", 0)]).evolve(lexicon=lexicon)
    action = Bot(5, seed=1, lexicon=lexicon).choose(state)
    assert isinstance(action, Play) and len(action.moves) == 1
    (move,) = action.moves
    assert (move.from_row, move.from_col) == divmod(sq("C3"), 15)
    assert move.to_row >= 9  # among its own letters, away from JINX (row 3)
    _, events = apply(state, action)
    rain = points(events, "rain")
    assert rain.get(0, 0) > 0 and rain.get(1, 0) == 0
    # Staying would have paid the opponent instead.
    _, stay = apply(state, Play(0, action.placements))
    assert points(stay, "rain").get(1, 0) > 0


def test_rain_already_over_the_bots_letters_stays(lexicon) -> None:  # type: ignore[no-untyped-def]
    state = game(racks=(RACK, ("E",)), bag=tuple("EEEEEEEEEEEE"),
                 tiles=[("3B", "JINX", 1), *BLOCK],
                 effects=[marker("rain", "C12", 0)]).evolve(lexicon=lexicon)
    action = Bot(5, seed=1, lexicon=lexicon).choose(state)
    assert isinstance(action, Play) and action.moves == ()


# --- moving a Whirlwind --------------------------------------------------------------------

def _whirlwind_position(lexicon, shield: bool):  # type: ignore[no-untyped-def]
    effects = [marker("whirlwind", "M13", 0, age=1)]
    if shield:
        effects.append(marker("shield", "C3", 1))
    return game(racks=(RACK, ("E",)), bag=tuple("EEEEEEEEEEEE"),
                tiles=[("3B", "QUI", 1), ("12F", "CAT", 0)],
                effects=effects).evolve(lexicon=lexicon)


def test_whirlwind_is_moved_onto_the_opponents_letters(lexicon) -> None:  # type: ignore[no-untyped-def]
    state = _whirlwind_position(lexicon, shield=False)
    action = Bot(5, seed=1, lexicon=lexicon).choose(state)
    assert isinstance(action, Play) and len(action.moves) == 1
    (move,) = action.moves
    assert (move.from_row, move.from_col) == divmod(sq("M13"), 15)
    assert move.to_row in (1, 2, 3)  # over QUI (row 3)
    after, _ = apply(state, action)
    assert after.scores[1] < 0  # the opponent paid for QUI
    assert after.scores[0] >= apply(state, Play(0, action.placements))[0].scores[0]


def test_whirlwind_is_not_moved_onto_letters_under_the_opponents_shield(lexicon) -> None:  # type: ignore[no-untyped-def]
    """"unless a Shield owned by the opposite player is positioned over them": nothing to
    gain there, so the Whirlwind stays."""
    state = _whirlwind_position(lexicon, shield=True)
    action = Bot(5, seed=1, lexicon=lexicon).choose(state)
    assert isinstance(action, Play) and action.moves == ()


def test_moving_alone_is_never_offered() -> None:
    """"Moving a Rain or Whirlwind tile, and not doing anything else, does not count as a
    turn": with no tile played there is nothing to add a move to."""
    state = game(racks=(("E",), ("E",)), tiles=[("3B", "QUI", 1)],
                 effects=[marker("whirlwind", "M13", 0)])
    assert tactics.with_moves(state, 0, Play(0, ())) == Play(0, ())


# --- self-play: every action the bots choose is accepted -----------------------------------

@pytest.mark.timeout(300)
def test_seeded_self_play_every_bot_action_is_accepted(lexicon) -> None:  # type: ignore[no-untyped-def]
    """Bots of levels 3-5 play seeded games to the end; every action they choose is applied
    by ``engine.game.apply`` (a refusal raises), and they do start Portal pairs and move their
    Rain / Whirlwind along the way."""
    from wordarena.engine.game import start_game

    started = moved = 0
    for g, (board, levels) in enumerate([("warofwords-field", (5, 4)),
                                          ("warofwords-desert", (3, 5)),
                                          ("warofwords-oasis", (5, 5))]):
        ruleset = get_ruleset("warofwords", "en", board)
        state, _ = start_game(ruleset, 2, 500 + g, lexicon)
        bots = [Bot(levels[0], seed=g, lexicon=lexicon), Bot(levels[1], seed=g + 7, lexicon=lexicon)]
        turns = 0
        while not state.over and turns < 400:
            action = bots[state.to_move].choose(state)
            waiting = sum(m.kind == "portal" for m in markers(state)) % 2
            if isinstance(action, Play):
                started += not waiting and any(p.letter == "@portal" for p in action.placements)
                moved += len(action.moves)
            state, _ = apply(state, action)
            turns += 1
        assert state.over
    assert started >= 1 and moved >= 1
