"""The lobby's fair-play tests, run over gRPC-Web (issue 39: every limit holds on the browser path
exactly as on native gRPC; the fair-play tests run over it too): the tests of
``tests/service/lobby`` named below, unchanged, with every player's LobbyService and
TournamentService calls sent through the lobby's web port (``web_lobby_harness``); each checks
that the calls it depends on went over the web. The per-address limits must see a browser's
address as the native port sees a client's: the TCP peer (127.0.0.1 here; ::1 for the second
address of the sign-in tests), whatever headers the request carries."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import test_lobby_open_caps as open_caps
import test_lobby_oversized_lists as oversized_lists
import test_lobby_service as lobby_service
import test_lobby_sign_in_abuse as sign_in_abuse
import test_message_limit as message_limit
import test_tournament_consent as consent
import test_tournament_no_show as no_show
from grpcweb import GrpcWebError, unary
from lobby_harness import LobbyEnv
from test_tournament_no_show import SkewedClock, clock  # noqa: F401 (the fixture)
from web_lobby_harness import WebLobby

from wordarena.services.lobby.options import LobbyOptions
from wordarena.v1 import lobby_pb2, lobby_pb2_grpc


@pytest.fixture
async def web() -> AsyncIterator[WebLobby]:
    w = WebLobby()
    try:
        yield w
    finally:
        await w.close()


@pytest.fixture
async def web_env(web: WebLobby, database_url: str, tmp_path: Path) -> AsyncIterator[LobbyEnv]:
    """``lobby_harness.env`` over the web port."""
    env = await web.start_lobby(database_url, tmp_path)
    yield env
    await web.stop_lobby(env)


@pytest.fixture
async def web_dual(web: WebLobby, database_url: str,
                   tmp_path: Path) -> AsyncIterator[tuple[LobbyEnv, lobby_pb2_grpc.LobbyServiceStub]]:
    """``test_lobby_sign_in_abuse.dual`` over the web port: a lobby whose web port takes IPv4 and
    IPv6, its env's stub from 127.0.0.1 and a stub from ::1 (two client addresses)."""
    env = await web.start_lobby(database_url, tmp_path, listen="[::]:0",
                                guest_sign_in_burst=LobbyOptions().guest_sign_in_burst,
                                address_failure_burst=LobbyOptions().address_failure_burst)
    yield env, lobby_pb2_grpc.LobbyServiceStub(web.channel(env.server.web_port, "[::1]"))  # type: ignore[attr-defined]
    await web.stop_lobby(env)


# -- the client address a per-address limit sees ------------------------------------------------


async def test_a_forwarded_for_header_does_not_change_a_browsers_address(
    web: WebLobby, database_url: str, tmp_path: Path
) -> None:
    """A browser's address is its TCP peer, as a native client's is: a guest flood from one
    address that names another in X-Forwarded-For on every call (each a new one) is throttled
    after the burst all the same, as it is natively (where the header is plain metadata)."""
    env = await web.start_lobby(database_url, tmp_path, guest_sign_in_burst=3)
    base = f"http://127.0.0.1:{env.server.web_port}"  # type: ignore[attr-defined]
    path = "/wordarena.v1.LobbyService/SignInGuest"
    try:
        codes = []
        for k in range(5):
            req = lobby_pb2.SignInGuestRequest(display_name=f"Forwarded{k}")
            try:
                await unary(web.client, base, path, req, lobby_pb2.SignInGuestResponse,
                            **{"x-forwarded-for": f"203.0.113.{k + 1}"})
                codes.append(grpc.StatusCode.OK.value[0])
            except GrpcWebError as err:
                codes.append(err.code)
        exhausted = grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
        assert codes == [0, 0, 0, exhausted, exhausted]
        native = lobby_pb2_grpc.LobbyServiceStub(env.channel.native)  # type: ignore[attr-defined]
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await native.SignInGuest(lobby_pb2.SignInGuestRequest(display_name="Native"),
                                     metadata=(("x-forwarded-for", "198.51.100.7"),))
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # one address, both ports
    finally:
        await web.stop_lobby(env)


# -- tournaments: nobody plays an event they did not agree to (test_tournament_consent) -----------


@pytest.fixture
def web_servers(web: WebLobby, monkeypatch: pytest.MonkeyPatch) -> WebLobby:
    """The tournament tests' ``servers`` (a lobby and a match server) with the lobby's web port."""
    for module in (consent, no_show):
        monkeypatch.setattr(module, "servers", web.servers)
    return web


async def test_a_director_cannot_enter_another_player_into_a_rated_event_over_grpc_web(
    web_servers: WebLobby, database_url: str, tmp_path: Path
) -> None:
    await consent.test_a_director_cannot_enter_another_player_into_a_rated_event(database_url, tmp_path)
    web_servers.over_the_web("SignInGuest", "CreateTournament", "AddEntrant", "Register", "StartTournament",
                             "GetTournament", "EndTournament", "GetPlayerRecord")


async def test_an_invited_player_sees_the_invitation_and_accepts_it_over_grpc_web(
    web_servers: WebLobby, database_url: str, tmp_path: Path
) -> None:
    await consent.test_an_invited_player_sees_the_invitation_and_accepts_it(database_url, tmp_path)
    web_servers.over_the_web("AddEntrant", "ListTournaments", "CheckIn", "Register", "StartTournament",
                             "GetTournament")


async def test_an_invitation_accepted_while_the_event_runs_pairs_from_the_next_round_over_grpc_web(
    web_servers: WebLobby, database_url: str, tmp_path: Path
) -> None:
    await consent.test_an_invitation_accepted_while_the_event_runs_pairs_from_the_next_round(
        database_url, tmp_path)
    web_servers.over_the_web("AddEntrant", "PairRound", "Register", "SignInGuest")


async def test_an_invited_player_declines_and_a_new_invitation_asks_again_over_grpc_web(
    web_servers: WebLobby, database_url: str, tmp_path: Path
) -> None:
    await consent.test_an_invited_player_declines_and_a_new_invitation_asks_again(database_url, tmp_path)
    web_servers.over_the_web("AddEntrant", "Unregister", "GetTournament")


async def test_a_director_enters_themselves_without_an_invitation_over_grpc_web(
    web_servers: WebLobby, database_url: str, tmp_path: Path
) -> None:
    await consent.test_a_director_enters_themselves_without_an_invitation(database_url, tmp_path)
    web_servers.over_the_web("CreateTournament", "AddEntrant")


async def test_a_player_who_does_not_show_forfeits_by_the_bye_spread_over_grpc_web(
    web_servers: WebLobby, database_url: str, tmp_path: Path, clock: SkewedClock  # noqa: F811
) -> None:
    await no_show.test_a_player_who_does_not_show_forfeits_by_the_bye_spread(database_url, tmp_path, clock)
    web_servers.over_the_web("CreateTournament", "Register", "StartTournament", "GetTournament",
                             "WatchTournament", "GetPlayerRecord")


# -- open caps: no flood hides the lobby (test_lobby_open_caps) -------------------------------------


async def test_a_player_holds_at_most_five_open_tables_over_grpc_web(
    web: WebLobby, web_env: LobbyEnv
) -> None:
    await open_caps.test_a_player_holds_at_most_five_open_tables(web_env)
    web.over_the_web("SignInGuest", "CreateTable", "JoinTable", "ListTables", "LeaveTable")


async def test_a_player_creates_at_most_five_unfinished_tournaments_over_grpc_web(
    web: WebLobby, web_env: LobbyEnv
) -> None:
    await open_caps.test_a_player_creates_at_most_five_unfinished_tournaments(web_env)
    web.over_the_web("SignInGuest", "CreateTournament", "EndTournament")


async def test_the_guests_of_one_address_share_a_cap_over_grpc_web(
    web: WebLobby, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(open_caps, "start_lobby", web.start_lobby)
    monkeypatch.setattr(open_caps, "stop_lobby", web.stop_lobby)
    await open_caps.test_the_guests_of_one_address_share_a_cap(database_url, tmp_path)
    web.over_the_web("SignInGuest", "CreateTable", "CreateTournament", "ClaimAccount")


async def test_tournaments_list_real_events_first_and_page_over_grpc_web(
    web: WebLobby, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(open_caps, "start_lobby", web.start_lobby)
    monkeypatch.setattr(open_caps, "stop_lobby", web.stop_lobby)
    await open_caps.test_tournaments_list_real_events_first_and_page(database_url, tmp_path)
    web.over_the_web("CreateTournament", "AddEntrant", "StartTournament", "Register", "ListTournaments")


# -- sign-in throttles per client address (test_lobby_sign_in_abuse, test_lobby_service) -----------


async def test_a_guest_flood_from_one_address_is_throttled_and_others_still_sign_in_over_grpc_web(
    web: WebLobby, web_dual: tuple[LobbyEnv, lobby_pb2_grpc.LobbyServiceStub]
) -> None:
    await sign_in_abuse.test_a_guest_flood_from_one_address_is_throttled_and_others_still_sign_in(web_dual)
    web.from_host("127.0.0.1", "SignInGuest")
    web.from_host("::1", "SignInGuest")


async def test_an_attacker_failing_passwords_does_not_lock_the_owner_out_over_grpc_web(
    web: WebLobby, web_dual: tuple[LobbyEnv, lobby_pb2_grpc.LobbyServiceStub]
) -> None:
    await sign_in_abuse.test_an_attacker_failing_passwords_does_not_lock_the_owner_out(web_dual)
    web.from_host("127.0.0.1", "SignIn")
    web.from_host("::1", "SignInGuest", "ClaimAccount", "SignIn")


async def test_failed_sign_ins_back_off_exponentially_over_grpc_web(
    web: WebLobby, web_dual: tuple[LobbyEnv, lobby_pb2_grpc.LobbyServiceStub]
) -> None:
    await sign_in_abuse.test_failed_sign_ins_back_off_exponentially(web_dual)
    web.over_the_web("SignIn")


async def test_a_guest_token_is_revoked_when_the_guest_claims_the_account_over_grpc_web(
    web: WebLobby, web_dual: tuple[LobbyEnv, lobby_pb2_grpc.LobbyServiceStub]
) -> None:
    await sign_in_abuse.test_a_guest_token_is_revoked_when_the_guest_claims_the_account(web_dual)
    web.from_host("127.0.0.1", "SignInGuest", "GetMe", "ClaimAccount", "RefreshToken")
    web.from_host("::1", "GetMe", "RefreshToken")


async def test_guessing_many_names_from_one_address_is_throttled_over_grpc_web(
    web: WebLobby, web_dual: tuple[LobbyEnv, lobby_pb2_grpc.LobbyServiceStub]
) -> None:
    await sign_in_abuse.test_guessing_many_names_from_one_address_is_throttled(web_dual)
    web.from_host("127.0.0.1", "SignIn")
    web.from_host("::1", "SignInGuest", "ClaimAccount", "SignIn")


async def test_failed_sign_ins_hold_the_name_back_for_the_backoff_over_grpc_web(
    web: WebLobby, web_env: LobbyEnv
) -> None:
    await lobby_service.test_failed_sign_ins_hold_the_name_back_for_the_backoff(web_env)
    web.over_the_web("SignIn")


# -- the request size limit (test_message_limit) ---------------------------------------------------


async def test_a_request_over_one_mib_is_refused_for_its_size_over_grpc_web(
    web: WebLobby, web_env: LobbyEnv
) -> None:
    await message_limit.test_a_request_over_one_mib_is_refused_for_its_size(web_env)
    web.over_the_web("SignInGuest")


async def test_a_request_under_one_mib_reaches_the_rules_over_grpc_web(
    web: WebLobby, web_env: LobbyEnv
) -> None:
    await message_limit.test_a_request_under_one_mib_reaches_the_rules(web_env)
    web.over_the_web("SignInGuest")


# -- oversized lists are refused by their length (test_lobby_oversized_lists) ---------------------


#: The HTTP transport's own code (client and server share this process): it reads a 600 KB body
#: in as many pieces as the socket hands it, a count that moves with the machine's load and says
#: nothing of the lobby's work, so the web re-run counts every call but theirs.
_TRANSPORT = ("/httpx/", "/httpcore/", "/h11/", "/uvicorn/", "/anyio/", "/asyncio/", "/socket.py",
              "/selectors.py", "/starlette/")


async def _refused_counting_the_lobby(call: Any) -> tuple[grpc.aio.AioRpcError, int]:
    """``oversized_lists._refused``, the transport's calls left out of the count."""
    calls = 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        if event in ("call", "c_call") and not any(t in frame.f_code.co_filename for t in _TRANSPORT):
            calls += 1

    sys.setprofile(count)
    try:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call
    finally:
        sys.setprofile(None)
    return refused.value, calls


async def test_a_table_with_a_hundred_thousand_bots_is_refused_without_reading_them_over_grpc_web(
    web: WebLobby, web_env: LobbyEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(oversized_lists, "_refused", _refused_counting_the_lobby)
    await oversized_lists.test_a_table_with_a_hundred_thousand_bots_is_refused_without_reading_them(web_env)
    web.over_the_web("SignInGuest", "CreateTable")


async def test_a_table_filter_with_a_hundred_thousand_states_is_refused_naming_it_over_grpc_web(
    web: WebLobby, web_env: LobbyEnv
) -> None:
    await oversized_lists.test_a_table_filter_with_a_hundred_thousand_states_is_refused_naming_it(web_env)
    web.over_the_web("SignInGuest", "ListTables")
