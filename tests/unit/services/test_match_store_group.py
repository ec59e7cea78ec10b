"""Group commit of the match store: appends of different matches share a transaction, each waits
for its own commit, and a refused append never sinks the others of its group."""

from __future__ import annotations

import asyncio
import gc
import json
import time
from pathlib import Path

import pytest

from wordarena.services.common import auth
from wordarena.services.common.db import Database
from wordarena.services.match.models import MatchRow, RequestRow
from wordarena.services.match.store import ConflictError, MatchStore, StoredEvent

# the store is what this proves: on SQLite and PostgreSQL (tests/conftest.py)
pytestmark = pytest.mark.database

OWNER = "s1|127.0.0.1:1"


def _row(match_id: str) -> MatchRow:
    return MatchRow(id=match_id, ruleset_id="classic", seed="1", seats="[]", options="{}",
                    create_request=b"", owner=OWNER, lease_until=time.time() + 60, last_seq=1)


def _ev(seq: int) -> StoredEvent:
    return StoredEvent(seq, time.time(), "turn-passed", {"n": seq})


def _req(match_id: str, request_id: str, seq: int) -> RequestRow:
    return RequestRow(match_id=match_id, player_id="p", request_id=request_id, method="SubmitTurn",
                      last_seq=seq, response=b"x")


@pytest.fixture
async def store(database_url: str):  # type: ignore[no-untyped-def]
    db = Database(database_url)
    s = MatchStore(db)
    s.migrate()
    for mid in ("a", "b", "c"):
        await s.create(_row(mid), [_ev(1)])
    yield s
    db.close()


async def test_group_commits_each_and_refuses_only_the_stale(store: MatchStore) -> None:
    results = await asyncio.gather(
        store.append("a", OWNER, 1, [_ev(2)], _req("a", "r1", 2)),
        store.append("b", OWNER, 1, [_ev(2), _ev(3)], _req("b", "r1", 3)),
        store.append("c", OWNER, 5, [_ev(6)]),  # stale: the match is at 1
        store.append("c", "other|x", 1, [_ev(2)]),  # not the owner
        return_exceptions=True)
    assert results[:2] == [None, None]
    assert isinstance(results[2], ConflictError) and isinstance(results[3], ConflictError)
    a, b, c = [await store.load(m) for m in "abc"]
    assert [e.seq for e in a.events] == [1, 2] and a.row.last_seq == 2 and ("p", "r1") in a.requests
    assert [e.seq for e in b.events] == [1, 2, 3] and b.row.last_seq == 3
    assert json.loads(json.dumps(b.events[2].payload)) == {"n": 3}
    assert [e.seq for e in c.events] == [1] and c.row.last_seq == 1


async def test_integrity_error_is_isolated(store: MatchStore) -> None:
    await store.append("a", OWNER, 1, [_ev(2)], _req("a", "dup", 2))
    results = await asyncio.gather(
        store.append("a", OWNER, 2, [_ev(3)], _req("a", "dup", 3)),  # request id already stored
        store.append("b", OWNER, 1, [_ev(2)], _req("b", "dup", 2)),
        return_exceptions=True)
    assert isinstance(results[0], ConflictError) and results[1] is None
    a, b = await store.load("a"), await store.load("b")
    assert a.row.last_seq == 2 and [e.seq for e in a.events] == [1, 2]
    assert b.row.last_seq == 2 and [e.seq for e in b.events] == [1, 2]


async def test_many_concurrent_appends_share_commits(store: MatchStore) -> None:
    seqs = {"a": 1, "b": 1, "c": 1}

    async def player(mid: str) -> None:
        for _ in range(20):
            await store.append(mid, OWNER, seqs[mid], [_ev(seqs[mid] + 1)])
            seqs[mid] += 1

    await asyncio.gather(*(player(m) for m in "abc"))
    for mid in "abc":
        got = await store.load(mid)
        assert got.row.last_seq == 21 and [e.seq for e in got.events] == list(range(1, 22))


def test_verified_tokens_are_remembered_until_they_expire(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    keys = auth.load_token_keys(tmp_path)
    token = keys.issue("p1", "P", 60)
    first = keys.verify(token)
    assert keys.verify(token) is first  # from the cache
    assert keys.verify(token, kind="player").player_id == "p1"
    with pytest.raises(auth.TokenInvalidError):
        keys.verify(token, kind="service")
    calls = []
    real = auth.verify_token

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(auth, "verify_token", counting)
    keys.verify(token)
    assert calls == []  # remembered
    later = time.time() + 3600
    monkeypatch.setattr(auth.time, "time", lambda: later)
    keys.verify(token)  # past its expiry by the server's clock: verified again (jwt's clock says ok)
    assert calls == [1]


async def test_a_refused_append_whose_caller_was_cancelled_logs_no_error(store: MatchStore) -> None:
    # The server lost the match (a pause, a partition) and the caller of its next append (a bot's
    # move, a SubmitTurn past its deadline) is cancelled before the commit: the append is still
    # written and refused, and that refusal is the commit's outcome, not an asyncio error
    # ("Future exception was never retrieved") in the server's log.
    loop = asyncio.get_running_loop()
    seen: list[dict[str, object]] = []
    loop.set_exception_handler(lambda _loop, context: seen.append(context))

    async def give_up() -> None:
        caller = asyncio.ensure_future(store.append("c", "other|x", 1, [_ev(2)]))  # not the owner
        await asyncio.sleep(0)
        caller.cancel()
        await asyncio.gather(caller, return_exceptions=True)

    await give_up()
    await store.append("a", OWNER, 1, [_ev(2)])  # queued behind the refused one
    gc.collect()
    await asyncio.sleep(0)
    assert [c.get("message") for c in seen] == []
