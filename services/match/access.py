"""Who may see a match and act in it: a request's viewer (a seat, or ``None`` for spectators)
and acting seat, and the PERMISSION_DENIED refusals (with RuleViolation NOT_YOUR_SEAT) of those
who may not."""

from __future__ import annotations

import json

import grpc

from wordarena.services.common.errors import ServiceError
from wordarena.services.match import messages
from wordarena.services.match.runtime import Options, Runtime, SeatInfo, controlled_seats
from wordarena.services.match.store import MatchStore
from wordarena.v1 import errors_pb2 as e


def not_seated(what: str = "act in") -> ServiceError:
    """PERMISSION_DENIED NOT_YOUR_SEAT: the caller has no (such) seat to ``what`` the match."""
    return ServiceError(grpc.StatusCode.PERMISSION_DENIED, f"you have no seat to {what} this match",
                        messages.violation(e.RULE_CODE_NOT_YOUR_SEAT, "not your seat"))


def outsider() -> ServiceError:
    """PERMISSION_DENIED NOT_YOUR_SEAT: the caller has no seat in a match without spectators."""
    return ServiceError(grpc.StatusCode.PERMISSION_DENIED,
                        "you are not a player of this match and it has no spectators",
                        messages.violation(e.RULE_CODE_NOT_YOUR_SEAT, "not a player of this match"))


async def may_load(store: MatchStore, match_id: str, player_id: str) -> None:
    """Before a match is read from its log for ``player_id``'s call: refuse (``outsider``) one
    they could not see anyway, from its row alone (a replay costs about ten turns' work). An
    unknown or aborted match is left to the loader to refuse."""
    row = await store.get(match_id)
    if row is None or row.status == "aborted":
        return
    seats = [SeatInfo(**s) for s in json.loads(row.seats)]
    if not (Options.from_dict(json.loads(row.options)).spectators_allowed
            or controlled_seats(seats, player_id)):
        raise outsider()


def viewer(rt: Runtime, player_id: str, seat: int | None, *, spectate: bool) -> tuple[int | None, list[int]]:
    """The seat a request of ``player_id`` is for (``seat`` if given, else the seat to move if
    theirs, else their lowest) and the seats they control; ``None`` and no seats for a spectator
    when ``spectate`` and the match allows spectators."""
    controlled = rt.controlled_seats(player_id)
    if seat is not None:
        if seat not in controlled:
            raise not_seated()
        return seat, controlled
    if not controlled:
        if spectate and rt.options.spectators_allowed:
            return None, []
        if spectate:
            raise outsider()
        raise ServiceError(grpc.StatusCode.PERMISSION_DENIED,
                           "you have no seat in this match: a spectator may watch it, not act in it",
                           messages.violation(e.RULE_CODE_NOT_YOUR_SEAT, "spectators have no seat"))
    if rt.state.to_move in controlled and not rt.state.over:
        return rt.state.to_move, controlled
    return min(controlled), controlled


def acting_seat(rt: Runtime, player_id: str, seat: int | None) -> int:
    """The seat ``player_id`` acts for (see ``viewer``); spectators may not act."""
    acting, _ = viewer(rt, player_id, seat, spectate=False)
    assert acting is not None
    return acting
