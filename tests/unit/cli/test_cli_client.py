"""The CLI's own pieces without servers: move notation, rendering, errors in plain words (from
google.rpc.Status details over a loopback channel with a minimal fake servicer), the config file
and exit codes."""

from __future__ import annotations

import json
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import code_pb2, status_pb2
from grpc_status import rpc_status
from rich.console import Console

from wordarena.clients.cli import clocks, movelog, moves, render
from wordarena.clients.cli.client import (
    EXIT_REFUSED,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
    Client,
    ClientError,
    Config,
)
from wordarena.clients.cli.main import main
from wordarena.v1 import common_pb2, errors_pb2, match_pb2, match_pb2_grpc


def board(tiles: dict[tuple[int, int], str] | None = None) -> common_pb2.BoardView:
    view = common_pb2.BoardView(rows=15, cols=15)
    for r in range(15):
        for c in range(15):
            sq = view.squares.add()
            sq.square.row, sq.square.col = r, c
            if (r, c) == (7, 7):
                sq.is_start = True
            if (r, c) == (0, 0):
                sq.premium.kind = common_pb2.PREMIUM_KIND_WORD
                sq.premium.factor = 3
            letter = (tiles or {}).get((r, c))
            if letter:
                sq.tile.letter = letter
                sq.tile.value = 1
                sq.tile.placed_seq = 5
    return view


# -- notation --------------------------------------------------------------------------------

def test_across_down_blank_and_through() -> None:
    across = moves.parse_move(board(), "8H WoRD").play.placements
    assert [(p.square.row, p.square.col, p.letter, p.is_blank) for p in across] == [
        (7, 7, "W", False), (7, 8, "O", True), (7, 9, "R", False), (7, 10, "D", False)]
    down = moves.parse_move(board({(7, 7): "A"}), "H7 B.T").play.placements
    assert [(p.square.row, p.square.col, p.letter) for p in down] == [(6, 7, "B"), (8, 7, "T")]


def test_pass_swap_resign() -> None:
    assert moves.parse_move(board(), "pass").WhichOneof("kind") == "pass_turn"
    swap = moves.parse_move(board(), "swap QV?").exchange.tiles
    assert [(t.letter, t.is_blank) for t in swap] == [("Q", False), ("V", False), ("?", True)]
    assert moves.parse_move(board(), "resign").WhichOneof("kind") == "resign"


@pytest.mark.parametrize("text", ["8Z WORD", "8H", "8H WO RD", "8O WORDS", "swap", "swap 1"])
def test_bad_notation_is_a_usage_error(text: str) -> None:
    with pytest.raises(ClientError) as err:
        moves.parse_move(board(), text)
    assert err.value.exit_code == EXIT_USAGE


def test_through_tile_must_match() -> None:
    with pytest.raises(ClientError, match="holds A"):
        moves.parse_move(board({(7, 7): "A"}), "8H BE")


# -- rendering -------------------------------------------------------------------------------

def text_of(renderable: object) -> str:
    console = Console(width=120, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_board_has_coordinates_premiums_and_tiles() -> None:
    out = text_of(render.board_renderable(board({(7, 7): "Q"})))
    lines = out.splitlines()
    assert lines[0].split() == list("ABCDEFGHIJKLMNO")
    assert lines[1].split()[:2] == ["1", "TW"]
    assert " Q " in lines[8]


def test_last_move_is_highlighted() -> None:
    sq = board({(7, 7): "Q"}).squares[7 * 15 + 7]
    assert render.square_cell(sq, 5)[1] == render.LAST_MOVE_STYLE
    assert render.square_cell(sq, 9)[1] == render.TILE_STYLE


def test_screen_shows_scores_rack_turn_and_result() -> None:
    view = match_pb2.MatchView(match_id="m1", viewer_seat=0, controlled_seats=[0], to_move_seat=0,
                               bag_count=42, board=board())
    view.seats.add(index=0, score=12, rack_count=7, player=common_pb2.Player(display_name="Ann"))
    view.seats.add(index=1, score=30, rack_count=7,
                   player=common_pb2.Player(display_name="Bot", bot=True, bot_level=2))
    view.rack.tiles.add(letter="Q", value=10)
    view.rack.tiles.add(letter="?", is_blank=True)
    out = text_of(render.match_screen(view, ["Bot: 8H QI for 22"]))
    assert "Your turn" in out and "42 tiles in the bag" in out
    assert "Ann (you)" in out and "Bot (bot 2)" in out and "30 pts" in out
    assert "Q10" in out and "Bot: 8H QI for 22" in out
    view.result.final_scores.add(seat=0, final_score=300, outcome=common_pb2.OUTCOME_WIN)
    view.result.final_scores.add(seat=1, final_score=200, outcome=common_pb2.OUTCOME_LOSS)
    view.result.winner_seats.append(0)
    view.result.reason = common_pb2.GAME_OVER_REASON_OUT_OF_TILES
    assert "GAME OVER (a player went out): Ann 300 WIN · Bot 200 LOSS — Ann wins" in text_of(
        render.match_screen(view))


def test_clock_counts_down() -> None:
    clock = common_pb2.Clock(running=True)
    clock.remaining.FromSeconds(120)
    clock.as_of.FromSeconds(1000)
    assert render.clock_remaining(clock, now=1030) == 90
    assert render.format_clock(90) == "1:30"
    assert render.clock_remaining(clock, now=5000) == 0


def test_scrabble_clock_past_zero_shows_the_time_over_and_the_penalty_so_far() -> None:
    clock = common_pb2.Clock(running=True, overtime_points=10)
    clock.remaining.FromSeconds(0)
    clock.overtime.FromSeconds(5)
    clock.max_overtime.FromSeconds(600)
    clock.as_of.FromSeconds(1000)
    assert clocks.clock_text(clock, now=1060) == ("⏱ -1:05 over (-20 pts)", "bold red")
    assert clocks.clock_text(clock, now=9999)[0] == "⏱ -10:00 over (-100 pts)"
    clock.overtime_points = 0  # a clock without overtime stops at zero
    assert clocks.clock_text(clock, now=1060)[0] == "⏱ 0:00"


def test_turn_deadline_in_days_hours_or_minutes() -> None:
    due = common_pb2.Clock().as_of
    due.FromSeconds(1_000_000)
    assert clocks.deadline_text(due, now=1_000_000 - (2 * 86400 + 3 * 3600 + 10)) == "turn due in 2d 03h"
    assert clocks.deadline_text(due, now=1_000_000 - (4 * 3600 + 5 * 60)) == "turn due in 4h 05m"
    assert clocks.deadline_text(due, now=1_000_000 - 750) == "turn due in 12:30"
    assert clocks.deadline_text(due, now=1_000_001) == "turn overdue"


def test_events_in_words() -> None:
    e = common_pb2.Event(seq=3, turn_played=common_pb2.TurnPlayed(seat=1, notation="8H QI", points=22))
    assert movelog.describe_event(e, ["Ann", "Bob"]) == "Bob: 8H QI for 22"
    e = common_pb2.Event(seq=4, play_checked=common_pb2.PlayChecked(
        seat=0, checker_seat=1, result=common_pb2.CHECK_RESULT_FAILED, invalid_words=["ZQX"]))
    assert "ZQX not valid" in movelog.describe_event(e, ["Ann", "Bob"])
    assert movelog.describe_event(common_pb2.Event(heartbeat=common_pb2.Heartbeat())) is None


# -- errors from google.rpc.Status, over a real channel ----------------------------------------

def _status(code: int, message: str, *details: object) -> grpc.Status:
    st = status_pb2.Status(code=code, message=message)
    for d in details:
        packed = any_pb2.Any()
        packed.Pack(d)  # type: ignore[arg-type]
        st.details.append(packed)
    return rpc_status.to_status(st)


class FakeMatch(match_pb2_grpc.MatchServiceServicer):
    """Answers SubmitTurn with the error the test put in ``next``; GetMatch moves once."""

    def __init__(self) -> None:
        self.next: grpc.Status | None = None
        self.moved_to = ""
        self.metadata: list[tuple[str, str]] = []

    def GetMatch(self, request, context):
        self.metadata = list(context.invocation_metadata())
        if self.moved_to:
            target, self.moved_to = self.moved_to, ""
            context.abort_with_status(_status(code_pb2.UNAVAILABLE, "moved", errors_pb2.MatchMoved(
                match_id=request.match_id, new_address=target)))
        return match_pb2.GetMatchResponse(match=match_pb2.MatchView(match_id=request.match_id, last_seq=7))

    def SubmitTurn(self, request, context):
        self.metadata = list(context.invocation_metadata())
        context.abort_with_status(self.next)


@pytest.fixture
def fake(tmp_path: Path):
    servicer = FakeMatch()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    match_pb2_grpc.add_MatchServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    config = Config(tmp_path / "config.json")
    client = Client("127.0.0.1:1", config=config, timeout=5)
    client.profile.token = "tok"
    client.profile.matches["m1"] = f"127.0.0.1:{port}"
    yield servicer, client, port
    client.close()
    server.stop(0)


def test_rule_violation_in_plain_words(fake) -> None:
    servicer, client, _ = fake
    servicer.next = _status(code_pb2.FAILED_PRECONDITION, "refused", errors_pb2.RuleViolation(
        code=errors_pb2.RULE_CODE_WORD_NOT_IN_LEXICON, code_name="WORD_NOT_IN_LEXICON",
        message="ZQX is not a word", words=["ZQX"]))
    with pytest.raises(ClientError) as err:
        client.submit("m1", common_pb2.Move(pass_turn=common_pb2.PassMove()), 7)
    assert err.value.exit_code == EXIT_REFUSED
    assert err.value.message == "ZQX is not a word [rule: word not in lexicon]"
    assert err.value.words == ("ZQX",) and err.value.rule == "WORD_NOT_IN_LEXICON"
    assert ("authorization", "Bearer tok") in servicer.metadata  # the refused call carried the token


def test_rule_violation_names_words_and_squares(fake) -> None:
    servicer, client, _ = fake
    servicer.next = _status(code_pb2.FAILED_PRECONDITION, "refused", errors_pb2.RuleViolation(
        code_name="GAP", squares=[common_pb2.Square(row=7, col=9)]))
    with pytest.raises(ClientError) as err:
        client.submit("m1", common_pb2.Move(pass_turn=common_pb2.PassMove()), 7)
    assert err.value.message == "Gap (squares: J8) [rule: gap]"


def test_stale_seq(fake) -> None:
    servicer, client, _ = fake
    servicer.next = _status(code_pb2.FAILED_PRECONDITION, "stale",
                            errors_pb2.StaleSeq(current_seq=9, expected_seq=7))
    with pytest.raises(ClientError) as err:
        client.submit("m1", common_pb2.Move(pass_turn=common_pb2.PassMove()), 7)
    assert err.value.current_seq == 9 and "moved on" in err.value.message
    assert err.value.to_json()["current_seq"] == 9


def test_invalid_argument_is_a_usage_error(fake) -> None:
    servicer, client, _ = fake
    servicer.next = _status(code_pb2.INVALID_ARGUMENT, "coordinates off the board")
    with pytest.raises(ClientError) as err:
        client.submit("m1", common_pb2.Move(pass_turn=common_pb2.PassMove()), 7)
    assert err.value.exit_code == EXIT_USAGE and "off the board" in err.value.message


def test_match_moved_is_followed(fake, tmp_path: Path) -> None:
    servicer, client, _port = fake
    other = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    second = FakeMatch()
    match_pb2_grpc.add_MatchServiceServicer_to_server(second, other)
    port2 = other.add_insecure_port("127.0.0.1:0")
    other.start()
    try:
        servicer.moved_to = f"127.0.0.1:{port2}"
        assert client.get_match("m1").last_seq == 7
        assert client.profile.matches["m1"] == f"127.0.0.1:{port2}"
        assert json.loads((tmp_path / "config.json").read_text())["profiles"]["127.0.0.1:1"]["matches"]
    finally:
        other.stop(0)


def test_unreachable_exit_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORDARENA_CONFIG", str(tmp_path / "c.json"))
    assert main(["login", "--lobby", "127.0.0.1:1", "--timeout", "2"]) == EXIT_UNREACHABLE
    config = Config(tmp_path / "c.json")
    config.profile("127.0.0.1:1").token = "abc"  # signed in: the lobby is asked, and is not there
    config.save()
    assert main(["table", "list", "--lobby", "127.0.0.1:1", "--timeout", "2"]) == EXIT_UNREACHABLE


def test_config_round_trip(tmp_path: Path) -> None:
    config = Config(tmp_path / "sub" / "config.json")
    config.profile("h:1").token = "abc"
    config.save()
    assert Config.load(tmp_path / "sub" / "config.json").profile("h:1").token == "abc"
    assert (tmp_path / "sub" / "config.json").stat().st_mode & 0o777 == 0o600
    assert Config.load(tmp_path / "missing.json").profiles == {}


def test_first_move_deadline_says_what_a_no_show_costs_and_hides_a_later_turn_deadline() -> None:
    seat = common_pb2.Seat(index=0)
    seat.no_show_deadline.FromSeconds(1_000_000)
    assert clocks.no_show_text(seat.no_show_deadline, now=1_000_000 - 250) == (
        "first move due in 4:10 — a no-show forfeits")
    assert clocks.no_show_text(seat.no_show_deadline, now=1_000_000 - (4 * 3600 + 5 * 60)) == (
        "first move due in 4h 05m — a no-show forfeits")
    assert clocks.no_show_text(seat.no_show_deadline, now=1_000_001) == "first move overdue"
    seat.turn_deadline.FromSeconds(1_000_000 + 3 * 86400)  # passes after the seat has been timed out
    shown = clocks.shown_deadlines(seat, now=1_000_000 - 250)
    assert shown == ["first move due in 4:10 — a no-show forfeits"]
    seat.turn_deadline.FromSeconds(1_000_000 - 50)  # War of Words: the others may kick it first
    assert clocks.shown_deadlines(seat, now=1_000_000 - 250) == [
        "turn due in 3:20", "first move due in 4:10 — a no-show forfeits"]
    seat.ClearField("no_show_deadline")  # the seat has moved
    assert clocks.shown_deadlines(seat, now=1_000_000 - 250) == ["turn due in 3:20"]
    view = match_pb2.MatchView(to_move_seat=0)
    seat.no_show_deadline.FromSeconds(1_000_000)
    seat.ClearField("turn_deadline")
    view.seats.append(seat)
    line = render.seats_renderable(view, now=1_000_000 - 250).plain
    assert "⌛ first move due in 4:10 — a no-show forfeits" in line and "turn due" not in line
