"""A match id the caller writes is checked as the lobby checks its ids and text (issue 38 item
5): on PostgreSQL, which cannot store NUL in text, a NUL in ``match_id`` used to reach the
database from every MatchService RPC that takes a match id, answer UNKNOWN with the driver's
message and log a traceback. Each RPC must answer INVALID_ARGUMENT naming ``match_id``
(google.rpc.BadRequest, as the lobby does) and log no error."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

import grpc
import pytest
import structlog
from google.rpc import error_details_pb2
from match_harness import Harness, Player, pass_move

from wordarena.services.common.errors import detail
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m

pytestmark = pytest.mark.postgres

#: What no answer may show of the database or the server's insides.
LEAKS = ("sql", "psycopg", "nul", "0x00", "\x00", "traceback", "exception", "file \"")


@pytest.fixture
def database_url(postgres_database: str) -> str:
    return postgres_database


def _requests(mid: str) -> dict[str, Callable[[], Any]]:
    """A well-formed request of every MatchService RPC that names a match, for ``mid``."""
    rid = uuid.uuid4().hex
    tile = c.Placement(square=c.Square(row=7, col=7), letter="A")
    return {
        "GetMatch": lambda: m.GetMatchRequest(match_id=mid),
        "StreamMatch": lambda: m.StreamMatchRequest(match_id=mid),
        "SubmitTurn": lambda: m.SubmitTurnRequest(match_id=mid, move=pass_move(), expected_seq=1,
                                                  request_id=rid),
        "DecidePending": lambda: m.DecidePendingRequest(match_id=mid, decision=m.DECISION_ACCEPT,
                                                        expected_seq=1, request_id=rid),
        "PreviewPlay": lambda: m.PreviewPlayRequest(match_id=mid, placements=[tile]),
        "Hindsight": lambda: m.HindsightRequest(match_id=mid),
        "WordStrength": lambda: m.WordStrengthRequest(match_id=mid, placements=[tile]),
        "TileBag": lambda: m.TileBagRequest(match_id=mid),
        "SendChat": lambda: m.SendChatRequest(match_id=mid, text="hi", request_id=rid),
        "ListLog": lambda: m.ListLogRequest(match_id=mid),
        "LeaveMatch": lambda: m.LeaveMatchRequest(match_id=mid, request_id=rid),
        "KickIdlePlayer": lambda: m.KickIdlePlayerRequest(match_id=mid, seat=1, request_id=rid),
        "GetMatchRecord": lambda: m.GetMatchRecordRequest(match_id=mid),
    }


async def _call(player: Player, method: str, request: Any) -> None:
    rpc = getattr(player.stub, method)
    if method == "StreamMatch":
        call = rpc(request, metadata=player.md, timeout=10)
        await call.read()
        call.cancel()
        return
    await rpc(request, metadata=player.md, timeout=10)


def test_every_match_service_rpc_that_names_a_match_is_tested() -> None:
    service = m.DESCRIPTOR.services_by_name["MatchService"]
    naming = {rpc.name for rpc in service.methods if "match_id" in rpc.input_type.fields_by_name}
    assert naming == _requests("x").keys()
    assert len(naming) == 13


@pytest.mark.parametrize("bad", ["\x00", "m\x00", "a\x00b" * 10])
async def test_a_nul_in_the_match_id_is_invalid_argument_naming_it_from_every_rpc(
    harness: Harness, bad: str, caplog: pytest.LogCaptureFixture
) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    alice = harness.player(srv, "alice")
    assert (await alice.view(mid)).last_seq >= 1  # the server and its database answer
    caplog.set_level(logging.INFO)  # gRPC logs a handler's unexpected exception through logging
    wrong: dict[str, str] = {}
    with structlog.testing.capture_logs() as logged:
        for method, make in _requests(bad).items():
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                await _call(alice, method, make())
            err = ei.value
            text = (err.details() or "").lower()
            br = detail(err, error_details_pb2.BadRequest)
            fields = [v.field for v in br.field_violations] if br is not None else []
            if err.code() != grpc.StatusCode.INVALID_ARGUMENT or fields != ["match_id"] \
                    or any(leak in text for leak in LEAKS):
                wrong[method] = f"{err.code().name} {fields} {err.details()!r}"
    assert not wrong, wrong
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    errors += [str(r) for r in logged if r["log_level"] in ("error", "critical")]
    assert not errors, errors
    # The match itself is untouched and still answers.
    assert (await alice.view(mid)).last_seq >= 1
