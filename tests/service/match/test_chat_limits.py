"""SendChat's limits, through real gRPC on loopback: a per-player rate (with a burst) and a
per-match cap answered RESOURCE_EXHAUSTED, never touching the game; who may not chat
(CHAT_UNAVAILABLE: players who resigned or left, finished matches)."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_helpers import refused
from match_harness import Harness, Player, pass_move

from wordarena.services.common.errors import detail
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m


async def _chat(p: Player, mid: str, text: str = "hi", request_id: str = "") -> m.SendChatResponse:
    return await p.stub.SendChat(m.SendChatRequest(match_id=mid, request_id=request_id or uuid.uuid4().hex,
                                                   text=text), metadata=p.md)


async def test_chat_over_the_burst_is_resource_exhausted_with_a_retry_delay(harness: Harness) -> None:
    srv = await harness.start(chat_rate=0.5, chat_burst=3)
    mid = await harness.create(srv)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    before = await alice.view(mid)
    for k in range(3):
        await _chat(bob, mid, f"m{k}")
    err = await refused(_chat(bob, mid))
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    retry = detail(err, error_details_pb2.RetryInfo)
    assert retry is not None and 0 < retry.retry_delay.ToTimedelta().total_seconds() <= 2.0
    # The limit is per player: Alice still chats, and the game is not affected.
    await _chat(alice, mid)
    after = await alice.view(mid)
    assert after.game_seq == before.game_seq and after.to_move_seat == before.to_move_seat
    r = await alice.submit(mid, pass_move(), before.last_seq)
    assert r.events[0].HasField("turn_passed")


async def test_chat_refills_at_the_rate(harness: Harness) -> None:
    srv = await harness.start(chat_rate=20.0, chat_burst=1)
    mid = await harness.create(srv)
    bob = harness.player(srv, "bob")
    await _chat(bob, mid)
    err = await refused(_chat(bob, mid))
    delay = detail(err, error_details_pb2.RetryInfo).retry_delay.ToTimedelta().total_seconds()
    await asyncio.sleep(delay + 0.02)
    await _chat(bob, mid)


async def test_a_retried_chat_is_answered_again_and_not_counted(harness: Harness) -> None:
    srv = await harness.start(chat_rate=0.1, chat_burst=1)
    mid = await harness.create(srv)
    bob = harness.player(srv, "bob")
    first = await _chat(bob, mid, request_id="same")
    again = await _chat(bob, mid, request_id="same")
    assert again == first


async def test_chat_beyond_the_per_match_cap_is_resource_exhausted_without_retry(harness: Harness) -> None:
    srv = await harness.start(chat_rate=1000.0, chat_burst=1000, chat_per_match=4)
    mid = await harness.create(srv)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    for k in range(4):
        await _chat(bob, mid, f"m{k}")
    err = await refused(_chat(bob, mid))
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert detail(err, error_details_pb2.RetryInfo) is None
    quota = detail(err, error_details_pb2.QuotaFailure)
    assert quota is not None and quota.violations[0].subject
    await _chat(alice, mid)  # per player


@pytest.mark.database  # restarts on its store
async def test_the_chat_cap_survives_a_restart(harness: Harness) -> None:
    srv = await harness.start(chat_per_match=2)
    mid = await harness.create(srv)
    for k in range(2):
        await _chat(harness.player(srv, "bob"), mid, f"m{k}")
    await srv.stop(0.5)
    srv2 = await harness.start(chat_per_match=2)
    err = await refused(_chat(harness.player(srv2, "bob"), mid))
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


async def _chat_unavailable(p: Player, mid: str) -> None:
    err = await refused(_chat(p, mid))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    v = detail(err, e.RuleViolation)
    assert v.code == e.RULE_CODE_CHAT_UNAVAILABLE and v.code_name == "CHAT_UNAVAILABLE" and v.message


async def test_a_player_who_left_cannot_chat_the_others_can(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="wordtiles", players=("alice", "bob", "carol"))
    alice, bob, carol = (harness.player(srv, p) for p in ("alice", "bob", "carol"))
    await bob.stub.LeaveMatch(m.LeaveMatchRequest(match_id=mid, request_id="bye"), metadata=bob.md)
    assert (await alice.view(mid)).status == m.MATCH_STATUS_IN_PROGRESS
    await _chat_unavailable(bob, mid)
    await _chat(carol, mid)


async def test_a_player_who_resigned_cannot_chat(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="wordtiles", players=("alice", "bob", "carol"))
    alice, carol = harness.player(srv, "alice"), harness.player(srv, "carol")
    view = await alice.view(mid)
    await alice.submit(mid, c.Move(resign=c.ResignMove()), view.last_seq)
    await _chat_unavailable(alice, mid)
    await _chat(carol, mid)


async def test_nobody_chats_in_a_finished_match(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await alice.view(mid)
    await alice.submit(mid, c.Move(resign=c.ResignMove()), view.last_seq)
    assert (await bob.view(mid)).status == m.MATCH_STATUS_FINISHED
    await _chat_unavailable(bob, mid)


async def test_pass_and_play_has_no_chat(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, players=("alice", "alice"), pass_and_play=True)
    await _chat_unavailable(harness.player(srv, "alice"), mid)


async def test_the_default_limits_are_the_documented_ones(harness: Harness) -> None:
    """match.proto and docs/operations.md: 1 message a second after a burst of 5; 500 a match;
    2000 in a match's observers' channel."""
    from wordarena.services.match.main import parser

    args = parser().parse_args([])
    assert (args.chat_rate, args.chat_burst, args.chat_per_match) == (1.0, 5, 500)
    assert args.chat_observers_per_match == 2000
    srv = await harness.start()
    mid = await harness.create(srv)
    bob = harness.player(srv, "bob")
    for k in range(5):
        await _chat(bob, mid, f"m{k}")
    err = await refused(_chat(bob, mid))
    delay = detail(err, error_details_pb2.RetryInfo).retry_delay.ToTimedelta().total_seconds()
    assert 0.5 < delay <= 1.0


async def test_the_observers_channel_of_a_match_has_a_cap_of_its_own(harness: Harness) -> None:
    """Each spectator may post ``--chat-per-match`` messages, and anyone may spectate a match
    that allows it: without a cap on the observers' channel as a whole, a crowd of new guests
    could grow one match's log without bound. Past ``--chat-observers-per-match`` messages in
    all, the observers' channel takes no more (QuotaFailure, no RetryInfo); the players' chat
    goes on."""
    srv = await harness.start(chat_rate=1000.0, chat_burst=1000, chat_observers_per_match=3)
    mid = await harness.create(srv, spectators_allowed=True)
    watchers = [harness.player(srv, f"watcher{n}") for n in range(3)]
    for w in watchers:
        await _chat(w, mid, "hello from the stands")
    late = harness.player(srv, "latecomer")
    err = await refused(_chat(late, mid))
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert detail(err, error_details_pb2.RetryInfo) is None
    quota = detail(err, error_details_pb2.QuotaFailure)
    assert quota is not None and quota.violations[0].subject == f"match:{mid}:observers"
    await _chat(harness.player(srv, "alice"), mid)  # the players' chat is not the observers'
