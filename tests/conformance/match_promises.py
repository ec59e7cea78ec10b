"""What match.proto promises about each MatchService RPC, as checks over real gRPC (see
``world``). Each ``@promise`` text paraphrases the RPC's comment (or the file comment's rules on
authentication, idempotency and seqs) closely enough to find it there."""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2
from world import Guest, World, detail, promise, refused, rid, rule

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m

S = grpc.StatusCode
PASS = c.Move(pass_turn=c.PassMove())
RESIGN = c.Move(resign=c.ResignMove())


def one_tile(row: int = 7, col: int = 7, letter: str = "Q") -> list[c.Placement]:
    return [c.Placement(square=c.Square(row=row, col=col), letter=letter)]


# --- GetMatch ----------------------------------------------------------------------------------


@promise("MatchService.GetMatch", "players see their own rack; spectators no rack")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    outsider = await w.guest()
    va, vs = await a.view(mid), await outsider.view(mid)
    assert va.viewer_seat == 0 and len(va.rack.tiles) == 7
    assert not vs.HasField("viewer_seat") and not vs.HasField("rack") and not vs.controlled_seats


@promise("MatchService.GetMatch", "NOT_FOUND unknown match; INVALID_ARGUMENT empty match_id")
async def _(w: World) -> None:
    a = await w.guest()
    await refused(a.view("no-such-match"), S.NOT_FOUND)
    err = await refused(a.view(""), S.INVALID_ARGUMENT)
    assert detail(err, error_details_pb2.BadRequest).field_violations[0].field == "match_id"


@promise("MatchService.GetMatch",
         "PERMISSION_DENIED with NOT_YOUR_SEAT: not a participant of a match without spectators")
async def _(w: World) -> None:
    mid, _ = await w.match(spectators=False)
    err = await refused((await w.guest()).view(mid), S.PERMISSION_DENIED)
    assert rule(err) == e.RULE_CODE_NOT_YOUR_SEAT


@promise("MatchService.GetMatch", "every RPC needs a bearer token: UNAUTHENTICATED without one")
async def _(w: World) -> None:
    mid, _ = await w.match()
    await refused(w.anonymous.GetMatch(m.GetMatchRequest(match_id=mid)), S.UNAUTHENTICATED)
    forged = [("authorization", "Bearer not-a-token")]
    await refused(w.anonymous.GetMatch(m.GetMatchRequest(match_id=mid), metadata=forged), S.UNAUTHENTICATED)


# --- StreamMatch -------------------------------------------------------------------------------


async def _read(g: Guest, mid: str, after: int, count: int) -> list[c.Event]:
    out: list[c.Event] = []
    call = g.match.StreamMatch(m.StreamMatchRequest(match_id=mid, after_seq=after), metadata=g.md)
    async for msg in call:
        if not msg.event.HasField("heartbeat"):
            out.append(msg.event)
        if len(out) == count:
            call.cancel()
            break
    return out


@promise("MatchService.StreamMatch",
         "reconnecting with the last seq received: nothing is missed and nothing is sent twice")
async def _(w: World) -> None:
    mid, (a, b) = await w.match()
    for g in (a, b, a, b):
        await g.submit(mid, PASS)
    first = await _read(a, mid, 0, 2)
    rest = await _read(a, mid, first[-1].seq, 3)
    assert [ev.seq for ev in first + rest] == [1, 2, 3, 4, 5]


@promise("MatchService.StreamMatch", "the stream ends (OK) after GameOver has been sent")
async def _(w: World) -> None:
    mid, (a, b) = await w.match()
    await a.submit(mid, RESIGN)
    events = [msg.event async for msg in
              b.match.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=b.md)]
    assert events[-1].HasField("game_over")


@promise("MatchService.StreamMatch",
         "when idle, a heartbeat carrying the latest seq; a player's stream skips the observers' chat "
         "(a gap in seq)")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    await (await w.guest()).chat(mid, "observing")  # seq 2, the observers' channel
    await a.submit(mid, PASS)  # seq 3
    call = a.match.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=a.md)
    seen = []
    async for msg in call:
        seen.append((msg.event.seq, msg.event.HasField("heartbeat")))
        if msg.event.HasField("heartbeat"):
            break
    call.cancel()
    assert seen == [(1, False), (3, False), (3, True)]


@promise("MatchService.StreamMatch", "INVALID_ARGUMENT negative after_seq or beyond the latest seq")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    for after in (-1, 99):
        call = a.match.StreamMatch(m.StreamMatchRequest(match_id=mid, after_seq=after), metadata=a.md)
        err = await refused(call.read(), S.INVALID_ARGUMENT)
        assert "after_seq" in err.details()


@promise("MatchService.StreamMatch",
         "Event.viewer_rack: the viewer's own rack after the event, set only when the event changed "
         "it, never for spectators")
async def _(w: World) -> None:
    mid, (a, b) = await w.match()
    spectator = await w.guest()
    own = {g.player_id: [t.letter or "?" for t in (await g.view(mid)).rack.tiles] for g in (a, b)}
    assert own[a.player_id] != own[b.player_id]  # two racks of 7 from one bag: never the same here
    await a.submit(mid, PASS)  # seq 2: nobody's rack changed
    for g in (a, b):
        first, passed = await _read(g, mid, 0, 2)
        assert first.HasField("match_started") and first.HasField("viewer_rack")
        assert [t.letter or "?" for t in first.viewer_rack.tiles] == own[g.player_id], g.name
        assert passed.HasField("turn_passed") and not passed.HasField("viewer_rack")
    first, _ = await _read(spectator, mid, 0, 2)
    assert not first.HasField("viewer_rack")


# --- SubmitTurn --------------------------------------------------------------------------------


@promise("MatchService.SubmitTurn",
         "a repeated request_id returns the first answer again and changes nothing")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    first = await a.submit(mid, PASS, request_id="same-id")
    again = await a.submit(mid, PASS, request_id="same-id")
    assert again == first
    assert (await a.view(mid)).last_seq == first.last_seq


@promise("MatchService.SubmitTurn",
         "FAILED_PRECONDITION with StaleSeq below game_seq; chat never makes a turn stale")
async def _(w: World) -> None:
    mid, (a, b) = await w.match()
    seen = (await b.view(mid)).last_seq
    await a.chat(mid, "hello")
    await a.submit(mid, PASS, seen)  # the chat came after seq `seen`: not stale
    await b.submit(mid, PASS, seen + 2)  # any seq received: chat included
    err = await refused(a.submit(mid, PASS, seen), S.FAILED_PRECONDITION)
    stale = detail(err, e.StaleSeq)
    assert stale.expected_seq == seen and stale.game_seq == seen + 3 and stale.current_seq == seen + 3


@promise("MatchService.SubmitTurn",
         "INVALID_ARGUMENT naming expected_seq when it is 0 (omitted) or ahead of the match, naming "
         "request_id when it is missing or not 1..64 characters of [A-Za-z0-9_-]")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    for seq in (0, 50):
        err = await refused(a.submit(mid, PASS, seq), S.INVALID_ARGUMENT)
        assert detail(err, error_details_pb2.BadRequest).field_violations[0].field == "expected_seq"
    err = await refused(a.match.SubmitTurn(m.SubmitTurnRequest(match_id=mid, expected_seq=1, move=PASS),
                                           metadata=a.md), S.INVALID_ARGUMENT)
    assert detail(err, error_details_pb2.BadRequest).field_violations[0].field == "request_id"
    for bad_id in ("not a uuid!", "x" * 65):  # 1..64 characters of [A-Za-z0-9_-]
        err = await refused(a.submit(mid, PASS, 1, request_id=bad_id), S.INVALID_ARGUMENT)
        assert detail(err, error_details_pb2.BadRequest).field_violations[0].field == "request_id"
    await refused(a.submit(mid, c.Move(), 1), S.INVALID_ARGUMENT)  # no move


@promise("MatchService.SubmitTurn",
         "FAILED_PRECONDITION with RuleViolation when a rule forbids the move (NOT_YOUR_TURN, "
         "TILES_NOT_ON_RACK)")
async def _(w: World) -> None:
    mid, (a, b) = await w.match()
    err = await refused(b.submit(mid, PASS), S.FAILED_PRECONDITION)
    assert rule(err) == e.RULE_CODE_NOT_YOUR_TURN
    rack = {t.letter for t in (await a.view(mid)).rack.tiles}
    missing = next(ch for ch in "QZXJKVWYBCDFGHLMNPRST" if ch not in rack)
    move = c.Move(play=c.PlayMove(placements=one_tile(7, 7, missing) + one_tile(7, 8, missing)))
    err = await refused(a.submit(mid, move), S.FAILED_PRECONDITION)
    assert rule(err) == e.RULE_CODE_TILES_NOT_ON_RACK


@promise("MatchService.SubmitTurn",
         "RuleViolation.tiles: TILES_NOT_ON_RACK lists the placed tiles the rack lacks, with repeats")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    rack = [t.letter for t in (await a.view(mid)).rack.tiles]
    missing = next(ch for ch in "QZXJKVWYBCDFGHLMNPRST" if ch not in rack)
    held = next(t for t in rack if t and t != "?")  # placed once more than the rack holds it
    letters = [held] * (rack.count(held) + 1) + [missing, missing]
    move = c.Move(play=c.PlayMove(placements=[c.Placement(square=c.Square(row=7, col=9 - len(letters) + k),
                                                          letter=x) for k, x in enumerate(letters)]))
    err = await refused(a.submit(mid, move), S.FAILED_PRECONDITION)
    violation = detail(err, e.RuleViolation)
    assert violation.code == e.RULE_CODE_TILES_NOT_ON_RACK
    assert sorted(t.letter for t in violation.tiles) == sorted([held, missing, missing]), violation


@promise("MatchService.SubmitTurn",
         "TilesExchanged.returned: only in the exchanging player's own view (answer, stream), "
         "empty for everyone else")
async def _(w: World) -> None:
    mid, (a, b) = await w.match()
    spectator = await w.guest()
    swap = [t for t in (await a.view(mid)).rack.tiles][:3]
    answer = await a.submit(mid, c.Move(exchange=c.ExchangeMove(tiles=swap)))
    mine = next(ev for ev in answer.events if ev.HasField("tiles_exchanged"))
    assert sorted(t.letter for t in mine.tiles_exchanged.returned) == sorted(t.letter for t in swap)
    for g in (a, b, spectator):
        seen = (await _read(g, mid, 1, 1))[0].tiles_exchanged
        assert seen.count == 3
        assert len(seen.returned) == (3 if g is a else 0), g.name


@promise("MatchService.SubmitTurn",
         "PERMISSION_DENIED with NOT_YOUR_SEAT for a spectator (spectators have no seat)")
async def _(w: World) -> None:
    mid, _ = await w.match()
    spectator = await w.guest()
    err = await refused(spectator.submit(mid, PASS), S.PERMISSION_DENIED)
    assert rule(err) == e.RULE_CODE_NOT_YOUR_SEAT


@promise("MatchService.SubmitTurn",
         "the same request_id sent to another method: FAILED_PRECONDITION REQUEST_ID_REUSED; "
         "a refused request keeps nothing, its request_id may be sent again")
async def _(w: World) -> None:
    mid, (a, b) = await w.match()
    await a.chat(mid, "hi", request_id="shared")
    err = await refused(a.submit(mid, PASS, request_id="shared"), S.FAILED_PRECONDITION)
    assert rule(err) == e.RULE_CODE_REQUEST_ID_REUSED
    await refused(b.submit(mid, PASS, request_id="retry-me"), S.FAILED_PRECONDITION)  # not b's turn
    await a.submit(mid, PASS)
    await b.submit(mid, PASS, request_id="retry-me")  # judged afresh, now accepted


@promise("MatchService.SubmitTurn", "a turn's answer is its events, the latest seq and the caller's rack")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    r = await a.submit(mid, PASS)
    assert r.events[0].HasField("turn_passed") and r.last_seq == r.events[-1].seq == 2
    assert len(r.rack.tiles) == 7


# --- DecidePending -----------------------------------------------------------------------------


@promise("MatchService.DecidePending",
         "FAILED_PRECONDITION NO_PENDING_PLAY when nothing is pending; INVALID_ARGUMENT no decision")
async def _(w: World) -> None:
    mid, (a, _) = await w.match("wordtiles")
    seq = (await a.view(mid)).last_seq
    err = await refused(a.match.DecidePending(m.DecidePendingRequest(
        match_id=mid, expected_seq=seq, request_id=rid(), decision=m.DECISION_ACCEPT), metadata=a.md),
        S.FAILED_PRECONDITION)
    assert rule(err) == e.RULE_CODE_NO_PENDING_PLAY
    await refused(a.match.DecidePending(m.DecidePendingRequest(
        match_id=mid, expected_seq=seq, request_id=rid()), metadata=a.md), S.INVALID_ARGUMENT)


async def _pending_play(a: Guest, mid: str) -> int:
    """``a`` (to move) puts two of its letters across the centre of a Word Tiles match: a play
    waiting for the next seat's decision. Returns the seq after it."""
    view = await a.view(mid)
    letters = [t.letter for t in view.rack.tiles if not t.is_blank][:2]
    centre = view.board.rows // 2
    move = c.Move(play=c.PlayMove(placements=[
        c.Placement(square=c.Square(row=centre, col=centre + k), letter=x) for k, x in enumerate(letters)]))
    played = await a.submit(mid, move, view.last_seq)
    assert (await a.view(mid)).HasField("pending")
    return played.last_seq


@promise("MatchService.DecidePending",
         "FAILED_PRECONDITION NO_PENDING_PLAY when the caller is not the decider (the player of the "
         "pending play; a seat not to move while nothing is pending)")
async def _(w: World) -> None:
    mid, (a, b) = await w.match("wordtiles")
    seq = (await a.view(mid)).last_seq

    def decide(g: Guest, at: int) -> object:
        return g.match.DecidePending(m.DecidePendingRequest(
            match_id=mid, expected_seq=at, request_id=rid(), decision=m.DECISION_ACCEPT), metadata=g.md)

    err = await refused(decide(b, seq), S.FAILED_PRECONDITION)  # nothing pending, a is to move
    assert rule(err) == e.RULE_CODE_NO_PENDING_PLAY, err.details()
    seq = await _pending_play(a, mid)
    err = await refused(decide(a, seq), S.FAILED_PRECONDITION)  # b decides, not a
    assert rule(err) == e.RULE_CODE_NO_PENDING_PLAY, err.details()
    accepted = await b.match.DecidePending(m.DecidePendingRequest(  # the decider still may
        match_id=mid, expected_seq=seq, request_id=rid(), decision=m.DECISION_ACCEPT), metadata=b.md)
    assert accepted.events[0].HasField("play_accepted")


# --- PreviewPlay, WordStrength, Hindsight, TileBag, Define -------------------------------------


@promise("MatchService.PreviewPlay",
         "rule violations come in the response, not as errors, also when it is not the caller's turn; "
         "PERMISSION_DENIED spectators")
async def _(w: World) -> None:
    mid, (_, b) = await w.match()
    r = await b.match.PreviewPlay(m.PreviewPlayRequest(match_id=mid, placements=one_tile(0, 0, "Q")),
                                  metadata=b.md)
    assert not r.legal and r.violation.code != e.RULE_CODE_UNSPECIFIED
    spectator = await w.guest()
    err = await refused(spectator.match.PreviewPlay(m.PreviewPlayRequest(match_id=mid,
                        placements=one_tile()), metadata=spectator.md), S.PERMISSION_DENIED)
    assert rule(err) == e.RULE_CODE_NOT_YOUR_SEAT


@promise("MatchService.WordStrength",
         "FAILED_PRECONDITION FEATURE_UNAVAILABLE in accept-or-check matches while running; "
         "PERMISSION_DENIED spectators")
async def _(w: World) -> None:
    mid, (a, _) = await w.match("wordtiles")
    err = await refused(a.match.WordStrength(m.WordStrengthRequest(match_id=mid, placements=one_tile()),
                                             metadata=a.md), S.FAILED_PRECONDITION)
    assert rule(err) == e.RULE_CODE_FEATURE_UNAVAILABLE
    mid, _ = await w.match()
    spectator = await w.guest()
    await refused(spectator.match.WordStrength(m.WordStrengthRequest(match_id=mid, placements=one_tile()),
                                               metadata=spectator.md), S.PERMISSION_DENIED)


@promise("MatchService.Hindsight",
         "FAILED_PRECONDITION NO_TURN_TO_ANALYSE before the caller's first turn; PERMISSION_DENIED "
         "another seat's turn while the match runs")
async def _(w: World) -> None:
    mid, (a, b) = await w.match()
    err = await refused(a.match.Hindsight(m.HindsightRequest(match_id=mid), metadata=a.md),
                        S.FAILED_PRECONDITION)
    assert rule(err) == e.RULE_CODE_NO_TURN_TO_ANALYSE
    passed = await a.submit(mid, PASS)
    err = await refused(b.match.Hindsight(m.HindsightRequest(match_id=mid, turn_seq=passed.last_seq),
                                          metadata=b.md), S.PERMISSION_DENIED)
    assert rule(err) == e.RULE_CODE_NOT_YOUR_SEAT


@promise("MatchService.Hindsight",
         "by_simulation: also the best plays ranked by simulation (SimulatedPlay: equity, mean spread, "
         "its error, draws, win chance), the same answer for the same turn; without it, none")
async def _(w: World) -> None:
    # The lobby deals from a random seed, and about one opening rack in 200 has no play at
    # all (BMPLNPV): then there is nothing to rank, so such a deal is set aside for another.
    for _ in range(5):
        mid, (a, _) = await w.match()
        await a.submit(mid, PASS)
        plain = await a.match.Hindsight(m.HindsightRequest(match_id=mid, limit=2), metadata=a.md)
        if plain.legal_play_count >= 2:
            break
    assert len(plain.best) == 2 and not plain.simulated
    req = m.HindsightRequest(match_id=mid, limit=2, by_simulation=True)
    first = await a.match.Hindsight(req, metadata=a.md)
    assert first.best == plain.best and len(first.simulated) >= 2
    assert all(s.iterations >= 1 and 0 <= s.win_chance <= 1 for s in first.simulated)
    assert all(s.play.notation for s in first.simulated if s.HasField("play"))
    assert await a.match.Hindsight(req, metadata=a.md) == first


@promise("MatchService.TileBag",
         "the unseen tiles are the bag plus the opponents' racks; PERMISSION_DENIED spectators")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    r = await a.match.TileBag(m.TileBagRequest(match_id=mid), metadata=a.md)
    assert r.unseen_count == r.bag_count + r.opponent_rack_count == sum(t.count for t in r.unseen)
    assert r.opponent_rack_count == 7
    spectator = await w.guest()
    await refused(spectator.match.TileBag(m.TileBagRequest(match_id=mid), metadata=spectator.md),
                  S.PERMISSION_DENIED)


@promise("MatchService.Define",
         "INVALID_ARGUMENT empty or over-long word (max 32 letters); FAILED_PRECONDITION "
         "DICTIONARY_UNAVAILABLE for a language without a dictionary")
async def _(w: World) -> None:
    a = await w.guest()
    for word in ("", "A" * 33):
        await refused(a.match.Define(m.DefineRequest(word=word), metadata=a.md), S.INVALID_ARGUMENT)
    err = await refused(a.match.Define(m.DefineRequest(word="chat", language="fr"), metadata=a.md),
                        S.FAILED_PRECONDITION)
    assert rule(err) == e.RULE_CODE_DICTIONARY_UNAVAILABLE


# --- SendChat, ListLog -------------------------------------------------------------------------


@promise("MatchService.SendChat",
         "chat does not move game_seq; a repeated request_id returns the first answer; "
         "INVALID_ARGUMENT empty text")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    before = await a.view(mid)
    first = await a.chat(mid, "gl hf", request_id="chat-1")
    assert await a.chat(mid, "gl hf", request_id="chat-1") == first
    after = await a.view(mid)
    assert after.game_seq == before.game_seq and after.last_seq == before.last_seq + 1
    err = await refused(a.chat(mid, "   "), S.INVALID_ARGUMENT)
    assert detail(err, error_details_pb2.BadRequest).field_violations[0].field == "text"


@promise("MatchService.SendChat",
         "a spectator's message goes to the observers' channel: other spectators read it, players "
         "do not while the match runs, and do once it is over")
async def _(w: World) -> None:
    mid, (a, b) = await w.match()
    carol, dave = await w.guest(), await w.guest()
    sent = await carol.chat(mid, "nice move")
    assert sent.event.chat.observers and not sent.event.chat.HasField("seat")

    async def chat_log(g: Guest) -> list[str]:
        r = await g.match.ListLog(m.ListLogRequest(match_id=mid, channel=m.LOG_CHANNEL_CHAT), metadata=g.md)
        return [ev.chat.text for ev in r.events]

    assert await chat_log(dave) == ["nice move"] and await chat_log(a) == []
    await b.submit(mid, RESIGN)
    assert await chat_log(a) == ["nice move"]


@promise("MatchService.SendChat",
         "RESOURCE_EXHAUSTED with RetryInfo over the rate (a burst of 5, then 1 a second)")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    for k in range(5):
        await a.chat(mid, f"m{k}")
    err = await refused(a.chat(mid, "one too many"), S.RESOURCE_EXHAUSTED)
    assert detail(err, error_details_pb2.RetryInfo).retry_delay.ToTimedelta().total_seconds() > 0


@promise("MatchService.ListLog", "newest first, paged with next_page_token; INVALID_ARGUMENT bad page token")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    for text in ("one", "two", "three"):
        await a.chat(mid, text)
    page = await a.match.ListLog(m.ListLogRequest(match_id=mid, page_size=2), metadata=a.md)
    assert [ev.chat.text for ev in page.events] == ["three", "two"] and page.next_page_token
    rest = await a.match.ListLog(m.ListLogRequest(match_id=mid, page_size=2, page_token=page.next_page_token),
                                 metadata=a.md)
    assert [ev.chat.text for ev in rest.events] == ["one"] and not rest.next_page_token
    await refused(a.match.ListLog(m.ListLogRequest(match_id=mid, page_token="garbage"), metadata=a.md),
                  S.INVALID_ARGUMENT)


@promise("MatchService.ListLog",
         "a page token is for the request that got it: with another channel, match or page_size "
         "INVALID_ARGUMENT naming page_token")
async def _(w: World) -> None:
    mid, (a, _) = await w.match()
    other, _ = await w.match()  # a reads it as a spectator
    for text in ("one", "two", "three"):
        await a.chat(mid, text)
    first = m.ListLogRequest(match_id=mid, channel=m.LOG_CHANNEL_CHAT, page_size=2)
    token = (await a.match.ListLog(first, metadata=a.md)).next_page_token
    assert token
    changed = [m.ListLogRequest(match_id=mid, channel=m.LOG_CHANNEL_COMBAT, page_size=2),
               m.ListLogRequest(match_id=mid, channel=m.LOG_CHANNEL_UNSPECIFIED, page_size=2),
               m.ListLogRequest(match_id=other, channel=m.LOG_CHANNEL_CHAT, page_size=2),
               m.ListLogRequest(match_id=mid, channel=m.LOG_CHANNEL_CHAT, page_size=3)]
    for request in changed:
        request.page_token = token
        err = await refused(a.match.ListLog(request, metadata=a.md), S.INVALID_ARGUMENT)
        assert detail(err, error_details_pb2.BadRequest).field_violations[0].field == "page_token", request
    first.page_token = token  # the same request still pages on
    assert [ev.chat.text for ev in (await a.match.ListLog(first, metadata=a.md)).events] == ["one"]


# --- LeaveMatch, KickIdlePlayer ----------------------------------------------------------------


@promise("MatchService.LeaveMatch",
         "the match ends when fewer than two active seats remain; then FAILED_PRECONDITION "
         "GAME_OVER; PERMISSION_DENIED not seated")
async def _(w: World) -> None:
    mid, (a, b) = await w.match()
    outsider = await w.guest()
    await refused(outsider.match.LeaveMatch(m.LeaveMatchRequest(match_id=mid, request_id=rid()),
                                            metadata=outsider.md), S.PERMISSION_DENIED)
    r = await b.match.LeaveMatch(m.LeaveMatchRequest(match_id=mid, request_id=rid()), metadata=b.md)
    assert r.events[0].HasField("player_left") and r.events[-1].HasField("game_over")
    err = await refused(a.match.LeaveMatch(m.LeaveMatchRequest(match_id=mid, request_id=rid()),
                                           metadata=a.md), S.FAILED_PRECONDITION)
    assert rule(err) == e.RULE_CODE_GAME_OVER


@promise("MatchService.KickIdlePlayer",
         "FAILED_PRECONDITION KICK_TOO_EARLY with retry_after, KICK_NOT_ALLOWED for one's own seat; "
         "PERMISSION_DENIED caller not an active player")
async def _(w: World) -> None:
    mid, (a, b) = await w.match()
    kick_a = m.KickIdlePlayerRequest(match_id=mid, request_id=rid(), seat=0)
    err = await refused(b.match.KickIdlePlayer(kick_a, metadata=b.md), S.FAILED_PRECONDITION)
    violation = detail(err, e.RuleViolation)
    assert violation.code == e.RULE_CODE_KICK_TOO_EARLY and violation.HasField("retry_after")
    own = m.KickIdlePlayerRequest(match_id=mid, request_id=rid(), seat=0)
    err = await refused(a.match.KickIdlePlayer(own, metadata=a.md), S.FAILED_PRECONDITION)
    assert rule(err) == e.RULE_CODE_KICK_NOT_ALLOWED
    outsider = await w.guest()
    await refused(outsider.match.KickIdlePlayer(m.KickIdlePlayerRequest(match_id=mid, request_id=rid(),
                                                                        seat=0), metadata=outsider.md),
                  S.PERMISSION_DENIED)


# --- GetMatchRecord ----------------------------------------------------------------------------


@promise("MatchService.GetMatchRecord",
         "a running match's record has no rack, for players and spectators; a finished one every rack")
async def _(w: World) -> None:
    mid, (a, b) = await w.match()
    await a.submit(mid, PASS)
    spectator = await w.guest()
    for g in (a, b, spectator):
        r = await g.match.GetMatchRecord(m.GetMatchRecordRequest(match_id=mid), metadata=g.md)
        assert r.status == m.MATCH_STATUS_IN_PROGRESS and not r.racks_shown
        moves = [line.split() for line in r.gcg.splitlines() if line.startswith(">")]
        assert moves == [[f">{a.name}:", "-", "+0", "0"]], moves  # a pass, and no rack
    await b.submit(mid, RESIGN)
    r = await spectator.match.GetMatchRecord(m.GetMatchRecordRequest(match_id=mid), metadata=spectator.md)
    assert r.racks_shown and r.status == m.MATCH_STATUS_FINISHED and "#seed" in r.gcg


@promise("MatchService.GetMatchRecord",
         "NOT_FOUND unknown match; PERMISSION_DENIED NOT_YOUR_SEAT outside a match without spectators")
async def _(w: World) -> None:
    mid, _ = await w.match(spectators=False)
    outsider = await w.guest()
    await refused(outsider.match.GetMatchRecord(m.GetMatchRecordRequest(match_id="nope"),
                                                metadata=outsider.md), S.NOT_FOUND)
    err = await refused(outsider.match.GetMatchRecord(m.GetMatchRecordRequest(match_id=mid),
                                                      metadata=outsider.md), S.PERMISSION_DENIED)
    assert rule(err) == e.RULE_CODE_NOT_YOUR_SEAT


