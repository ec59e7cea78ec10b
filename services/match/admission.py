"""The core's refusals as the contract answers them: a ``core.Refusal`` turned into a gRPC status
with its details (RuleViolation, StaleSeq, BadRequest, RetryInfo, QuotaFailure), and the two
refusals the shell itself gives (an aborted match, a finished one for AbortMatch)."""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2

from wordarena.engine.rulesets.model import Ruleset
from wordarena.services.common.errors import ServiceError, invalid_argument, too_many
from wordarena.services.match import messages
from wordarena.services.match.core import Refusal, Status
from wordarena.services.match.core.decide import aborted
from wordarena.v1 import errors_pb2 as e

__all__ = ["aborted_error", "finished_error", "refused"]

_CODES = {s: getattr(grpc.StatusCode, s.name) for s in Status}


def refused(r: Refusal, ruleset: Ruleset | None = None) -> ServiceError:
    """The answer to a refusal of the core (``ruleset``: the match's, for the tiles it names)."""
    if r.status is Status.INVALID_ARGUMENT:
        return invalid_argument(r.field or "request", r.message)
    if r.stale is not None:
        current, expected, game = r.stale
        return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, r.message,
                            e.StaleSeq(current_seq=current, expected_seq=expected, game_seq=game))
    if r.retry_in is not None:
        return too_many(r.message, r.retry_in)
    if r.quota is not None:
        subject, description = r.quota
        return ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, r.message, error_details_pb2.QuotaFailure(
            violations=[error_details_pb2.QuotaFailure.Violation(subject=subject, description=description)]))
    if not r.code:
        return ServiceError(_CODES[r.status], r.message)
    return ServiceError(_CODES[r.status], r.message, violation_of(r, ruleset))


def violation_of(r: Refusal, ruleset: Ruleset | None = None) -> e.RuleViolation:
    """The RuleViolation of a refusal: its code (a RuleCode name or an engine rule), message,
    words, and the tiles and squares at fault."""
    message = r.violation or r.message
    if f"RULE_CODE_{r.code}" in e.RuleCode.keys():  # noqa: SIM118 (an enum wrapper, not a dict)
        v = messages.violation(e.RuleCode.Value(f"RULE_CODE_{r.code}"), message, r.words)
    else:
        v = messages.rule_violation(r.code, message, r.words)
    if r.tiles and ruleset is not None:
        v.tiles.extend(messages.tile(ruleset, t) for t in r.tiles)
    v.squares.extend(messages.square_at(row, col) for row, col in r.squares)
    if r.retry_at is not None:
        v.retry_after.CopyFrom(messages.timestamp(r.retry_at))
    return v


def aborted_error(match_id: str) -> ServiceError:
    """What every request about an aborted match gets (and open streams end with)."""
    return refused(aborted(match_id))


def finished_error(match_id: str) -> ServiceError:
    """What AbortMatch gets for a match that has ended."""
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION,
                        f"match {match_id!r} has finished; its result stands",
                        messages.violation(e.RULE_CODE_GAME_OVER, "the match is over"))
