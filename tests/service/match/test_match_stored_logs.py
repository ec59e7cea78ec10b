"""Logs written by earlier versions of the match server still replay: every fixture under
``stored_logs/`` (real matches dumped row for row by ``stored_logs/make_logs.py`` when that
version was current: bots of every family, a human seat that chats, passes and resigns) is put
into a fresh database of today's schema, and today's server serves it as it was served then — the
same seq, status, scores and tiles — and lists its whole log."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from match_harness import Harness
from sqlmodel import Session
from stored_logs.make_logs import expected

from wordarena.services.match.models import EventRow, MatchRow, RequestRow
from wordarena.v1 import match_pb2 as m

# the store is what this proves: on SQLite and PostgreSQL (tests/conftest.py)
pytestmark = pytest.mark.database

LOGS = sorted((Path(__file__).parent / "stored_logs").glob("*.json"))


def _fields(d: dict[str, Any]) -> dict[str, Any]:
    return {k: base64.b64decode(v["b64"]) if isinstance(v, dict) and "b64" in v else v for k, v in d.items()}


@pytest.mark.parametrize("path", LOGS, ids=[p.stem for p in LOGS])
async def test_a_log_written_by_an_earlier_version_replays(harness: Harness, path: Path) -> None:
    dump = json.loads(path.read_text())
    srv = await harness.start()
    with Session(srv.db.engine) as s:
        for match in dump["matches"]:
            s.add(MatchRow(**_fields(match["match"])))
            s.flush()
            s.add_all(EventRow(**_fields(e)) for e in match["events"])
            s.add_all(RequestRow(**_fields(r)) for r in match["requests"])
        s.commit()
    alice = harness.player(srv, "alice")
    assert len(dump["matches"]) >= 5
    for match in dump["matches"]:
        mid = match["match"]["id"]
        view = await alice.view(mid)
        assert expected(view) == match["expect"], mid
        assert view.last_seq >= 5, mid  # a real game, not an empty log
        stream = alice.stub.StreamMatch(m.StreamMatchRequest(match_id=mid, after_seq=0), metadata=alice.md)
        seqs = [msg.event.seq async for msg in stream if not msg.event.HasField("heartbeat")]
        # the whole log, in order (the only chat is alice's, and a seat that resigned is shown none)
        shown = {e["seq"] for e in match["events"] if e["kind"] != "chat"}
        assert seqs == sorted(shown) and seqs[-1] == view.last_seq, mid
