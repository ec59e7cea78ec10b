"""Bad input, hypothesis-driven: random and mutated requests at every MatchService RPC, over real
gRPC on loopback, with valid, foreign, forged, expired and missing tokens.

For every call: the status is never INTERNAL or UNKNOWN; the server keeps serving; and a refused
request (any non-OK status) — or any call of a read-only RPC — leaves the match exactly as it was
(last seq, both racks, scores, board).
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from wordarena.engine.movegen import generate_moves
from wordarena.services.common import auth
from wordarena.services.common.config import Settings
from wordarena.services.match.main import MatchServer, start
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import control_pb2_grpc, match_pb2_grpc
from wordarena.v1 import match_pb2 as m

SERVICE_TOKEN = "fuzz-service-secret"
READ_ONLY = {"GetMatch", "StreamMatch", "PreviewPlay", "Hindsight", "WordStrength", "TileBag", "Define",
             "ListLog", "GetMatchRecord"}
RPCS: dict[str, type[Message]] = {
    "GetMatch": m.GetMatchRequest, "StreamMatch": m.StreamMatchRequest, "SubmitTurn": m.SubmitTurnRequest,
    "DecidePending": m.DecidePendingRequest, "PreviewPlay": m.PreviewPlayRequest,
    "Hindsight": m.HindsightRequest, "WordStrength": m.WordStrengthRequest, "TileBag": m.TileBagRequest,
    "Define": m.DefineRequest, "SendChat": m.SendChatRequest, "ListLog": m.ListLogRequest,
    "LeaveMatch": m.LeaveMatchRequest, "KickIdlePlayer": m.KickIdlePlayerRequest,
    "GetMatchRecord": m.GetMatchRecordRequest,
}
BAD_CODES = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)


@dataclass(repr=False)
class Env:
    """A match server in a background thread, and blocking clients."""

    server: MatchServer
    loop: asyncio.AbstractEventLoop
    channel: grpc.Channel
    keys: auth.TokenKeys
    tokens: dict[str, str] = field(default_factory=dict)
    matches: dict[str, str] = field(default_factory=dict)  # ruleset -> current match id

    @property
    def stub(self) -> match_pb2_grpc.MatchServiceStub:
        return match_pb2_grpc.MatchServiceStub(self.channel)

    def md(self, who: str) -> list[tuple[str, str]]:
        tok = self.tokens.get(who)
        return [] if tok is None else [("authorization", f"Bearer {tok}")]

    def create(self, ruleset: str) -> str:
        mid = f"fz{uuid.uuid4().hex[:10]}"
        seats = [ctl.SeatAssignment(index=i, player=c.Player(player_id=p, display_name=p.title()))
                 for i, p in enumerate(("alice", "bob"))]
        control_pb2_grpc.MatchControlServiceStub(self.channel).CreateMatch(
            ctl.CreateMatchRequest(match_id=mid, ruleset=c.RulesetRef(ruleset_id=ruleset), seats=seats,
                                   seed=11),
            metadata=[("authorization", f"Bearer {SERVICE_TOKEN}")], timeout=10)
        self.matches[ruleset] = mid
        return mid

    def runtime(self, mid: str) -> Any:
        return self.server.manager.matches[mid]

    def snapshot(self, mid: str) -> tuple[Any, ...]:
        """What a refused request must not change, as both players see it."""
        out: list[Any] = []
        for who in ("alice", "bob"):
            v = self.stub.GetMatch(m.GetMatchRequest(match_id=mid), metadata=self.md(who), timeout=10).match
            out += [v.last_seq, v.status, v.rack.SerializeToString(), tuple(s.score for s in v.seats),
                    tuple(s.status for s in v.seats), v.board.SerializeToString(), v.to_move_seat]
        return tuple(out)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    data = tmp_path_factory.mktemp("fuzz")
    ready: dict[str, Any] = {}
    started = threading.Event()
    stop: list[asyncio.Event] = []

    async def serve() -> None:
        settings_ = Settings(service="match", listen="127.0.0.1:0", data_dir=data,
                             database_url=f"sqlite:///{Path(data) / 'match.db'}", service_token=SERVICE_TOKEN,
                             shutdown_grace=0.5, server_id="fuzz", advertise_address="127.0.0.1:0",
                             extra={"heartbeat_seconds": 0.1})
        srv = await start(settings_)
        ready["server"], ready["loop"] = srv, asyncio.get_running_loop()
        stop.append(asyncio.Event())
        started.set()
        await stop[0].wait()
        await srv.stop(0.2)

    thread = threading.Thread(target=lambda: asyncio.run(serve()), daemon=True)
    thread.start()
    assert started.wait(30)
    srv: MatchServer = ready["server"]
    channel = grpc.insecure_channel(f"127.0.0.1:{srv.port}")
    keys = auth.load_token_keys(data)
    e = Env(srv, ready["loop"], channel, keys)
    alice = keys.issue("alice", "Alice", 3600)
    e.tokens = {
        "alice": alice, "bob": keys.issue("bob", "Bob", 3600), "carol": keys.issue("carol", "Carol", 3600),
        "service": keys.issue("lobby", "lobby", 3600, kind="service"),
        "expired": auth.issue_token(keys.signing_key, "alice", "Alice", 60, now=time.time() - 3600),  # type: ignore[arg-type]
        "forged": auth.issue_token(auth.generate_key_pair(), "alice", "Alice", 3600),
        "tampered": alice[:-3] + ("AAA" if not alice.endswith("AAA") else "BBB"),
        "garbage": "not.a.token",
    }
    e.create("classic")
    e.create("wordtiles")
    try:
        yield e
    finally:
        channel.close()
        ready["loop"].call_soon_threadsafe(stop[0].set)
        thread.join(10)


# --- strategies ---------------------------------------------------------------------------

INTS = st.one_of(st.integers(-3, 20), st.integers(-2**31, 2**31 - 1))
INT64 = st.one_of(st.integers(-3, 200), st.integers(-2**63, 2**63 - 1))
UINT64 = st.integers(0, 2**64 - 1)
TEXT = st.one_of(st.text(max_size=12), st.sampled_from(["", "A", "e", "?", "*", "QU", "Ñ", "ß", "a" * 65,
                                                       "\x00", " ", "LL", "🙂"]),
                 st.text(min_size=400, max_size=1200))
LETTER = st.one_of(st.sampled_from([*"AEIOUSTRNLQZ?*", "", "ae", "é", "1", "Ñ"]), st.text(max_size=3))


def _scalar(f: FieldDescriptor, data: st.DataObject, env: Env) -> Any:
    t = f.type
    if f.name == "match_id":
        ids = [*env.matches.values(), "", "nope", "x" * 65, "../etc"]
        return data.draw(st.one_of(st.sampled_from(ids), TEXT))
    if f.name == "request_id":
        return data.draw(st.one_of(st.just(uuid.uuid4().hex), TEXT))
    if f.name == "letter":
        return data.draw(LETTER)
    if f.name in ("row", "col"):
        return data.draw(st.one_of(st.integers(-2, 16), INTS))
    if t in (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SFIXED32):
        return data.draw(INTS)
    if t in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_SFIXED64):
        return data.draw(INT64)
    if t in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64):
        return data.draw(UINT64)
    if t in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32):
        return data.draw(st.integers(0, 2**32 - 1))
    if t == FieldDescriptor.TYPE_BOOL:
        return data.draw(st.booleans())
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return data.draw(st.floats(allow_nan=True, allow_infinity=True, width=32))
    if t == FieldDescriptor.TYPE_STRING:
        return data.draw(TEXT)
    if t == FieldDescriptor.TYPE_BYTES:
        return data.draw(st.binary(max_size=16))
    if t == FieldDescriptor.TYPE_ENUM:
        known = [v.number for v in f.enum_type.values]
        return data.draw(st.one_of(st.sampled_from(known), st.integers(-1, 50)))
    raise AssertionError(f"unhandled field type {t}")


def fill(msg: Message, data: st.DataObject, env: Env, depth: int = 0, p_set: float = 0.5) -> Message:
    """Set a random subset of ``msg``'s fields to random values (recursively)."""
    for f in msg.DESCRIPTOR.fields:
        if not data.draw(st.floats(0, 1)) < p_set:
            continue
        repeated = bool(f.is_repeated)
        if f.type == FieldDescriptor.TYPE_MESSAGE:
            if depth >= 3:
                continue
            if repeated:
                box = getattr(msg, f.name)
                if data.draw(st.booleans()):
                    del box[:]
                for _ in range(data.draw(st.sampled_from([0, 1, 2, 3, 8, 30]))):
                    fill(box.add(), data, env, depth + 1, 0.7)
            else:
                sub = getattr(msg, f.name)
                sub.SetInParent()
                fill(sub, data, env, depth + 1, 0.7)
        elif repeated:
            box = getattr(msg, f.name)
            del box[:]
            for _ in range(data.draw(st.integers(0, 4))):
                box.append(_scalar(f, data, env))
        else:
            setattr(msg, f.name, _scalar(f, data, env))
    return msg


def valid_request(env: Env, rpc: str, mid: str) -> tuple[Message, str]:
    """A request that would (mostly) be accepted now, and who sends it."""
    rt = env.runtime(mid)
    seat = rt.state.to_move
    who = ("alice", "bob")[seat]
    rid = uuid.uuid4().hex
    pls: list[c.Placement] = []
    moves = generate_moves(rt.state, seat) if rpc in ("SubmitTurn", "PreviewPlay", "WordStrength") else []
    if moves:
        pls = [c.Placement(square=c.Square(row=p.row, col=p.col), letter=p.letter, is_blank=p.blank)
               for p in moves[0].placements()]
    build: dict[str, Callable[[], Message]] = {
        "GetMatch": lambda: m.GetMatchRequest(match_id=mid),
        "StreamMatch": lambda: m.StreamMatchRequest(match_id=mid, after_seq=max(rt.seq - 1, 0)),
        "SubmitTurn": lambda: m.SubmitTurnRequest(match_id=mid, expected_seq=rt.seq, request_id=rid,
                                                  move=c.Move(play=c.PlayMove(placements=pls))),
        "DecidePending": lambda: m.DecidePendingRequest(match_id=mid, expected_seq=rt.seq, request_id=rid,
                                                        decision=m.DECISION_ACCEPT),
        "PreviewPlay": lambda: m.PreviewPlayRequest(match_id=mid, placements=pls),
        "Hindsight": lambda: m.HindsightRequest(match_id=mid, limit=3),
        "WordStrength": lambda: m.WordStrengthRequest(match_id=mid, placements=pls),
        "TileBag": lambda: m.TileBagRequest(match_id=mid),
        "Define": lambda: m.DefineRequest(word="QUIZ", language="en"),
        "SendChat": lambda: m.SendChatRequest(match_id=mid, request_id=rid, text="good luck"),
        "ListLog": lambda: m.ListLogRequest(match_id=mid, page_size=5),
        "LeaveMatch": lambda: m.LeaveMatchRequest(match_id=mid, request_id=rid),
        "KickIdlePlayer": lambda: m.KickIdlePlayerRequest(match_id=mid, request_id=rid, seat=1 - seat),
        "GetMatchRecord": lambda: m.GetMatchRecordRequest(match_id=mid),
    }
    return build[rpc](), who


def call(env: Env, rpc: str, req: Message, md: list[tuple[str, str]]) -> grpc.StatusCode:
    """Make the call; the status code it ended with."""
    method = getattr(env.stub, rpc)
    try:
        if rpc == "StreamMatch":
            stream = method(req, metadata=md, timeout=5)
            for k, _ in enumerate(stream):
                if k >= 2:
                    stream.cancel()
                    break
        else:
            method(req, metadata=md, timeout=10)
    except grpc.RpcError as err:
        code = err.code()  # type: ignore[attr-defined]
        if rpc == "StreamMatch" and code == grpc.StatusCode.CANCELLED:
            return grpc.StatusCode.OK
        assert code not in BAD_CODES, f"{rpc} -> {code}: {err.details()}\n{req}"  # type: ignore[attr-defined]
        assert "metadata size" not in (err.details() or ""), f"{rpc}: status lost: {err.details()}"  # type: ignore[attr-defined]
        return code  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(data=st.data())
def test_random_and_mutated_requests(env: Env, data: st.DataObject) -> None:
    ruleset = data.draw(st.sampled_from(["classic", "wordtiles"]))
    mid = env.matches[ruleset]
    if env.runtime(mid).state.over:
        mid = env.create(ruleset)
    rpc = data.draw(st.sampled_from(sorted(RPCS)))
    mode = data.draw(st.sampled_from(["random", "mutated", "mutated", "valid-bad-token"]))
    if mode == "random":
        req, who = fill(RPCS[rpc](), data, env), data.draw(st.sampled_from([*sorted(env.tokens), "none"]))
    else:
        req, who = valid_request(env, rpc, mid)
        if mode == "mutated":
            fill(req, data, env, p_set=0.3)
            if data.draw(st.booleans()):
                who = data.draw(st.sampled_from([*sorted(env.tokens), "none"]))
        else:
            who = data.draw(st.sampled_from(["carol", "service", "expired", "forged", "tampered", "garbage",
                                             "none"]))
    before = {r: env.snapshot(x) for r, x in env.matches.items()}
    code = call(env, rpc, req, env.md(who))
    event(f"{rpc} {mode}: {code.name}")
    after = {r: env.snapshot(x) for r, x in env.matches.items()}  # the server keeps serving
    if code != grpc.StatusCode.OK or rpc in READ_ONLY:
        assert before == after, f"{rpc} ({code}) changed a match: {req}"
    if who in ("expired", "forged", "tampered", "garbage", "none") and rpc != "Define":
        # A fuzzed request with a bad token: the token is refused (UNAUTHENTICATED) unless the
        # request is refused first for its own fields or for a match that does not exist.
        assert code in {grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.INVALID_ARGUMENT,
                        grpc.StatusCode.NOT_FOUND}, code


def test_server_answers_after_the_storm(env: Env) -> None:
    mid = env.matches["classic"]
    v = env.stub.GetMatch(m.GetMatchRequest(match_id=mid), metadata=env.md("alice"), timeout=10).match
    assert v.match_id == mid
