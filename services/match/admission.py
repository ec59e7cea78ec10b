"""What a request about a match must pass before the engine sees it (``MatchManager.commit``):
the match is not aborted or finished, a repeated request id gets its first answer, and
``expected_seq`` is neither stale nor ahead of the match."""

from __future__ import annotations

import grpc

from wordarena.services.common.errors import ServiceError, invalid_argument
from wordarena.services.match import metrics, views
from wordarena.services.match.runtime import Runtime
from wordarena.v1 import errors_pb2 as e


def aborted_error(match_id: str) -> ServiceError:
    """What every request about an aborted match gets (and open streams end with)."""
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION,
                        f"match {match_id!r} was aborted by the service; it has no result",
                        views.violation(e.RULE_CODE_MATCH_ABORTED, "the match was aborted"))


def finished_error(match_id: str) -> ServiceError:
    """What AbortMatch gets for a match that has ended."""
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION,
                        f"match {match_id!r} has finished; its result stands",
                        views.violation(e.RULE_CODE_GAME_OVER, "the match is over"))


def check_expected_seq(rt: Runtime, expected_seq: int) -> None:
    """A turn's ``expected_seq`` must lie in ``game_seq..seq``: older is stale (the game moved
    on since), newer is a seq the match never had."""
    if expected_seq > rt.seq:
        raise invalid_argument("expected_seq", f"{expected_seq} is ahead of the match: its latest "
                                               f"seq is {rt.seq}; send a seq you have received")
    game_seq = rt.game_seq
    if expected_seq < game_seq:
        raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION,
                           f"expected_seq {expected_seq} is stale: the game moved on at seq "
                           f"{game_seq} (latest seq {rt.seq})",
                           e.StaleSeq(current_seq=rt.seq, expected_seq=expected_seq,
                                      game_seq=game_seq))


def repeat(rt: Runtime, key: tuple[str, str], method: str) -> tuple[str, bytes]:
    """A repeated request id: the first answer again (counted), or REQUEST_ID_REUSED when the id
    was first used for another method."""
    first_method, blob = rt.requests[key]
    if first_method != method:
        raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION,
                           f"request_id {key[1]!r} was already used for {first_method}",
                           views.violation(e.RULE_CODE_REQUEST_ID_REUSED,
                                           f"request_id already used for {first_method}"))
    metrics.REPEATS.inc()
    return ("repeat", blob)
