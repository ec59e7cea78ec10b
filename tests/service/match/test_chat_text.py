"""match.proto's SendChatRequest.text: what a chat may carry to the other players' screens,
refused with INVALID_ARGUMENT naming ``text``, and what is kept."""

from __future__ import annotations

import uuid

import grpc
import pytest
from google.rpc import error_details_pb2
from match_harness import Harness

from wordarena.services.common.errors import details_of
from wordarena.v1 import match_pb2 as m

HOSTILE = ["gg \x1b]52;c;aGk=\x07", "\x1b[2J", "\u202eolleh", "a\u200bb", "\u3164\u3164", " \ufe0f "]


async def test_hostile_or_invisible_chat_is_refused_naming_text(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    for text in HOSTILE:
        with pytest.raises(grpc.aio.AioRpcError) as ei:
            await alice.stub.SendChat(m.SendChatRequest(match_id=mid, text=text, request_id=uuid.uuid4().hex),
                                      metadata=alice.md)
        assert ei.value.code() == grpc.StatusCode.INVALID_ARGUMENT, text
        fields = [v.field for d in details_of(ei.value) if isinstance(d, error_details_pb2.BadRequest)
                  for v in d.field_violations]
        assert fields == ["text"], (text, fields)
    kept = await alice.stub.SendChat(m.SendChatRequest(match_id=mid, text=" می\u200cخواهم ",
                                                       request_id=uuid.uuid4().hex), metadata=alice.md)
    assert kept.event.chat.text == "می\u200cخواهم"
    # Bob's log holds only that one chat: nothing refused reached him.
    log = await bob.stub.ListLog(m.ListLogRequest(match_id=mid, channel=m.LOG_CHANNEL_CHAT), metadata=bob.md)
    assert [e.chat.text for e in log.events if e.WhichOneof("kind") == "chat"] == ["می\u200cخواهم"]
