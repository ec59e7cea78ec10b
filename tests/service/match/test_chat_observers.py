"""The observers' channel (match.proto, SendChat), through real gRPC on loopback: a spectator's
chat reaches the other spectators and never a player's stream or log while the match runs;
players read it once the match is over; the players' chat reaches everyone; the chat limits
apply to spectators as to players."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest
from fake_clock import FakeClock
from google.rpc import error_details_pb2
from match_harness import Harness, Player, pass_move, violation_of

from wordarena.services.common.errors import detail
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m


async def _chat(p: Player, mid: str, text: str) -> m.SendChatResponse:
    return await p.stub.SendChat(m.SendChatRequest(match_id=mid, request_id=uuid.uuid4().hex, text=text),
                                 metadata=p.md)


async def _until_heartbeat(p: Player, mid: str, after_seq: int = 0, until: str = "") -> list[c.Event]:
    """The events a stream yields up to its first heartbeat (with ``until``: up to the chat with
    that text, heartbeats skipped), or to its end."""
    out: list[c.Event] = []
    request = m.StreamMatchRequest(match_id=mid, after_seq=after_seq)
    async for msg in p.stub.StreamMatch(request, metadata=p.md):
        if msg.event.HasField("heartbeat"):
            if until:
                continue
            break
        out.append(msg.event)
        if until and msg.event.chat.text == until:
            break
    return out


def _chats(events: list[c.Event]) -> list[tuple[str, bool]]:
    return [(ev.chat.text, ev.chat.observers) for ev in events if ev.HasField("chat")]


async def _log(p: Player, mid: str) -> list[tuple[str, bool]]:
    page = await p.stub.ListLog(m.ListLogRequest(match_id=mid, channel=m.LOG_CHANNEL_CHAT), metadata=p.md)
    return [(ev.chat.text, ev.chat.observers) for ev in page.events]


async def test_spectators_chat_among_themselves_and_players_never_see_it_during_the_game(
        harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, spectators_allowed=True)
    alice, bob, carol, dave = (harness.player(srv, p) for p in ("alice", "bob", "carol", "dave"))
    # Streams opened before the chat: the live path.
    live = {p.player_id: asyncio.create_task(_until_heartbeat(p, mid, until="good luck"))
            for p in (alice, bob, dave)}
    await asyncio.sleep(0.1)
    sent = await _chat(carol, mid, "she should play QI")
    assert sent.event.chat.observers and not sent.event.chat.HasField("seat")
    assert sent.event.chat.sender.display_name == "Carol"
    await _chat(alice, mid, "good luck")
    seen = {k: _chats(await asyncio.wait_for(t, 10)) for k, t in live.items()}
    assert seen["dave"] == [("she should play QI", True), ("good luck", False)]
    assert seen["alice"] == seen["bob"] == [("good luck", False)]
    # Streams from the start (the backlog path) and ListLog agree.
    assert _chats(await _until_heartbeat(bob, mid)) == [("good luck", False)]
    assert _chats(await _until_heartbeat(dave, mid)) == [("she should play QI", True), ("good luck", False)]
    assert await _log(alice, mid) == [("good luck", False)]
    assert await _log(dave, mid) == [("good luck", False), ("she should play QI", True)]
    # The observers' chat never moved the game: a turn at the seq read before it is not stale.
    view = await alice.view(mid)
    assert view.game_seq == 1
    await alice.submit(mid, pass_move(), 1)

    # Once the match is over the players read it too; nobody chats any more.
    await bob.submit(mid, c.Move(resign=c.ResignMove()), (await bob.view(mid)).last_seq)
    assert await _log(alice, mid) == [("good luck", False), ("she should play QI", True)]
    assert ("she should play QI", True) in _chats(await _until_heartbeat(alice, mid))
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await _chat(carol, mid, "gg")
    assert exc.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert violation_of(exc.value).code == e.RULE_CODE_CHAT_UNAVAILABLE


async def test_a_spectator_is_rate_limited_like_a_player(harness: Harness,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock().install(monkeypatch)  # the bucket refills as the test moves time on
    srv = await harness.start(chat_rate=0.5, chat_burst=2, chat_per_match=3)
    mid = await harness.create(srv, spectators_allowed=True)
    carol = harness.player(srv, "carol")
    for k in range(2):
        await _chat(carol, mid, f"m{k}")
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await _chat(carol, mid, "too fast")
    assert exc.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    delay = detail(exc.value, error_details_pb2.RetryInfo).retry_delay.ToTimedelta().total_seconds()
    with pytest.raises(grpc.aio.AioRpcError) as exc:  # not a moment before the delay it named
        await clock.advance(delay - 0.05)
        await _chat(carol, mid, "still too fast")
    assert exc.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    await clock.advance(0.1)
    await _chat(carol, mid, "m2")
    await clock.advance(2.1)  # the bucket has a message again: what refuses the next is the cap
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await _chat(carol, mid, "over the cap")
    assert exc.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert detail(exc.value, error_details_pb2.QuotaFailure) is not None


async def test_no_spectator_chat_where_the_match_has_no_spectators(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    carol = harness.player(srv, "carol")
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await _chat(carol, mid, "hello")
    assert exc.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert violation_of(exc.value).code == e.RULE_CODE_NOT_YOUR_SEAT
