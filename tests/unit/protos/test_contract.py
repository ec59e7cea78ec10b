"""The public gRPC contract (protos/wordarena/v1): generated modules, services, RPCs, messages."""

from __future__ import annotations

import importlib

import pytest
from google.protobuf import any_pb2, duration_pb2, timestamp_pb2
from google.rpc import code_pb2, status_pb2

from wordarena.v1 import (
    common_pb2,
    control_pb2,
    control_pb2_grpc,
    errors_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    match_pb2,
    match_pb2_grpc,
    tournament_pb2,
    tournament_pb2_grpc,
)

MODULES = ["common", "errors", "match", "lobby", "control", "tournament"]

# RPC name -> (client streaming, server streaming) for every service of the contract.
EXPECTED_RPCS: dict[tuple[str, str], dict[str, tuple[bool, bool]]] = {
    ("match", "MatchService"): {
        "GetMatch": (False, False),
        "StreamMatch": (False, True),
        "SubmitTurn": (False, False),
        "DecidePending": (False, False),
        "PreviewPlay": (False, False),
        "Hindsight": (False, False),
        "WordStrength": (False, False),
        "TileBag": (False, False),
        "Define": (False, False),
        "SendChat": (False, False),
        "ListLog": (False, False),
        "LeaveMatch": (False, False),
        "KickIdlePlayer": (False, False),
        "GetMatchRecord": (False, False),
    },
    ("lobby", "LobbyService"): {
        "SignInGuest": (False, False),
        "ClaimAccount": (False, False),
        "SignIn": (False, False),
        "RefreshToken": (False, False),
        "GetMe": (False, False),
        "CreateTable": (False, False),
        "GetTable": (False, False),
        "ListTables": (False, False),
        "WatchTables": (False, True),
        "JoinTable": (False, False),
        "LeaveTable": (False, False),
        "SitBot": (False, False),
        "StartTable": (False, False),
        "QuickMatch": (False, False),
        "GetQuickMatchTicket": (False, False),
        "WatchQuickMatchTicket": (False, True),
        "CancelQuickMatchTicket": (False, False),
        "LocateMatch": (False, False),
        "GetPlayerRecord": (False, False),
        "GetLeaderboard": (False, False),
        "ListMyMatches": (False, False),
        "ListRulesets": (False, False),
        "DescribeRuleset": (False, False),
    },
    ("tournament", "TournamentService"): {
        "CreateTournament": (False, False),
        "GetTournament": (False, False),
        "ListTournaments": (False, False),
        "WatchTournament": (False, True),
        "GetStandings": (False, False),
        "ExportStandings": (False, False),
        "ExportGames": (False, False),
        "ExportGamesStream": (False, True),
        "Register": (False, False),
        "Unregister": (False, False),
        "CheckIn": (False, False),
        "AddDirector": (False, False),
        "StartTournament": (False, False),
        "PauseTournament": (False, False),
        "ResumeTournament": (False, False),
        "EndTournament": (False, False),
        "PairRound": (False, False),
        "SetResult": (False, False),
        "AwardForfeit": (False, False),
        "AddEntrant": (False, False),
        "RemoveEntrant": (False, False),
    },
    ("control", "MatchControlService"): {
        "CreateMatch": (False, False),
        "AbortMatch": (False, False),
        "GetLoad": (False, False),
        "Drain": (False, False),
    },
    ("control", "MatchRegistryService"): {
        "RegisterMatchServer": (False, False),
        "Heartbeat": (False, False),
        "ReportResult": (False, False),
        "ReportMatchLocation": (False, False),
    },
}


@pytest.mark.parametrize("name", MODULES)
def test_every_generated_module_imports(name: str) -> None:
    pb2 = importlib.import_module(f"wordarena.v1.{name}_pb2")
    importlib.import_module(f"wordarena.v1.{name}_pb2_grpc")
    # Registered under the buf module path, as server reflection and buf see it.
    assert pb2.DESCRIPTOR.name == f"wordarena/v1/{name}.proto"
    assert pb2.DESCRIPTOR.package == "wordarena.v1"


@pytest.mark.parametrize(("key", "rpcs"), list(EXPECTED_RPCS.items()), ids=lambda v: str(v))
def test_services_have_their_rpcs(key: tuple[str, str], rpcs: dict) -> None:
    module, service = key
    pb2 = importlib.import_module(f"wordarena.v1.{module}_pb2")
    grpc_mod = importlib.import_module(f"wordarena.v1.{module}_pb2_grpc")
    desc = pb2.DESCRIPTOR.services_by_name[service]
    assert desc.full_name == f"wordarena.v1.{service}"
    methods = {m.name: m for m in desc.methods}
    assert set(methods) == set(rpcs)
    for name, (client_streaming, server_streaming) in rpcs.items():
        m = methods[name]
        assert (m.client_streaming, m.server_streaming) == (client_streaming, server_streaming)
        # buf STANDARD: <Rpc>Request / <Rpc>Response.
        assert m.input_type.name == f"{name}Request"
        assert m.output_type.name == f"{name}Response"
    # The stub, servicer and registration helper exist.
    assert hasattr(grpc_mod, f"{service}Stub")
    assert hasattr(grpc_mod, f"{service}Servicer")
    assert hasattr(grpc_mod, f"add_{service}Servicer_to_server")


def test_every_service_is_covered() -> None:
    declared = {
        (name, svc)
        for name in MODULES
        for svc in importlib.import_module(f"wordarena.v1.{name}_pb2").DESCRIPTOR.services_by_name
    }
    assert declared == set(EXPECTED_RPCS)


def test_submit_turn_round_trips() -> None:
    move = common_pb2.Move(
        play=common_pb2.PlayMove(
            placements=[
                common_pb2.Placement(square=common_pb2.Square(row=7, col=7), letter="Q"),
                common_pb2.Placement(
                    square=common_pb2.Square(row=7, col=8), letter="I", is_blank=True
                ),
            ]
        )
    )
    req = match_pb2.SubmitTurnRequest(
        match_id="m1", expected_seq=12, request_id="6f1c2a", move=move
    )
    back = match_pb2.SubmitTurnRequest.FromString(req.SerializeToString())
    assert back == req
    assert back.move.WhichOneof("kind") == "play"
    assert back.move.play.placements[1].is_blank
    assert not back.HasField("seat")
    assert match_pb2.SubmitTurnRequest(seat=0).HasField("seat")

    for kind, value in [
        ("pass_turn", common_pb2.PassMove()),
        ("exchange", common_pb2.ExchangeMove(tiles=[common_pb2.Tile(letter="?")])),
        ("resign", common_pb2.ResignMove()),
    ]:
        m = common_pb2.Move(**{kind: value})
        assert common_pb2.Move.FromString(m.SerializeToString()).WhichOneof("kind") == kind


def test_event_round_trips() -> None:
    ts = timestamp_pb2.Timestamp(seconds=1_700_000_000)
    word = common_pb2.WordScore(
        word="QI",
        start=common_pb2.Square(row=7, col=7, notation="H8"),
        direction=common_pb2.DIRECTION_ACROSS,
        main_word=True,
        premiums=[
            common_pb2.PremiumApplied(
                square=common_pb2.Square(row=7, col=7), kind=common_pb2.PREMIUM_KIND_WORD, factor=2
            )
        ],
        letter_total=11,
        word_factor=2,
        score=22,
    )
    event = common_pb2.Event(
        seq=3,
        time=ts,
        turn_number=2,
        to_move_seat=1,
        scores=[22, 0],
        turn_played=common_pb2.TurnPlayed(
            seat=0,
            breakdown=common_pb2.ScoreBreakdown(words=[word], words_total=22, total=22),
            points=22,
            drawn_count=2,
            notation="8H QI",
        ),
    )
    back = common_pb2.Event.FromString(event.SerializeToString())
    assert back == event
    assert back.WhichOneof("kind") == "turn_played"
    assert back.turn_played.breakdown.words[0].premiums[0].factor == 2

    effect = common_pb2.Event(
        seq=9,
        effect=common_pb2.Effect(
            kind=common_pb2.EFFECT_KIND_DESTROYED,
            source=common_pb2.ACTION_KIND_BOMB,
            by_seat=0,
            seat=1,
            points=-30,
            reason="Bomb at H8 destroyed QUIZ",
        ),
    )
    back = common_pb2.Event.FromString(effect.SerializeToString())
    assert back.effect.points == -30 and back.effect.HasField("by_seat")

    stream_msg = match_pb2.StreamMatchResponse(event=common_pb2.Event(seq=9, heartbeat={}))
    assert match_pb2.StreamMatchResponse.FromString(
        stream_msg.SerializeToString()
    ).event.HasField("heartbeat")


def test_board_view_round_trips() -> None:
    rows = cols = 15
    board = common_pb2.BoardView(board_id="wwf", rows=rows, cols=cols)
    for r in range(rows):
        for c in range(cols):
            sq = board.squares.add(square=common_pb2.Square(row=r, col=c))
            if (r, c) == (7, 7):
                sq.is_start = True
                sq.tile.CopyFrom(common_pb2.Tile(letter="Q", value=10, owner_seat=0))
            if (r, c) == (0, 3):
                sq.premium.CopyFrom(
                    common_pb2.Premium(kind=common_pb2.PREMIUM_KIND_WORD, factor=3, label="TW")
                )
    board.squares[0].hidden = True
    back = common_pb2.BoardView.FromString(board.SerializeToString())
    assert back == board
    assert len(back.squares) == rows * cols
    centre = back.squares[7 * cols + 7]
    assert centre.tile.letter == "Q" and centre.tile.HasField("owner_seat")
    assert not back.squares[1].HasField("tile") and not back.squares[1].HasField("premium")


def test_error_details_pack_into_rpc_status() -> None:
    violation = errors_pb2.RuleViolation(
        code=errors_pb2.RULE_CODE_WORD_NOT_IN_LEXICON,
        code_name="WORD_NOT_IN_LEXICON",
        message="ZQX is not a word",
        words=["ZQX"],
    )
    stale = errors_pb2.StaleSeq(current_seq=14, expected_seq=12)
    moved = errors_pb2.MatchMoved(match_id="m1", new_address="10.0.0.7:50061")
    status = status_pb2.Status(code=code_pb2.FAILED_PRECONDITION, message="refused")
    for detail in (violation, stale, moved):
        packed = any_pb2.Any()
        packed.Pack(detail)
        status.details.append(packed)
    back = status_pb2.Status.FromString(status.SerializeToString())
    got_violation, got_stale, got_moved = (
        errors_pb2.RuleViolation(),
        errors_pb2.StaleSeq(),
        errors_pb2.MatchMoved(),
    )
    assert back.details[0].Unpack(got_violation) and got_violation == violation
    assert back.details[1].Unpack(got_stale) and got_stale.current_seq == 14
    assert back.details[2].Unpack(got_moved) and got_moved.new_address.endswith(":50061")
    assert back.details[0].type_url.endswith("wordarena.v1.RuleViolation")
    # Every RuleCode value has the stable name that code_name carries.
    for value in errors_pb2.RuleCode.DESCRIPTOR.values:
        assert value.name.startswith("RULE_CODE_")


def test_lobby_and_control_messages_round_trip() -> None:
    settings = lobby_pb2.TableSettings(
        ruleset=common_pb2.RulesetRef(ruleset_id="wordtiles", language="en"),
        seats=4,
        options=common_pb2.MatchOptions(
            challenge_mode=common_pb2.CHALLENGE_MODE_ACCEPT_OR_CHECK,
            clock=common_pb2.ClockSettings(per_player=duration_pb2.Duration(seconds=600)),
        ),
        bots=[lobby_pb2.BotSeat(seat=3, bot_level=2)],
        visibility=lobby_pb2.VISIBILITY_PRIVATE,
    )
    req = lobby_pb2.CreateTableRequest(settings=settings, request_id="r1")
    assert lobby_pb2.CreateTableRequest.FromString(req.SerializeToString()) == req

    create = control_pb2.CreateMatchRequest(
        match_id="m1",
        ruleset=settings.ruleset,
        seats=[
            control_pb2.SeatAssignment(
                index=0, player=common_pb2.Player(player_id="p1", display_name="ann")
            ),
            control_pb2.SeatAssignment(index=1, bot_level=3),
        ],
        options=settings.options,
        seed=2**63 + 5,
    )
    back = control_pb2.CreateMatchRequest.FromString(create.SerializeToString())
    assert back == create
    assert [s.WhichOneof("occupant") for s in back.seats] == ["player", "bot_level"]

    board = lobby_pb2.GetLeaderboardResponse(
        entries=[lobby_pb2.LeaderboardEntry(rank=1)],
        caller_entry=lobby_pb2.LeaderboardEntry(rank=17),
        next_page_token="abc",
    )
    assert lobby_pb2.GetLeaderboardResponse.FromString(board.SerializeToString()) == board


def test_grpc_stubs_have_one_callable_per_rpc_of_their_service() -> None:
    import grpc

    channel = grpc.insecure_channel("localhost:1")
    try:
        for pb2, grpc_mod, service in (
            (match_pb2, match_pb2_grpc, "MatchService"),
            (lobby_pb2, lobby_pb2_grpc, "LobbyService"),
            (control_pb2, control_pb2_grpc, "MatchControlService"),
            (control_pb2, control_pb2_grpc, "MatchRegistryService"),
            (tournament_pb2, tournament_pb2_grpc, "TournamentService"),
        ):
            methods = pb2.DESCRIPTOR.services_by_name[service].methods_by_name
            assert methods, service
            stub = getattr(grpc_mod, f"{service}Stub")(channel)
            bound = {name for name in vars(stub) if not name.startswith("_")}
            assert bound == set(methods), service
            for name, method in methods.items():
                call = getattr(stub, name)
                streaming = method.server_streaming
                assert isinstance(call, grpc.UnaryStreamMultiCallable if streaming
                                  else grpc.UnaryUnaryMultiCallable), (service, name)
    finally:
        channel.close()


def test_enum_zero_values_are_unspecified() -> None:
    for name in MODULES:
        pb2 = importlib.import_module(f"wordarena.v1.{name}_pb2")
        for enum in pb2.DESCRIPTOR.enum_types_by_name.values():
            assert enum.values[0].number == 0
            assert enum.values[0].name.endswith("_UNSPECIFIED"), enum.full_name


def test_generated_code_loads_once_as_wordarena_v1() -> None:
    import subprocess
    import sys

    # A fresh interpreter: the generated modules import each other as `wordarena.v1` (protoc's
    # own imports, not rewritten), each file is loaded once and registered under its buf path.
    code = (
        "import sys\n"
        "from google.protobuf import descriptor_pool\n"
        "from wordarena.v1 import common_pb2, errors_pb2, match_pb2, match_pb2_grpc, "
        "lobby_pb2, lobby_pb2_grpc, control_pb2, control_pb2_grpc\n"
        "assert not [m for m in sys.modules if m.split('.')[0] == 'protos'], 'a second name'\n"
        "assert match_pb2.wordarena_dot_v1_dot_common__pb2 is common_pb2\n"
        "pool = descriptor_pool.Default()\n"
        "for f in ('common', 'errors', 'match', 'lobby', 'control'):\n"
        "    pool.FindFileByName(f'wordarena/v1/{f}.proto')\n"
        "pool.FindServiceByName('wordarena.v1.MatchService')\n"
        "pool.FindMessageTypeByName('wordarena.v1.RuleViolation')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# Engine rule ids whose RuleCode is not simply RULE_CODE_<ID in upper snake case>.
ENGINE_RULE_ALIASES = {
    "player-not-active": "RULE_CODE_SEAT_INACTIVE",
    "first-move-too-short": "RULE_CODE_WORD_TOO_SHORT",
    "bad-blank": "RULE_CODE_INVALID_BLANK_LETTER",
    "pending-decision": "RULE_CODE_DECISION_PENDING",
    "nothing-pending": "RULE_CODE_NO_PENDING_PLAY",
}


def test_every_engine_rule_has_a_rule_code() -> None:
    from wordarena.engine import errors
    names = set(errors_pb2.RuleCode.keys())
    for rule in errors.Rule:
        expected = ENGINE_RULE_ALIASES.get(
            rule.value, "RULE_CODE_" + rule.value.upper().replace("-", "_")
        )
        assert expected in names, f"engine rule {rule.value!r} has no {expected} in errors.proto"


def test_stubs_and_error_details_over_a_real_channel() -> None:
    """A toy servicer on loopback: a streamed event and a FAILED_PRECONDITION + StaleSeq error."""
    from concurrent import futures

    import grpc
    from grpc_status import rpc_status

    class Match(match_pb2_grpc.MatchServiceServicer):
        def SubmitTurn(self, request, context):
            detail = any_pb2.Any()
            detail.Pack(errors_pb2.StaleSeq(current_seq=7, expected_seq=request.expected_seq))
            context.abort_with_status(
                rpc_status.to_status(
                    status_pb2.Status(
                        code=code_pb2.FAILED_PRECONDITION, message="stale", details=[detail]
                    )
                )
            )

        def StreamMatch(self, request, context):
            for seq in range(request.after_seq + 1, request.after_seq + 3):
                yield match_pb2.StreamMatchResponse(
                    event=common_pb2.Event(seq=seq, turn_passed=common_pb2.TurnPassed(seat=0))
                )

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    match_pb2_grpc.add_MatchServiceServicer_to_server(Match(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            seqs = [
                r.event.seq
                for r in stub.StreamMatch(match_pb2.StreamMatchRequest(match_id="m", after_seq=4))
            ]
            assert seqs == [5, 6]
            with pytest.raises(grpc.RpcError) as info:
                stub.SubmitTurn(match_pb2.SubmitTurnRequest(match_id="m", expected_seq=5))
            assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            status = rpc_status.from_call(info.value)
            stale = errors_pb2.StaleSeq()
            assert status.details[0].Unpack(stale) and stale.current_seq == 7
    finally:
        server.stop(None)
