"""Action tiles in the CLI's notation, tile labels and the legend, and the wording of results,
strength and refusals — without servers (the e2e tests play them against a real serve)."""

from __future__ import annotations

import pytest
from rich.console import Console

from wordarena.clients.cli import actions, legend, movelog, moves, render
from wordarena.clients.cli.client import EXIT_USAGE, ClientError
from wordarena.clients.cli.match_cmd import strength_text
from wordarena.engine.warofwords.catalog import ACTIONS
from wordarena.v1 import common_pb2, match_pb2


def board() -> common_pb2.BoardView:
    view = common_pb2.BoardView(rows=15, cols=15)
    for r in range(15):
        for c in range(15):
            view.squares.add(square=common_pb2.Square(row=r, col=c))
    return view


def text_of(renderable: object) -> str:
    console = Console(width=140, record=True)
    console.print(renderable)
    return console.export_text()


# -- notation ------------------------------------------------------------------------------------

def test_an_action_tile_is_written_as_its_square_and_token() -> None:
    (p,) = moves.parse_move(board(), "H8 @bomb").play.placements
    assert (p.square.row, p.square.col, p.action, p.letter) == (7, 7, common_pb2.ACTION_KIND_BOMB, "")
    (same,) = moves.parse_move(board(), "8H @bomb").play.placements
    assert same == p


def test_a_blaster_says_which_way_it_fires_and_multipliers_carry_their_factor() -> None:
    (b,) = moves.parse_move(board(), "H8 @blaster:right").play.placements
    assert (b.action, b.facing) == (common_pb2.ACTION_KIND_BLASTER, common_pb2.FACING_RIGHT)
    (m,) = moves.parse_move(board(), "A1 @3w").play.placements
    assert (m.action, m.action_factor) == (common_pb2.ACTION_KIND_WORD_MULTIPLIER, 3)


def test_a_word_and_several_action_tiles_make_one_play() -> None:
    placed = moves.parse_move(board(), "8H WoRD + K10 @bomb, A1 @shield").play.placements
    assert [(p.letter, p.is_blank, p.action) for p in placed] == [
        ("W", False, 0), ("O", True, 0), ("R", False, 0), ("D", False, 0),
        ("", False, common_pb2.ACTION_KIND_BOMB), ("", False, common_pb2.ACTION_KIND_SHIELD)]
    pair = moves.parse_move(board(), "E5 @portal + K11 @portal").play.placements
    assert [p.action for p in pair] == [common_pb2.ACTION_KIND_PORTAL] * 2


def test_a_move_of_a_rain_names_the_effect_the_board_shows_there() -> None:
    view = board()
    view.effects.add(effect_id="rain@C3", action=common_pb2.ACTION_KIND_RAIN, owner_seat=0,
                     origin=common_pb2.Square(row=2, col=2), movable=True)
    play = moves.parse_move(view, "K3 @3W + C3>E5").play
    assert [p.action for p in play.placements] == [common_pb2.ACTION_KIND_WORD_MULTIPLIER]
    assert [(m.effect_id, m.to.row, m.to.col) for m in play.effect_moves] == [("rain@C3", 4, 4)]
    assert moves.parse_move(view, "K3 @3W + C3 > E5").play == play
    with pytest.raises(ClientError) as err:
        moves.parse_move(view, "K3 @3W + D4>E5")
    assert err.value.exit_code == EXIT_USAGE and "no Rain or Whirlwind on D4" in err.value.message
    with pytest.raises(ClientError) as err:  # Word Strength ranks tiles only
        moves.play_placements(view, "K3 @3W + C3>E5")


@pytest.mark.parametrize("text, says", [
    ("H8 @blaster", "@blaster:up"), ("H8 @bomb:left", "only a Blaster"), ("H8 @nosuch", "not an action"),
    ("8H W@RD", "not a letter"), ("8H WORD +", "write a play as"),
])
def test_bad_action_notation_is_a_usage_error_that_shows_the_syntax(text: str, says: str) -> None:
    with pytest.raises(ClientError) as err:
        moves.parse_move(board(), text)
    assert err.value.exit_code == EXIT_USAGE and says in err.value.message


def test_action_tiles_are_swapped_by_token() -> None:
    tiles = moves.parse_move(board(), "swap QV? @bomb @3L").exchange.tiles
    assert [(t.letter, t.is_blank, t.action, t.action_factor) for t in tiles] == [
        ("Q", False, 0, 0), ("V", False, 0, 0), ("?", True, 0, 0),
        ("", False, common_pb2.ACTION_KIND_BOMB, 0), ("", False, common_pb2.ACTION_KIND_LETTER_MULTIPLIER, 3)]
    with pytest.raises(ClientError):
        moves.parse_move(board(), "swap @nosuch")


def test_every_engine_action_tile_has_a_contract_kind_and_back() -> None:
    for name in ACTIONS:
        kind, factor = actions.from_token("@" + name)
        assert kind, name
        assert actions.token(kind, factor) == "@" + name


# -- labels and legend ---------------------------------------------------------------------------

def test_different_tiles_never_share_a_label() -> None:
    tiles = [common_pb2.Tile(action=k, action_factor=f)
             for k, f in (actions.from_token("@" + n) for n in ACTIONS)]
    rack_labels = [render.tile_text(t) for t in tiles]
    assert len(set(rack_labels)) == len(rack_labels)
    codes = [actions.board_code(t) for t in tiles]
    assert len(set(codes)) == len(codes) and all(len(c) == 2 for c in codes)
    counts = [common_pb2.TileCount(tile=t, count=1) for t in tiles[:4]]
    assert render.tile_counts_text(counts) == "@bomb×1 @blaster×1 @lightning×1 @nuke×1"


def test_premium_labels_are_unambiguous_and_explained() -> None:
    view = board()
    kinds = [(common_pb2.PREMIUM_KIND_LETTER, 4, False), (common_pb2.PREMIUM_KIND_LETTER, 11, True),
             (common_pb2.PREMIUM_KIND_LETTER_AND_WORD, 2, True), (common_pb2.PREMIUM_KIND_WORD, 5, True)]
    for k, (kind, factor, tile) in enumerate(kinds):
        view.squares[k].premium.CopyFrom(common_pb2.Premium(kind=kind, factor=factor, is_tile=tile))
    assert [render.premium_label(view.squares[k].premium) for k in range(4)] == ["QL", "11L", "2LW", "5W"]
    view.squares[20].tile.CopyFrom(common_pb2.Tile(action=common_pb2.ACTION_KIND_BLASTER,
                                                   facing=common_pb2.FACING_LEFT))
    rack = [common_pb2.Tile(action=common_pb2.ACTION_KIND_PORTAL)]
    out = text_of(legend.legend_renderable(view, rack, additive=True))
    assert "QL" in out and "quadruple letter: a letter placed here counts 4x" in out
    assert "11L" in out and "2LW" in out and "adds 5 to the factor" in out
    assert "B<" in out and "@blaster facing left" in out
    assert "@portal" in out and "Portal: pairs" in out


def test_the_rack_shows_action_tiles_as_typed() -> None:
    rack = common_pb2.Rack(tiles=[
        common_pb2.Tile(letter="A", value=1), common_pb2.Tile(letter="?", is_blank=True),
        common_pb2.Tile(action=common_pb2.ACTION_KIND_BOMB),
        common_pb2.Tile(action=common_pb2.ACTION_KIND_WORD_MULTIPLIER, action_factor=3)])
    assert render.rack_letters(rack) == "A? @bomb @3W"
    out = text_of(render.rack_renderable(rack))
    assert "@bomb" in out and "@3W" in out and "@bomb0" not in out


# -- wording -------------------------------------------------------------------------------------

def _view(**seats: int) -> match_pb2.MatchView:
    view = match_pb2.MatchView(match_id="m", viewer_seat=0, controlled_seats=[0], to_move_seat=1)
    for i, (name, status) in enumerate(seats.items()):
        view.seats.add(index=i, player=common_pb2.Player(display_name=name), status=status)  # type: ignore[arg-type]
    return view


def test_a_resignation_says_who_resigned() -> None:
    view = _view(Ann=common_pb2.SEAT_STATUS_ACTIVE, Bob=common_pb2.SEAT_STATUS_RESIGNED)
    over = common_pb2.GameOver(reason=common_pb2.GAME_OVER_REASON_PLAYERS_LEFT, winner_seats=[0])
    assert render.result_text(view, over).startswith("GAME OVER (Bob resigned)")


def test_not_your_turn_names_the_player_to_move() -> None:
    view = _view(Ann=common_pb2.SEAT_STATUS_ACTIVE, Bob=common_pb2.SEAT_STATUS_ACTIVE)
    assert render.not_your_turn(view) == "It is not your turn: Bob is to move"


def test_the_best_play_is_called_the_best_play() -> None:
    best = match_pb2.WordStrengthResponse(valid=True, rank=1, legal_play_count=40, best_score=30,
                                          percentile=0.96, breakdown=common_pb2.ScoreBreakdown(total=30))
    assert "the best play" in strength_text(best, set()) and "96%" not in strength_text(best, set())
    best.best.breakdown.total = 30
    assert "tied for the best play" in strength_text(best, set())
    worse = match_pb2.WordStrengthResponse(valid=True, rank=5, legal_play_count=40, best_score=30,
                                           percentile=0.5, breakdown=common_pb2.ScoreBreakdown(total=12))
    assert "rank 5 of 40" in strength_text(worse, set())


def test_blanks_are_lower_case_in_the_log_and_the_preview() -> None:
    placed = moves.parse_move(board(), "8H WoRD").play.placements
    assert movelog.play_text("8H WORD", placed) == "8H WoRD"
    word = common_pb2.WordScore(word="WORD", score=7)
    for p in placed:
        word.letters.add(square=p.square, letter=p.letter)
    b = common_pb2.ScoreBreakdown(words=[word], total=7)
    assert movelog.breakdown_text(b, movelog.blank_squares(placed)).startswith("WoRD 7")
    bomb = moves.parse_move(board(), "K10 @bomb").play.placements
    assert movelog.play_text("8H WORD", [*placed, *bomb]) == "8H WoRD + K10 @bomb"
    assert movelog.play_text("", bomb) == "K10 @bomb"


def test_leaving_the_table_menu_is_not_an_error(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from wordarena.clients.cli import play_cmd

    class Lobby:
        def list_tables(self, *_: object) -> list:
            return []

    monkeypatch.setattr("builtins.input", lambda *_: "x")
    assert play_cmd._menu(Lobby(), None) is None  # type: ignore[arg-type]
    assert "Error" not in capsys.readouterr().out


def test_a_refusal_names_the_player_and_leaves_the_screen_when_the_turn_passes() -> None:
    from wordarena.clients.cli.screen import GameScreen

    views = [_view(Ann=common_pb2.SEAT_STATUS_ACTIVE, Bob=common_pb2.SEAT_STATUS_ACTIVE)]

    class FakeClient:
        def get_match(self, _match_id: str) -> match_pb2.MatchView:
            return views[-1]

        def submit(self, *_: object, **__: object) -> None:
            raise ClientError("it is seat 1's turn, not seat 0's", rule="NOT_YOUR_TURN")

    screen = GameScreen(FakeClient(), "m", out=open("/dev/null", "w"))  # type: ignore[arg-type]  # noqa: SIM115
    screen.handle("pass")
    assert screen.info == ["✗ It is not your turn: Bob is to move"]
    screen.handle("legend")
    screen.handle("pass")
    turned = match_pb2.MatchView()
    turned.CopyFrom(views[0])
    turned.to_move_seat, turned.turn_number = 0, 2
    views.append(turned)
    screen.events.put(("event", common_pb2.Event(seq=9, turn_passed=common_pb2.TurnPassed(seat=1))))
    screen.drain()
    assert not any(isinstance(line, str) and line.startswith("✗") for line in screen.info)


def test_preview_names_a_colour_square_as_the_letter_it_multiplied_not_the_word() -> None:
    # BOAT with its B tripled on a blue square (Word Tiles): not "Wx3".
    b = common_pb2.ScoreBreakdown(total=12, words=[common_pb2.WordScore(
        word="BOAT", score=12, premiums=[common_pb2.PremiumApplied(
            square=common_pb2.Square(row=7, col=7), kind=common_pb2.PREMIUM_KIND_COLOUR, factor=3,
            colour=common_pb2.TILE_COLOUR_BLUE)])])
    assert movelog.breakdown_text(b) == "BOAT 12 (H8 on blue x3) = 12"
