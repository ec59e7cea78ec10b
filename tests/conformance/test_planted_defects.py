"""The conformance suite's self-check by mutation: six defects planted in the running servers,
one at a time, each on a path a ``.proto`` comment makes a promise about, and the suite's own
checks of those promises must fail on each (and pass without it). A defect is planted with
pytest's ``monkeypatch`` on the servers' modules while one world (a real lobby and match server
over loopback gRPC) runs, and taken out before the next; only the promises of the RPC the
defect touches run, so the whole run costs a few seconds.

The six: an opponent's rack sent in ``Event.viewer_rack``; the tiles an exchange returned shown
to everyone; an empty ``RuleViolation.tiles``; a wrong rule code (DecidePending by a seat that
is not the decider answered NOT_YOUR_TURN, issue 41 finding 10); a missing field a comment
promises (KICK_TOO_EARLY without ``retry_after``); a wrong status code (a spectator's turn
refused FAILED_PRECONDITION instead of PERMISSION_DENIED)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest
import test_conformance  # noqa: F401  (registers every promise)
from world import PROMISES, World

from wordarena.engine.errors import Rule
from wordarena.services.common.errors import ServiceError
from wordarena.services.match import access, admission, messages, sight, wire
from wordarena.v1 import errors_pb2 as e

Plant = Callable[[pytest.MonkeyPatch], None]


def _opponents_rack(mp: pytest.MonkeyPatch) -> None:
    """viewer_rack carries the next seat's rack instead of the viewer's."""
    honest = wire.event_bytes

    def leaky(rt: Any, ev: Any, viewer: int | None) -> bytes:
        after = ev.event.after
        if viewer is None or after is None or ev.kind == "tiles-exchanged" \
                or not sight.private_to(ev, viewer):
            return honest(rt, ev, viewer)
        other = list(after.racks[(viewer + 1) % len(after.racks)])
        rack = messages.rack(rt.ruleset, other, after.irradiated)
        return wire._public_bytes(rt, ev) + wire._len_field(
            wire._EVENT_VIEWER_RACK, rack.SerializeToString())

    mp.setattr(wire, "event_bytes", leaky)


def _exchange_shown(mp: pytest.MonkeyPatch) -> None:
    """Every viewer is sent an exchange as the exchanger sees it (the tiles returned)."""
    honest_bytes, honest = wire.event_bytes, wire.project

    def exchanger(ev: Any, viewer: int | None) -> int | None:
        return ev.event.head.seat if ev.kind == "tiles-exchanged" else viewer

    mp.setattr(wire, "event_bytes", lambda rt, ev, viewer: honest_bytes(rt, ev, exchanger(ev, viewer)))
    mp.setattr(wire, "project", lambda rt, ev, viewer: honest(rt, ev, exchanger(ev, viewer)))


def _no_tiles(mp: pytest.MonkeyPatch) -> None:
    """RuleViolation.tiles left empty."""
    honest = admission.violation_of

    def bare(*args: Any, **kw: Any) -> e.RuleViolation:
        v = honest(*args, **kw)
        del v.tiles[:]
        return v

    mp.setattr(admission, "violation_of", bare)


def _wrong_rule(mp: pytest.MonkeyPatch) -> None:
    """NOTHING_PENDING reported as NOT_YOUR_TURN."""
    mp.setitem(messages.RULES, Rule.NOTHING_PENDING, e.RULE_CODE_NOT_YOUR_TURN)


def _no_retry_after(mp: pytest.MonkeyPatch) -> None:
    """RuleViolation.retry_after left out."""
    honest = admission.violation_of

    def bare(*args: Any, **kw: Any) -> e.RuleViolation:
        v = honest(*args, **kw)
        v.ClearField("retry_after")
        return v

    mp.setattr(admission, "violation_of", bare)


def _wrong_status(mp: pytest.MonkeyPatch) -> None:
    """A caller with no seat to act for refused FAILED_PRECONDITION, not PERMISSION_DENIED."""
    honest = access.acting_seat

    def wrong(*args: Any, **kw: Any) -> int:
        try:
            return honest(*args, **kw)
        except ServiceError as err:
            raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION, err.message, *err.details) from err

    mp.setattr(access, "acting_seat", wrong)


#: Each defect, how it is planted, and the promises (RPC, the start of the promise's text) that
#: must catch it.
DEFECTS: dict[str, tuple[Plant, list[tuple[str, str]]]] = {
    "an opponent's rack in viewer_rack": (_opponents_rack, [
        ("MatchService.StreamMatch", "Event.viewer_rack: the viewer's own rack")]),
    "exchanged tiles shown to everyone": (_exchange_shown, [
        ("MatchService.SubmitTurn", "TilesExchanged.returned: only in the exchanging player's")]),
    "an empty RuleViolation.tiles": (_no_tiles, [
        ("MatchService.SubmitTurn", "RuleViolation.tiles: TILES_NOT_ON_RACK lists")]),
    "a wrong rule code (NOT_YOUR_TURN for NO_PENDING_PLAY)": (_wrong_rule, [
        ("MatchService.DecidePending", "FAILED_PRECONDITION NO_PENDING_PLAY when the caller is not")]),
    "a promised field missing (KICK_TOO_EARLY without retry_after)": (_no_retry_after, [
        ("MatchService.KickIdlePlayer", "FAILED_PRECONDITION KICK_TOO_EARLY with retry_after")]),
    "a wrong status code (a spectator's turn FAILED_PRECONDITION)": (_wrong_status, [
        ("MatchService.SubmitTurn", "PERMISSION_DENIED with NOT_YOUR_SEAT for a spectator")]),
}


def _checks(promises: list[tuple[str, str]]) -> list[tuple[str, Callable[[World], Any]]]:
    out = []
    for rpc, start in promises:
        found = [(f"{rpc}: {text}", check) for text, check in PROMISES[rpc].items() if text.startswith(start)]
        assert len(found) == 1, (rpc, start, [t for t in PROMISES[rpc]])
        out.extend(found)
    return out


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("defect", list(DEFECTS))
async def test_the_suite_catches_a_defect_planted_in_the_servers(world: World, defect: str) -> None:
    plant, promises = DEFECTS[defect]
    checks = _checks(promises)
    for _, check in checks:  # the promises hold on the servers as they are
        await check(world)
    caught = []
    with pytest.MonkeyPatch.context() as mp:
        plant(mp)
        for name, check in checks:
            try:
                await check(world)
            except (AssertionError, grpc.aio.AioRpcError) as exc:
                caught.append(f"{name}: {type(exc).__name__}")
    assert caught, f"{defect} planted, and the suite's checks {[n for n, _ in checks]} still pass"
