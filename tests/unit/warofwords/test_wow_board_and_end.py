"""war-of-words-2.txt: Clouds, the Pirate Ship, the boards, End of Game with action tiles, and
exact replay with every random choice seeded."""

from __future__ import annotations

import random

import pytest
from wow_helpers import ANY, effect_events, game, letter_at, play, points, put, sq, word

from wordarena.engine.errors import RuleError
from wordarena.engine.families import get_ruleset, replay
from wordarena.engine.game import Exchange, Pass, Play, apply, start_game
from wordarena.engine.interchange.cgp import parse_cgp, view_to_cgp
from wordarena.engine.placement import Placement
from wordarena.engine.rulesets.layout import board_ids
from wordarena.engine.tiles import is_action
from wordarena.engine.warofwords import arena as arena_mod
from wordarena.engine.warofwords.arena import live_squares, markers
from wordarena.engine.warofwords.catalog import ACTIONS, FACINGS
from wordarena.engine.warofwords.clouds import hidden_squares, preview_allowed, project

WOW_BOARDS = [b for b in board_ids() if b.startswith("warofwords")]


# --- boards ---------------------------------------------------------------------------------


def test_at_least_seven_war_of_words_boards_each_with_its_own_character():
    assert len(WOW_BOARDS) >= 7
    terrain = {b: {q.terrain for q in get_ruleset("warofwords", "en", b).board.squares}
               for b in WOW_BOARDS}
    assert "sand" in terrain["warofwords-desert"]
    assert {"scenery", "titanium"} <= terrain["warofwords-fortress"]
    assert "water" in terrain["warofwords-delta"] and "water" in terrain["warofwords-swamp"]
    assert "scenery" in terrain["warofwords-park"]
    for b in WOW_BOARDS:  # a first word can always stand on a Star or Water
        assert terrain[b] & {"star", "water"}


# --- clouds ---------------------------------------------------------------------------------


def park(seed=5):
    return start_game(get_ruleset("warofwords", "en", "warofwords-park"), 2, seed, ANY)[0]


def test_clouds_exist_only_on_the_cloudy_day_in_the_park_board():
    assert len([m for m in markers(park()) if m.kind == "cloud"]) == 3
    for b in WOW_BOARDS:
        if b != "warofwords-park":
            s = start_game(get_ruleset("warofwords", "en", b), 2, 1, ANY)[0]
            assert not markers(s)


def test_clouds_obscure_an_area_about_5x5_and_you_cant_see_under_them():
    s = park()
    hidden = hidden_squares(s)
    centre = next(m.index for m in markers(s) if m.kind == "cloud")
    r0, c0 = divmod(centre, 15)
    assert {r * 15 + c for r in range(r0 - 2, r0 + 3) for c in range(c0 - 2, c0 + 3)} <= hidden
    s = s.evolve(cells=tuple(arena_mod.Tile("Q", False, 1) if i == centre else t
                             for i, t in enumerate(s.cells)))
    view = project(s)
    assert view["cells"][centre] is None and centre in view["hidden"]
    assert all(t["square"] not in hidden for t in view["tiles"])


def test_a_players_cgp_shows_nothing_under_a_cloud_and_only_their_rack():
    s = park()
    centre = next(m.index for m in markers(s) if m.kind == "cloud")
    outside = next(i for i in range(225) if i not in hidden_squares(s))
    s = s.evolve(cells=tuple(arena_mod.Tile("Q" if i == centre else "Z", False, 1) if i in (centre, outside)
                             else t for i, t in enumerate(s.cells)))
    cgp = parse_cgp(view_to_cgp(s, 1))
    assert cgp.board[centre // 15][centre % 15] is None  # under the cloud: not shown
    assert cgp.board[outside // 15][outside % 15] == ("Z", False)
    order = [(s.to_move + k) % 2 for k in range(2)]
    assert cgp.racks == tuple(tuple(s.racks[1]) if seat == 1 else () for seat in order)
    assert parse_cgp(view_to_cgp(s, None)).racks == ((), ())  # a spectator sees no rack


def test_playing_any_tile_under_a_cloud_stops_in_play_scoring():
    s = park()
    centre = next(m.index for m in markers(s) if m.kind == "cloud")
    r, c = divmod(centre, 15)
    assert not preview_allowed(s, [Placement(r, c, "A"), Placement(0, 14, "B")])
    hidden = hidden_squares(s)

    def beside_a_cloud(i: int) -> bool:
        r, c = divmod(i, 15)
        return any((r + dr) * 15 + c + dc in hidden for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0))
                   if 0 <= r + dr < 15 and 0 <= c + dc < 15)

    clear = next(i for i in range(225) if i not in hidden and not beside_a_cloud(i))
    assert preview_allowed(s, [Placement(*divmod(clear, 15), "A")])
    # beside a cloud a letter may make a word with what lies under it: no score there either
    edge = next(i for i in range(225) if i not in hidden and beside_a_cloud(i))
    assert not preview_allowed(s, [Placement(*divmod(edge, 15), "A")])


@pytest.mark.parametrize("action", ["pass", "swap", "turn"])
def test_after_each_turn_swap_or_pass_the_clouds_move_independently_at_random(action):
    s = park(seed=3)
    before = [m.index for m in markers(s) if m.kind == "cloud"]
    seat = s.to_move
    if action == "pass":
        s2, events = apply(s, Pass(seat))
    elif action == "swap":
        s2, events = apply(s, Exchange(seat, (s.racks[seat][0],)))
    else:
        s = s.evolve(racks=(("@shield", *s.racks[0][1:]), s.racks[1]))
        s2, events = apply(s, Play(0, (Placement(0, 0, "@shield"),)))
    after = [m.index for m in markers(s2) if m.kind == "cloud"]
    for a, b in zip(before, after, strict=True):
        (r1, c1), (r2, c2) = divmod(a, 15), divmod(b, 15)
        assert abs(r1 - r2) + abs(c1 - c2) <= 1
    assert effect_events(events, "clouds")
    moved = set()
    for seed in range(20):
        s = park(seed)
        s2, _ = apply(s, Pass(0))
        moved.add(tuple(m.index for m in markers(s2) if m.kind == "cloud") != tuple(
            m.index for m in markers(s) if m.kind == "cloud"))
        again, _ = apply(s, Pass(0))
        assert markers(again) == markers(s2)  # seeded: the same drift every time
    assert moved == {True}


# --- Pirate Ship ----------------------------------------------------------------------------


def test_a_pirate_ship_raids_its_shore_and_reveals_an_11L_from_scenery_half_the_time(monkeypatch):
    asked: list[float] = []
    monkeypatch.setattr(arena_mod.Arena, "chance", lambda self, p: asked.append(p) or True)
    # Swampland: G4 and I4 Water around the plant (scenery) on H4; F3 is Water, so E3 is
    # shore and D3 is not
    s = game(board="warofwords-swamp", racks=[("@pirate",), ("B",)], tiles=[("3D", "XO", 1)])
    with pytest.raises(RuleError):
        play(s, 0, put("A3", "@pirate"))  # only on Water
    s, events = play(s, 0, put("G4", "@pirate"))
    assert live_squares(s)[sq("H4")].letter_mult == 11 and asked == [0.5]
    assert letter_at(s, "E3") is None and letter_at(s, "D3") == "X"
    assert points(events, "pirate") == {1: -1}


# --- End of Game ----------------------------------------------------------------------------


def test_the_game_ends_when_letters_are_exhausted_and_a_player_plays_all_of_their_letters():
    """Actions can remain in the supply and in racks; they do not stop the game from ending,
    and Action Tiles left in a rack are worth nothing in the deduction."""
    s = game(racks=[("C", "A", "T", "@medic"), ("Z", "@nuke", "@bomb")],
             bag=("@shield", "@rain"))
    s2, _events = play(s, 0, word("8G", "CAT"))
    assert s2.over and s2.result.reason == "out"
    assert s2.racks[0] == ("@medic", "@shield", "@rain")
    assert s2.result.adjustments == (0, -10)


def test_actions_in_the_supply_do_not_keep_a_player_from_going_out_with_an_action_turn():
    s = game(racks=[("@medic", "@bomb"), ("Z",)], bag=("@shield",))
    s2, _ = play(s, 0, put("A1", "@medic"))
    assert s2.over and s2.result.reason == "out" and s2.result.adjustments == (0, -10)


def test_remaining_letters_are_deducted_after_three_passes_but_not_action_tiles():
    s = game(racks=[("Q", "@nuke"), ("@bomb", "@fire")], scores=(30, 20))
    for seat in (0, 1, 0):
        s, _ = apply(s, Pass(seat))
    assert s.result.reason == "zero-turns" and s.result.adjustments == (-10, 0)


# --- replay and conservation ------------------------------------------------------------------


def _random_turn(state, rnd: random.Random):
    """A legal random action for the seat to move: an action tile, a word, a swap or a pass."""
    seat = state.to_move
    rack = state.racks[seat]
    acts = [t for t in rack if is_action(t)]
    letters = [t for t in rack if not is_action(t)]
    tries = []
    for _ in range(40):
        if acts and rnd.random() < 0.5:
            token = rnd.choice(acts)
            facing = rnd.choice(list(FACINGS)) if ACTIONS[token[1:]].needs_facing else ""
            p = Placement(rnd.randrange(15), rnd.randrange(15), token, False, facing)
            tries.append(Play(seat, (p,)))
        if len(letters) >= 2:
            k = rnd.randint(2, min(4, len(letters)))
            word_tokens = rnd.sample(letters, k)
            r, c, across = rnd.randrange(15), rnd.randrange(15), rnd.random() < 0.5
            ps = []
            for t in word_tokens:
                while 0 <= r < 15 and 0 <= c < 15 and state.cells[r * 15 + c] is not None:
                    r, c = (r, c + 1) if across else (r + 1, c)
                if not (0 <= r < 15 and 0 <= c < 15):
                    break
                letter = "E" if t == "?" else t
                ps.append(Placement(r, c, letter, t == "?"))
                r, c = (r, c + 1) if across else (r + 1, c)
            tries.append(Play(seat, tuple(ps)))
    for action in tries:
        try:
            return apply(state, action)
        except RuleError:
            continue
    if state.exchanges[seat] < 5 and len(state.bag) >= 2:
        return apply(state, Exchange(seat, rack[:2]))
    return apply(state, Pass(seat))


@pytest.mark.parametrize("board", WOW_BOARDS)
def test_replay_is_exact_and_effects_explain_every_point_and_no_tile_appears(board):
    ruleset = get_ruleset("warofwords", "en", board)
    state, log = start_game(ruleset, 3, 1234, None, False)
    rnd = random.Random(board)
    for _ in range(60):
        if state.over:
            break
        state, events = _random_turn(state, rnd)
        log += events
    again = replay(log)
    for field in ("cells", "racks", "bag", "scores", "effects", "electrification",
                  "irradiated", "rng_counter", "result"):
        assert getattr(again, field) == getattr(state, field), field
    explained = [0, 0, 0]
    destroyed = actions_played = 0
    for e in log:
        if e.type == "play":
            explained[e.seat] += e.data["score"]
            actions_played += len(e.data.get("actions", []))
        elif e.type == "effect" and e.seat is not None:
            explained[e.seat] += e.data["points"]
            destroyed += len(e.data.get("squares", [])) if e.data.get("destroyed") else 0
        elif e.type == "game-over":
            explained = [x + a for x, a in zip(explained, e.data["adjustments"], strict=True)]
    assert tuple(explained) == state.scores
    on_board = sum(1 for t in state.cells if t is not None)
    held = len(state.bag) + sum(len(r) for r in state.racks)
    assert held + on_board + destroyed + actions_played == ruleset.tiles.total
