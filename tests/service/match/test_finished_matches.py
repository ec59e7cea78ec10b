"""Finished matches beyond ``MatchManager.FINISHED_KEPT`` leave the server's memory once nobody
follows them; a later call about one loads it again from the log and answers as before."""

from __future__ import annotations

import uuid

from match_harness import Harness

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m


async def test_an_old_finished_match_is_forgotten_and_read_again_from_its_log(harness: Harness) -> None:
    srv = await harness.start()
    srv.manager.FINISHED_KEPT = 1  # type: ignore[misc]
    alice = harness.player(srv, "alice")
    first, second = await harness.create(srv), await harness.create(srv)
    views = {}
    for mid in (first, second):
        view = await alice.view(mid)
        await alice.stub.SubmitTurn(m.SubmitTurnRequest(
            match_id=mid, expected_seq=view.last_seq, request_id=uuid.uuid4().hex,
            move=c.Move(resign=c.ResignMove())), metadata=alice.md)
        views[mid] = await alice.view(mid)
        assert views[mid].status == m.MATCH_STATUS_FINISHED
    # The second match finished: the first, older than the one kept, is gone from memory...
    assert first not in srv.manager.matches and second in srv.manager.matches
    # ... and answers from its log as it did from memory.
    again = await alice.view(first)
    assert again == views[first]
    assert first in srv.manager.matches
