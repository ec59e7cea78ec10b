"""The contract's promises are the test list: every RPC of every service in
protos/wordarena/v1 has its promises (status codes, details, idempotency, what is shown to whom)
in ``PROMISES`` (``*_promises``, ``*_refusals``), each checked over real gRPC against a real
lobby and match server. An RPC added without promises fails
``test_every_rpc_of_the_contract_has_promises``; a status code an RPC's comment names that no
promise of that RPC checks (nor a test named in ``ELSEWHERE``) fails
``test_every_status_code_an_rpc_comment_names_is_checked``."""

from __future__ import annotations

import re
from pathlib import Path

import control_promises  # noqa: F401  (registers its promises)
import grpc
import lobby_promises  # noqa: F401
import lobby_refusals  # noqa: F401
import match_promises  # noqa: F401
import match_refusals  # noqa: F401
import pytest
import tournament_director_promises  # noqa: F401
import tournament_promises  # noqa: F401
import tournament_timing_promises  # noqa: F401
from world import PROMISES, World

from wordarena.v1 import control_pb2, errors_pb2, lobby_pb2, match_pb2, tournament_pb2

ROOT = Path(__file__).resolve().parents[2]
PROTOS = ROOT / "protos" / "wordarena" / "v1"
CODES = [code.name for code in grpc.StatusCode if code is not grpc.StatusCode.OK]

#: Status codes an RPC comment names that need a set-up this suite's one world cannot give (a
#: lobby with no match server, a client too slow to read, a lockout after many failures): where
#: each is checked instead, as "tests/<file>::<test function>".
ELSEWHERE: dict[str, dict[str, str]] = {
    "LobbyService.CreateTable": {
        "RESOURCE_EXHAUSTED": "tests/service/lobby/test_lobby_open_caps.py::"
                              "test_a_player_holds_at_most_five_open_tables"},
    "LobbyService.JoinTable": {
        "RESOURCE_EXHAUSTED": "tests/service/lobby/test_lobby_open_caps.py::"
                              "test_a_player_holds_at_most_five_open_tables"},
    "TournamentService.CreateTournament": {
        "RESOURCE_EXHAUSTED": "tests/service/lobby/test_lobby_open_caps.py::"
                              "test_a_player_creates_at_most_five_unfinished_tournaments"},
    "TournamentService.ListTournaments": {
        "INVALID_ARGUMENT": "tests/service/lobby/test_lobby_open_caps.py::"
                            "test_tournaments_list_real_events_first_and_page"},
    "LobbyService.SignIn": {
        "RESOURCE_EXHAUSTED": "tests/service/lobby/test_lobby_sign_in_abuse.py::"
                              "test_failed_sign_ins_back_off_exponentially"},
    "LobbyService.SignInGuest": {
        "RESOURCE_EXHAUSTED": "tests/service/lobby/test_lobby_sign_in_abuse.py::"
                              "test_a_guest_flood_from_one_address_is_throttled_and_others_still_sign_in"},
    "LobbyService.StartTable": {
        "UNAVAILABLE": "tests/service/lobby/test_lobby_service.py::"
                       "test_stale_or_refusing_servers_get_nothing"},
    "MatchService.Hindsight": {
        "RESOURCE_EXHAUSTED": "tests/service/match/test_analysis_limits.py::"
                              "test_a_simulated_hindsight_costs_more_of_the_budget"},
    "MatchService.WordStrength": {
        "RESOURCE_EXHAUSTED": "tests/service/match/test_analysis_limits.py::"
                              "test_a_player_asking_for_analysis_too_fast_is_told_to_wait"},
    "TournamentService.AddEntrant": {
        "FAILED_PRECONDITION": "tests/service/lobby/test_tournament_directors.py::"
                               "test_a_director_cannot_add_entrants_past_max_entrants"},
    "MatchService.Define": {
        "NOT_FOUND": "tests/service/match/test_match_define.py::"
                     "test_define_gives_each_sense_with_its_part_of_speech_gloss_and_examples"},
    "MatchService.StreamMatch": {
        "RESOURCE_EXHAUSTED": "tests/service/match/test_match_service.py::test_slow_consumer_is_cut_off",
        "UNAVAILABLE": "tests/service/match/test_match_recovery.py::"
                       "test_a_server_that_lost_its_lease_drops_the_match_and_ends_streams"},
}

#: Status codes a comment names that no test checks yet, with why: the gaps, kept visible. A new
#: unchecked code fails the suite; a gap closed must be removed from here.
NOT_YET_CHECKED: dict[str, dict[str, str]] = {}

CASES = [(rpc, text) for rpc, checks in sorted(PROMISES.items()) for text in checks]


def contract_rpcs() -> set[str]:
    """"Service.Rpc" for every RPC the .proto files declare."""
    return {f"{svc.name}.{method.name}" for mod in (lobby_pb2, match_pb2, control_pb2, tournament_pb2)
            for svc in mod.DESCRIPTOR.services_by_name.values() for method in svc.methods}


def rpc_comments() -> dict[str, str]:
    """"Service.Rpc" -> the comment above the RPC in its .proto file."""
    out: dict[str, str] = {}
    for path in sorted(PROTOS.glob("*.proto")):
        service, comment = "", []
        for line in path.read_text(encoding="utf-8").splitlines():
            text = line.strip()
            if found := re.match(r"service (\w+)", text):
                service, comment = found.group(1), []
            elif text.startswith("//"):
                comment.append(text[2:])
            elif (found := re.match(r"rpc (\w+)", text)) and service:
                out[f"{service}.{found.group(1)}"] = " ".join(comment)
                comment = []
            else:
                comment = []
    return out


def named_codes(text: str) -> set[str]:
    return {code for code in CODES if re.search(rf"\b{code}\b", text)}


#: Rule codes (RuleCode, LobbyCode) an RPC comment names that are checked by a test outside the
#: conformance suite, with where: the test must name the code (``RULE_CODE_X`` / ``LOBBY_CODE_X``,
#: or the code name a RuleViolation carries).
RULES_ELSEWHERE: dict[str, dict[str, str]] = {
    "LobbyService.CreateTable": {"TOO_MANY_OPEN": "tests/service/lobby/test_lobby_open_caps.py::"
                                                  "test_a_player_holds_at_most_five_open_tables"},
    "LobbyService.JoinTable": {"TOO_MANY_OPEN": "tests/service/lobby/test_lobby_open_caps.py::"
                                                "test_a_player_holds_at_most_five_open_tables"},
    "TournamentService.CreateTournament": {
        "TOO_MANY_OPEN": "tests/service/lobby/test_lobby_open_caps.py::"
                         "test_a_player_creates_at_most_five_unfinished_tournaments"},
    "LobbyService.StartTable": {"NO_CAPACITY": "tests/service/lobby/test_lobby_service.py::"
                                               "test_stale_or_refusing_servers_get_nothing"},
    "MatchControlService.AbortMatch": {"GAME_OVER": "tests/service/match/test_match_abort.py::"
                                                    "test_abort_unknown_started_and_finished_matches"},
    "MatchService.Define": {"DECISION_PENDING": "tests/service/match/test_pending_play_oracles.py::"
                                                "test_define_and_hindsight_wait_for_the_decision"},
    "MatchService.Hindsight": {
        "DECISION_PENDING": "tests/service/match/test_pending_play_oracles.py::"
                            "test_define_and_hindsight_wait_for_the_decision",
        "FEATURE_UNAVAILABLE": "tests/service/match/test_rule_violations.py::"
                               "test_rule_violation_carries_its_fields"},
    "MatchService.PreviewPlay": {"FEATURE_UNAVAILABLE": "tests/service/match/test_match_clouds.py::"
                                                        "test_no_answer_of_any_rpc_spells_what_lies_under_a_cloud"},
    "MatchService.LeaveMatch": {"SEAT_INACTIVE": "tests/service/match/test_rule_violations.py::"
                                                 "test_rule_violation_carries_its_fields"},
    "MatchService.SubmitTurn": {code: "tests/service/match/test_rule_violations.py::"
                                      "test_rule_violation_carries_its_fields"
                                for code in ("DECISION_PENDING", "EXCHANGE_LIMIT", "FIRST_MOVE_OFF_START",
                                             "GAME_OVER", "GAP", "NOT_CONNECTED", "NOT_IN_LINE",
                                             "WORD_NOT_IN_LEXICON")},
}
RULE_CODES = sorted(({n.removeprefix("RULE_CODE_") for n in errors_pb2.RuleCode.keys()}  # noqa: SIM118
                     | {n.removeprefix("LOBBY_CODE_") for n in errors_pb2.LobbyCode.keys()})  # noqa: SIM118
                    - {"UNSPECIFIED"})


def named_rules(text: str) -> set[str]:
    return {code for code in RULE_CODES if re.search(rf"\b{code}\b", text)}


def test_every_rule_code_an_rpc_comment_names_is_checked() -> None:
    """The self-check beyond status codes: every RuleCode / LobbyCode an RPC comment names is named
    by one of the RPC's promises (which assert it) or checked by the test RULES_ELSEWHERE names."""
    unchecked = {}
    for rpc, comment in rpc_comments().items():
        promised = set().union(*(named_rules(text) for text in PROMISES.get(rpc, {})))
        left = named_rules(comment) - promised - RULES_ELSEWHERE.get(rpc, {}).keys()
        if left:
            unchecked[rpc] = sorted(left)
    assert not unchecked, f"rule codes named in RPC comments that nothing checks: {unchecked}"
    for rpc, where in RULES_ELSEWHERE.items():
        for code, test in where.items():
            path, _, name = test.partition("::")
            text = (ROOT / path).read_text(encoding="utf-8")
            assert re.search(rf"def {name}\(", text), test
            assert re.search(rf"\b(RULE_CODE_|LOBBY_CODE_)?{code}\b", text), f"{test} never names {code}"
            assert code in named_rules(rpc_comments()[rpc]), f"{rpc} does not name {code}"


def test_every_rpc_of_the_contract_has_promises() -> None:
    missing = contract_rpcs() - PROMISES.keys()
    assert not missing, f"RPCs without conformance promises: {sorted(missing)}"
    unknown = PROMISES.keys() - contract_rpcs()
    assert not unknown, f"promises for RPCs the contract does not declare: {sorted(unknown)}"
    assert rpc_comments().keys() == contract_rpcs()


def test_every_status_code_an_rpc_comment_names_is_checked() -> None:
    unchecked = {}
    for rpc, comment in rpc_comments().items():
        promised = set().union(*(named_codes(text) for text in PROMISES.get(rpc, {})))
        left = named_codes(comment) - promised - ELSEWHERE.get(rpc, {}).keys()
        if left != NOT_YET_CHECKED.get(rpc, {}).keys():
            unchecked[rpc] = sorted(left)
    assert not unchecked, f"status codes named in RPC comments that nothing checks: {unchecked}"
    for rpc, where in ELSEWHERE.items():
        for code, test in where.items():
            path, _, name = test.partition("::")
            assert re.search(rf"def {name}\(", (ROOT / path).read_text(encoding="utf-8")), test
            assert code in named_codes(rpc_comments()[rpc]), f"{rpc} does not name {code}"


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(("rpc", "text"), CASES, ids=[f"{rpc}: {text[:60]}" for rpc, text in CASES])
async def test_the_contract_keeps_its_promise(world: World, rpc: str, text: str) -> None:
    await PROMISES[rpc][text](world)
