"""A client that opens StreamMatch and never reads (finding 9): once its connection's buffers are
full and ``--stream-queue`` events wait for it, the server ends its stream with RESOURCE_EXHAUSTED
(StreamCutOff) at once, while it still reads nothing; the other player's stream and turns go on.
The reader's channel keeps gRPC's smallest flow-control window (no BDP probing), so its buffers
fill after a few hundred chat messages rather than thousands."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from match_harness import Harness, Player, pass_move
from metric_samples import counted

from wordarena.services.common.errors import detail
from wordarena.services.common.metrics import GRPC_SENT
from wordarena.services.match import metrics
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m


async def test_a_reader_that_never_reads_is_cut_off_and_the_others_play_on(harness: Harness) -> None:
    srv = await harness.start(stream_queue=16, chat_rate=1e6, chat_burst=10000, chat_per_match=10000)
    mid = await harness.create(srv)
    alice = harness.player(srv, "alice")
    ch = grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}", options=[("grpc.http2.bdp_probe", 0)])
    harness.channels.append(ch)
    bob = Player(ch, harness.keys.issue("bob", "Bob", 3600), "bob")
    rt = srv.manager.matches[mid]
    stalled = bob.stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=bob.md)
    await stalled.initial_metadata()
    while not rt.subscribers:
        await asyncio.sleep(0.01)
    (bobs,) = rt.subscribers
    # alice reads her own stream as any client does
    watching = alice.stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=alice.md)
    cutoffs = counted(metrics.STREAM_CUTOFFS)
    stream_sent = {"grpc_type": "server_stream", "grpc_service": "wordarena.v1.MatchService",
                   "grpc_method": "StreamMatch"}
    sent_before = counted(GRPC_SENT, **stream_sent)
    sent = 0
    while bobs in rt.subscribers and sent < 5000:
        await alice.stub.SendChat(
            m.SendChatRequest(match_id=mid, request_id=f"c{sent}", text="x" * 499), metadata=alice.md
        )
        sent += 1
    assert bobs not in rt.subscribers, "the stalled reader was never cut off"
    assert counted(metrics.STREAM_CUTOFFS) == cutoffs + 1
    # alice is unaffected: her stream has every chat, and her turn goes through
    seen = 0
    while seen < sent:
        msg = await asyncio.wait_for(watching.read(), 10)
        seen += msg.event.HasField("chat")
    assert counted(GRPC_SENT, **stream_sent) >= sent_before + seen  # every message written is counted
    view = await alice.view(mid)
    turn = await alice.submit(mid, pass_move(), view.last_seq)
    assert turn.events[0].seq == view.last_seq + 1
    # bob, reading at last, gets what was sent before the cut-off, then the status
    last = 0
    with pytest.raises(grpc.aio.AioRpcError) as got:
        while True:
            msg = await asyncio.wait_for(stalled.read(), 10)
            assert msg is not grpc.aio.EOF
            last = msg.event.seq
    err = got.value
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert detail(err, e.StreamCutOff).last_delivered_seq == last
    watching.cancel()
