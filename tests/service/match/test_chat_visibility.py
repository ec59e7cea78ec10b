"""Who reads the chat: common.proto's "not shown to inactive players" and ListLog's
CHAT_UNAVAILABLE for inactive players, through real gRPC on loopback."""

from __future__ import annotations

import grpc
import pytest
from match_harness import Harness, Player, pass_move

from wordarena.services.common.errors import detail
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m


async def _until_heartbeat(p: Player, mid: str, after_seq: int = 0, *, then: object = None) -> list[c.Event]:
    """The events a stream yields up to its first heartbeat (after ``then``, an awaitable run once
    the backlog is read, if given)."""
    out: list[c.Event] = []
    call = p.stub.StreamMatch(m.StreamMatchRequest(match_id=mid, after_seq=after_seq), metadata=p.md)
    try:
        while True:
            msg = await call.read()
            if msg.event.HasField("heartbeat"):
                if then is None:
                    return out
                await then  # type: ignore[misc]
                then = None
                continue
            out.append(msg.event)
    finally:
        call.cancel()


async def test_a_player_who_left_sees_no_chat_on_the_stream_and_cannot_list_it(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="wordtiles", players=("alice", "bob", "carol"))
    alice, bob, carol = (harness.player(srv, p) for p in ("alice", "bob", "carol"))
    await alice.stub.SendChat(
        m.SendChatRequest(match_id=mid, request_id="c1", text="before"), metadata=alice.md
    )
    await bob.stub.LeaveMatch(m.LeaveMatchRequest(match_id=mid, request_id="bye"), metadata=bob.md)
    await alice.stub.SendChat(
        m.SendChatRequest(match_id=mid, request_id="c2", text="after"), metadata=alice.md
    )

    async def more() -> None:  # live: a chat, then a turn
        await alice.stub.SendChat(
            m.SendChatRequest(match_id=mid, request_id="c3", text="live"), metadata=alice.md
        )
        view = await alice.view(mid)
        await alice.submit(mid, pass_move(), view.last_seq)

    seen_by_bob = await _until_heartbeat(bob, mid, then=more())
    assert not [ev for ev in seen_by_bob if ev.HasField("chat")]
    assert seen_by_bob[-1].HasField("turn_passed")  # the game goes on for him to watch, with seq gaps
    seen_by_carol = await _until_heartbeat(carol, mid)
    assert [ev.chat.text for ev in seen_by_carol if ev.HasField("chat")] == ["before", "after", "live"]

    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await bob.stub.ListLog(m.ListLogRequest(match_id=mid), metadata=bob.md)
    assert exc.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert detail(exc.value, e.RuleViolation).code == e.RULE_CODE_CHAT_UNAVAILABLE
    log = await carol.stub.ListLog(
        m.ListLogRequest(match_id=mid, channel=m.LOG_CHANNEL_CHAT), metadata=carol.md
    )
    assert [ev.chat.text for ev in log.events] == ["live", "after", "before"]
