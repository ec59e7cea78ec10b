"""More of match.proto's promises: the refusals every MatchService RPC about a match shares
(NOT_FOUND, an empty match_id, MATCH_ABORTED), registered for each RPC from one table, and the
rest of the refusals the RPC comments list."""

from __future__ import annotations

import uuid

import grpc
from google.rpc import error_details_pb2
from match_promises import PASS, RESIGN, one_tile
from world import Check, Guest, World, detail, eventually, promise, refused, rid, rule

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import lobby_pb2 as lb
from wordarena.v1 import match_pb2 as m

S = grpc.StatusCode


# --- refusals every RPC about a match shares ---------------------------------------------------

_ABOUT_A_MATCH = {
    "GetMatch": lambda mid: m.GetMatchRequest(match_id=mid),
    "StreamMatch": lambda mid: m.StreamMatchRequest(match_id=mid),
    "SubmitTurn": lambda mid: m.SubmitTurnRequest(match_id=mid, expected_seq=1, request_id=rid(), move=PASS),
    "DecidePending": lambda mid: m.DecidePendingRequest(match_id=mid, expected_seq=1, request_id=rid(),
                                                        decision=m.DECISION_ACCEPT),
    "PreviewPlay": lambda mid: m.PreviewPlayRequest(match_id=mid, placements=one_tile()),
    "Hindsight": lambda mid: m.HindsightRequest(match_id=mid),
    "WordStrength": lambda mid: m.WordStrengthRequest(match_id=mid, placements=one_tile()),
    "TileBag": lambda mid: m.TileBagRequest(match_id=mid),
    "SendChat": lambda mid: m.SendChatRequest(match_id=mid, request_id=rid(), text="hi"),
    "ListLog": lambda mid: m.ListLogRequest(match_id=mid),
    "LeaveMatch": lambda mid: m.LeaveMatchRequest(match_id=mid, request_id=rid()),
    "KickIdlePlayer": lambda mid: m.KickIdlePlayerRequest(match_id=mid, request_id=rid(), seat=1),
    "GetMatchRecord": lambda mid: m.GetMatchRecordRequest(match_id=mid),
}


def _call(g: Guest, rpc: str, request: object) -> object:
    """The call's outcome as an awaitable (a stream: its first message)."""
    method = getattr(g.match, rpc)(request, metadata=g.md)
    return method.read() if rpc == "StreamMatch" else method


def _unknown_match(rpc: str) -> Check:
    async def check(w: World) -> None:
        g = await w.guest()
        await refused(_call(g, rpc, _ABOUT_A_MATCH[rpc]("no-such-match")), S.NOT_FOUND)
        err = await refused(_call(g, rpc, _ABOUT_A_MATCH[rpc]("")), S.INVALID_ARGUMENT)
        assert detail(err, error_details_pb2.BadRequest).field_violations[0].field == "match_id"
    return check


def _aborted_match(rpc: str) -> Check:
    async def check(w: World) -> None:
        g = await w.guest()
        mid = uuid.uuid4().hex[:12]
        seats = [ctl.SeatAssignment(index=i, player=c.Player(player_id=p, display_name=p))
                 for i, p in enumerate((g.player_id, "conf-other"))]
        await w.control.CreateMatch(ctl.CreateMatchRequest(match_id=mid, seats=seats,
                                                           ruleset=c.RulesetRef(ruleset_id="classic")),
                                    metadata=w.service_md)
        await w.control.AbortMatch(ctl.AbortMatchRequest(match_id=mid), metadata=w.service_md)
        err = await refused(_call(g, rpc, _ABOUT_A_MATCH[rpc](mid)), S.FAILED_PRECONDITION)
        assert rule(err) == e.RULE_CODE_MATCH_ABORTED
    return check


for _rpc in _ABOUT_A_MATCH:
    promise(f"MatchService.{_rpc}", "NOT_FOUND unknown match; INVALID_ARGUMENT naming an empty match_id")(
        _unknown_match(_rpc))
    promise(f"MatchService.{_rpc}", "FAILED_PRECONDITION MATCH_ABORTED once the service aborted the match")(
        _aborted_match(_rpc))


# --- more refusals -----------------------------------------------------------------------------


@promise("MatchService.PreviewPlay", "INVALID_ARGUMENT malformed placements (a square off the board)")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    err = await refused(a.match.PreviewPlay(m.PreviewPlayRequest(match_id=mid, placements=one_tile(20, 3)),
                                            metadata=a.md), S.INVALID_ARGUMENT)
    assert "placements" in detail(err, error_details_pb2.BadRequest).field_violations[0].field


@promise("MatchService.SubmitTurn",
         "INVALID_ARGUMENT for coordinates off the board or a letter outside the alphabet, with a "
         "BadRequest naming the move; nothing is played")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    before = await a.view(mid)
    for bad in (one_tile(20, 3), one_tile(7, 7, "Ж")):
        move = c.Move(play=c.PlayMove(placements=bad))
        err = await refused(a.match.SubmitTurn(m.SubmitTurnRequest(
            match_id=mid, expected_seq=before.last_seq, request_id=rid(), move=move), metadata=a.md),
            S.INVALID_ARGUMENT)
        assert detail(err, error_details_pb2.BadRequest).field_violations[0].field.startswith("move")
    assert (await a.view(mid)).last_seq == before.last_seq


@promise("MatchService.WordStrength", "INVALID_ARGUMENT malformed placements (a letter outside the alphabet)")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    err = await refused(a.match.WordStrength(m.WordStrengthRequest(match_id=mid,
                                                                   placements=one_tile(7, 7, "Ж")),
                                             metadata=a.md), S.INVALID_ARGUMENT)
    assert "placements" in detail(err, error_details_pb2.BadRequest).field_violations[0].field


@promise("MatchService.ListLog",
         "FAILED_PRECONDITION CHAT_UNAVAILABLE for a seat that left (it may not read the chat)")
async def _(w: World) -> None:
    mid, (a, b, _) = await w.match("wordtiles", players=3)
    await a.chat(mid, "before")
    await b.match.LeaveMatch(m.LeaveMatchRequest(match_id=mid, request_id=rid()), metadata=b.md)
    err = await refused(b.match.ListLog(m.ListLogRequest(match_id=mid), metadata=b.md), S.FAILED_PRECONDITION)
    assert rule(err) == e.RULE_CODE_CHAT_UNAVAILABLE


@promise("MatchService.SendChat",
         "FAILED_PRECONDITION CHAT_UNAVAILABLE in a finished match; PERMISSION_DENIED NOT_YOUR_SEAT "
         "not a player of a match without spectators")
async def _(w: World) -> None:
    mid, (a, b) = await w.match()
    await b.submit(mid, RESIGN)
    err = await refused(a.chat(mid, "gg"), S.FAILED_PRECONDITION)
    assert rule(err) == e.RULE_CODE_CHAT_UNAVAILABLE
    closed, _ = await w.match(spectators=False)
    err = await refused((await w.guest()).chat(closed, "hello"), S.PERMISSION_DENIED)
    assert rule(err) == e.RULE_CODE_NOT_YOUR_SEAT


@promise("MatchService.GetMatchRecord",
         "FAILED_PRECONDITION FEATURE_UNAVAILABLE for a running match on a board with clouds")
async def _(w: World) -> None:
    g = await w.guest()
    park = lb.TableSettings(ruleset=c.RulesetRef(ruleset_id="warofwords", board_id="warofwords-park"),
                            seats=2, options=c.MatchOptions(spectators_allowed=True),
                            bots=[lb.BotSeat(seat=1, bot_level=1)])
    made = await g.lobby.CreateTable(lb.CreateTableRequest(settings=park, request_id=rid()), metadata=g.md)

    async def started() -> str:
        t = (await g.lobby.GetTable(lb.GetTableRequest(table_id=made.table.table_id), metadata=g.md)).table
        return t.match.match_id

    mid = await eventually(started)
    err = await refused(g.match.GetMatchRecord(m.GetMatchRecordRequest(match_id=mid), metadata=g.md),
                        S.FAILED_PRECONDITION)
    assert rule(err) == e.RULE_CODE_FEATURE_UNAVAILABLE
