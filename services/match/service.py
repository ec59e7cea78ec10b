"""gRPC servicer of the match server's MatchService (players; MatchControlService is in ``control``).

Every RPC authenticates the bearer token first (``services.common.authn``: UNAUTHENTICATED
otherwise), binds ``match_id`` / ``player_id`` / ``request_id`` to the log context, and turns
``ServiceError`` into a rich ``google.rpc.Status`` (``services.common.errors.rpc``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

import grpc

from wordarena.engine.analysis.tilebag import tile_bag
from wordarena.engine.errors import EngineError
from wordarena.engine.game import Decide, Kick, Leave
from wordarena.engine.rulesets.model import WordCheck
from wordarena.engine.tiles import is_letter_token
from wordarena.services.common import auth, logs, paging
from wordarena.services.common.authn import BearerAuth
from wordarena.services.common.errors import ServiceError, invalid_argument, rpc
from wordarena.services.common.request_ids import check_request_id
from wordarena.services.common.text import shown_text
from wordarena.services.match import (
    access,
    analysis,
    chat,
    messages,
    metrics,
    moves,
    projection,
    records,
    streams,
    wallclock,
    wire,
)
from wordarena.services.match import define as wordnet
from wordarena.services.match.creation import check_match_id
from wordarena.services.match.manager import MatchManager
from wordarena.services.match.orphans import note_call
from wordarena.services.match.quotas import AnalysisQuota
from wordarena.services.match.runtime import Runtime, SeatInfo
from wordarena.services.match.store import StoredEvent
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m
from wordarena.v1 import match_pb2_grpc as m_grpc

log = logs.get_logger(__name__)
R = TypeVar("R")


class MatchServicer(m_grpc.MatchServiceServicer):
    """MatchService."""

    def __init__(self, manager: MatchManager, authn: BearerAuth, quota: AnalysisQuota) -> None:
        self.manager, self.authn, self.quota = manager, authn, quota

    # --- helpers -------------------------------------------------------------------------

    async def _match(self, request: Any, context: grpc.aio.ServicerContext) -> tuple[Runtime, auth.Claims]:
        claims = self.authn.claims(context)
        check_match_id(request.match_id)  # nothing that cannot be an id reaches the database
        if request.match_id not in self.manager.matches:
            await access.may_load(self.manager.store, request.match_id, claims.player_id)
        rt = await self.manager.get(request.match_id)
        note_call(rt, claims.player_id, wallclock.now())
        return rt, claims

    @staticmethod
    def _viewer(
        rt: Runtime, claims: auth.Claims, seat: int | None, *, spectate: bool
    ) -> tuple[int | None, list[int]]:
        return access.viewer(rt, claims.player_id, seat, spectate=spectate)

    @staticmethod
    def _seat_arg(request: Any) -> int | None:
        return request.seat if request.HasField("seat") else None

    def _acting_seat(self, rt: Runtime, claims: auth.Claims, seat: int | None) -> int:
        return access.acting_seat(rt, claims.player_id, seat)

    def _events(self, rt: Runtime, events: list[StoredEvent], viewer: int | None) -> list[c.Event]:
        return [wire.project(rt, ev, viewer) for ev in events]

    async def _turn(self, rt: Runtime, claims: auth.Claims, seat: int, action: Any, request_id: str,
                    expected_seq: int | None, method: str, build: Callable[[list[StoredEvent]], Any]) -> Any:
        t0 = time.perf_counter()
        result = await self.manager.play(
            rt,
            action,
            player_id=claims.player_id,
            request_id=request_id,
            method=method,
            expected_seq=expected_seq,
            build=build,
        )
        metrics.TURN_SECONDS.observe(time.perf_counter() - t0)
        stored = rt.requests.get((claims.player_id, request_id))
        if stored is not None and not isinstance(result, tuple):
            return ("repeat", stored[1])  # the answer as stored, serialized once (``_answer``)
        return result

    # --- RPCs ----------------------------------------------------------------------------

    @rpc
    async def GetMatch(self, request: m.GetMatchRequest, context: Any) -> m.GetMatchResponse:
        rt, claims = await self._match(request, context)
        viewer, controlled = self._viewer(rt, claims, self._seat_arg(request), spectate=True)
        return m.GetMatchResponse(match=projection.match_view(rt, viewer, controlled))

    @rpc
    async def StreamMatch(self, request: m.StreamMatchRequest, context: Any) -> None:
        rt, claims = await self._match(request, context)
        viewer, _ = self._viewer(rt, claims, self._seat_arg(request), spectate=True)
        if not 0 <= request.after_seq <= rt.seq:
            raise invalid_argument("after_seq", f"must be 0..{rt.seq} (the latest seq)")
        backlog, sub = streams.subscribe(rt.subscribers, rt.events, viewer, request.after_seq,
                                         self.manager.stream_queue)
        last = request.after_seq
        err: ServiceError | None = None

        async def send(ev: StoredEvent | c.Event) -> bool:
            """Writes one event; False when the reader is to be cut off."""
            nonlocal last
            # A stored event goes out as its public bytes, serialized once (a seat: its rack after them).
            msg = m.StreamMatchResponse(event=ev) if isinstance(ev, c.Event) \
                else wire.stream_message(rt, ev, viewer)
            taken = await streams.deliver(context, sub, msg)
            if not isinstance(ev, c.Event):
                last = ev.seq  # a held write still goes out before the status
            return taken

        try:
            for ev in backlog:
                if not chat.shown_to(rt, ev, viewer):
                    continue
                if not await send(ev):
                    break
                if ev.kind == "game-over":
                    return
            if rt.state.over:  # the client has the GameOver already: nothing can follow it
                return
            while True:
                if sub.overflowed:
                    metrics.STREAM_CUTOFFS.inc()
                    if not await streams.cut_off(rt.subscribers, sub):
                        return  # the client went away meanwhile: nobody to tell
                    err = ServiceError(
                        grpc.StatusCode.RESOURCE_EXHAUSTED,
                        f"stream cut off: reading too slowly; resume with after_seq={last}",
                        e.StreamCutOff(last_delivered_seq=last),
                    )
                    break
                try:
                    item = await streams.next_item(sub, self.manager.heartbeat_seconds)
                except TimeoutError:
                    hb = c.Event(seq=rt.seq, time=messages.timestamp(wallclock.now()),
                                 heartbeat=c.Heartbeat())
                    await send(hb)
                    continue
                if item is None:
                    if sub.overflowed:
                        continue
                    err = sub.closed_error or ServiceError(
                        grpc.StatusCode.UNAVAILABLE,
                        sub.closed_reason or "stream closed",
                        e.MatchMoved(match_id=rt.match_id),
                    )
                    break
                if item.seq <= last or not chat.shown_to(rt, item, viewer):
                    continue
                await send(item)
                if item.kind == "game-over":
                    return
        finally:
            streams.unsubscribe(rt.subscribers, sub)
        if err is not None:
            raise err

    @rpc
    async def SubmitTurn(self, request: m.SubmitTurnRequest, context: Any) -> m.SubmitTurnResponse:
        rt, claims = await self._match(request, context)
        check_request_id(request.request_id)
        seat = self._acting_seat(rt, claims, self._seat_arg(request))
        action = moves.action_of(rt.state, seat, request.move)

        def build(events: list[StoredEvent]) -> bytes:
            # The answer serialized (a SubmitTurnResponse), from the bytes of the events that
            # the seat's own stream sends too (``wire.turn_answer``).
            after = events[-1].event.after if events else None
            rack = after.racks[seat] if after is not None else rt.state.racks[seat]
            return wire.turn_answer(rt, events, seat, rt.seq + len(events),
                                          messages.rack(rt.ruleset, list(rack),
                                                     after.irradiated if after is not None
                                                     else rt.state.irradiated))

        result = await self._turn(
            rt, claims, seat, action, request.request_id, moves.expected_seq_of(request), "SubmitTurn", build
        )
        return _answer(result, m.SubmitTurnResponse)

    @rpc
    async def DecidePending(self, request: m.DecidePendingRequest, context: Any) -> m.DecidePendingResponse:
        rt, claims = await self._match(request, context)
        check_request_id(request.request_id)
        seat = self._acting_seat(rt, claims, self._seat_arg(request))
        if request.decision not in (m.DECISION_ACCEPT, m.DECISION_CHECK):
            raise invalid_argument("decision", "DECISION_ACCEPT or DECISION_CHECK")
        action = Decide(seat, request.decision == m.DECISION_ACCEPT)

        def build(events: list[StoredEvent]) -> m.DecidePendingResponse:
            return m.DecidePendingResponse(
                events=self._events(rt, events, seat), last_seq=rt.seq + len(events)
            )

        result = await self._turn(
            rt, claims, seat, action, request.request_id, moves.expected_seq_of(request), "DecidePending",
            build
        )
        return _answer(result, m.DecidePendingResponse)

    @rpc
    async def PreviewPlay(self, request: m.PreviewPlayRequest, context: Any) -> m.PreviewPlayResponse:
        rt, claims = await self._match(request, context)
        seat = self._acting_seat(rt, claims, self._seat_arg(request))
        shifts = moves.effect_moves_of(rt.state, request.effect_moves, request.placements,
                                       "effect_moves")
        placements = moves.placements_of(rt.ruleset, request.placements)
        return analysis.preview_response(rt.state, seat, placements, shifts)

    def _pending_word(self, player_id: str, word: str) -> bool:
        """Whether ``word`` is a word of a play waiting for accept-or-check in a running match
        of this server where ``player_id`` holds a seat."""
        return any(
            rt.state.pending is not None and not rt.state.over and rt.controlled_seats(player_id)
            and word in (w.upper() for w in rt.state.pending.words)
            for rt in self.manager.matches.values()
        )

    @staticmethod
    def _unavailable(what: str, why: str) -> ServiceError:
        return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, f"{what} is not available here: {why}",
                            messages.violation(e.RULE_CODE_FEATURE_UNAVAILABLE, f"{what} unavailable: {why}"))

    async def _analyse(self, use: str, fn: Callable[..., R], *args: Any) -> R:
        try:
            return await self.manager.run_blocking(use, fn, *args)
        except EngineError as exc:
            raise invalid_argument("placements", str(exc)) from exc

    @rpc
    async def Hindsight(self, request: m.HindsightRequest, context: Any) -> m.HindsightResponse:
        rt, claims = await self._match(request, context)
        if not 0 <= request.limit <= analysis.MAX_HINDSIGHT:
            raise invalid_argument("limit", f"1..{analysis.MAX_HINDSIGHT} (0 = 1)")
        if request.turn_seq < 0:
            raise invalid_argument("turn_seq", "an event seq of a turn, or 0 for your latest turn")
        over = rt.state.over
        viewer, controlled = self._viewer(rt, claims, self._seat_arg(request), spectate=over)
        if rt.state.lexicon is None:
            raise self._unavailable("Hindsight", "this match has no word list")
        if rt.state.pending is not None:
            # Best plays found with the word list would tell whether the pending play's words
            # are good before anyone has accepted or checked them.
            raise _pending_oracle("Hindsight waits until the pending play is accepted or checked")
        events = list(rt.events)
        turn = analysis.find_turn(events, -1 if viewer is None else viewer, request.turn_seq)
        if turn is None:
            which = (f"seq {request.turn_seq} is not a turn" if request.turn_seq
                     else "you have not played a turn yet")
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"nothing to analyse: {which}",
                messages.violation(e.RULE_CODE_NO_TURN_TO_ANALYSE, which),
            )
        if not over and analysis.turn_seat(turn) not in controlled:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "another seat's turns can be analysed only once the match is over",
                messages.violation(e.RULE_CODE_NOT_YOUR_SEAT, "not your turn to analyse"),
            )
        limit = request.limit or 1
        with self.quota.admit(claims.player_id, request.by_simulation):
            out, state = await self._analyse("hindsight", analysis.hindsight_response, events, turn,
                                             limit, self.manager.lexicon_for)
            if request.by_simulation:  # seconds of Python: in a bot worker, off the loop's GIL
                out.simulated.extend(await self.manager.bot_workers.run(
                    "hindsight_simulation", analysis.simulated_plays, state, analysis.turn_seat(turn),
                    limit))
        return out

    @rpc
    async def WordStrength(self, request: m.WordStrengthRequest, context: Any) -> m.WordStrengthResponse:
        rt, claims = await self._match(request, context)
        seat = self._acting_seat(rt, claims, self._seat_arg(request))
        placements = moves.placements_of(rt.ruleset, request.placements)
        state = rt.state
        if state.lexicon is None:
            raise self._unavailable("Word Strength", "this match has no word list")
        if rt.ruleset.word_check is not WordCheck.IMMEDIATE and not state.over:
            raise self._unavailable(
                "Word Strength", "words are judged by accept-or-check while the match runs"
            )
        with self.quota.admit(claims.player_id):
            return await self._analyse("word_strength", analysis.word_strength_response, state, seat,
                                       placements)

    @rpc
    async def TileBag(self, request: m.TileBagRequest, context: Any) -> m.TileBagResponse:
        rt, claims = await self._match(request, context)
        seat = self._acting_seat(rt, claims, self._seat_arg(request))
        st = rt.state
        counts = tile_bag(st, seat)  # the bag, other racks and what lies under clouds
        opp = sum(len(rack) for i, rack in enumerate(st.racks) if i != seat)
        out = m.TileBagResponse(
            bag_count=len(st.bag), opponent_rack_count=opp, unseen_count=sum(counts.values())
        )
        for token in sorted(counts, key=lambda t: (not is_letter_token(t), t)):
            tile = messages.irradiate(messages.tile(rt.ruleset, token), st.irradiated)
            out.unseen.append(c.TileCount(tile=tile, count=counts[token]))
        return out

    @rpc
    async def Define(self, request: m.DefineRequest, context: Any) -> m.DefineResponse:
        claims = self.authn.claims(context)
        word = request.word.strip()
        if not word or len(word) > 32 or not word.isalpha():
            raise invalid_argument("word", "1..32 letters")
        if self._pending_word(claims.player_id, word.upper()):
            raise _pending_oracle(f"{word.upper()} is a word of a pending play: it can be looked up "
                                  "once the play is accepted or checked")
        if (request.language or "en").split("-")[0] != "en":
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"no dictionary is installed for {request.language!r}",
                messages.violation(e.RULE_CODE_DICTIONARY_UNAVAILABLE, "no dictionary"),
            )
        try:
            senses = await asyncio.to_thread(wordnet.define, word)
        except LookupError as exc:
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION,
                str(exc),
                messages.violation(e.RULE_CODE_DICTIONARY_UNAVAILABLE, str(exc)),
            ) from exc
        if not senses:
            raise ServiceError(grpc.StatusCode.NOT_FOUND, f"{word.upper()} is not in {wordnet.SOURCE}")
        return m.DefineResponse(
            word=word.upper(),
            source=wordnet.SOURCE,
            definitions=[m.Definition(part_of_speech=p, text=t, examples=ex) for p, t, ex in senses],
        )

    @rpc
    async def SendChat(self, request: m.SendChatRequest, context: Any) -> m.SendChatResponse:
        rt, claims = await self._match(request, context)
        check_request_id(request.request_id)
        try:
            text = shown_text(request.text)
        except ValueError as exc:
            raise invalid_argument("text", str(exc)) from exc
        if len(text) > chat.MAX_CHAT:
            raise invalid_argument("text", f"1..{chat.MAX_CHAT} characters")
        controlled = rt.controlled_seats(claims.player_id)
        # A spectator (where the match allows them) posts to the observers' channel.
        seat = controlled[0] if controlled else self._viewer(rt, claims, None, spectate=True)[0]

        def build(events: list[StoredEvent]) -> m.SendChatResponse:
            return m.SendChatResponse(event=wire.project(rt, events[0], seat))

        result = await self.manager.chat(
            rt, seat, player_id=claims.player_id, name=claims.display_name, text=text,
            request_id=request.request_id, build=build
        )
        return _answer(result, m.SendChatResponse)

    @rpc
    async def ListLog(self, request: m.ListLogRequest, context: Any) -> m.ListLogResponse:
        rt, claims = await self._match(request, context)
        viewer, _ = self._viewer(rt, claims, None, spectate=True)
        chat.check_reader(rt, viewer)
        size = 50 if request.page_size <= 0 else min(request.page_size, 200)
        # A token is good only with the request that got it (match, channel, page size).
        key = paging.request_key(rt.match_id, request.channel, request.page_size)
        before = paging.token_position(request.page_token, key) if request.page_token else rt.seq + 1
        if before is None:
            raise invalid_argument("page_token", "not a token from a previous page of this request")
        kinds = {m.LOG_CHANNEL_CHAT: {"chat"}, m.LOG_CHANNEL_COMBAT: {"effect"}}.get(
            request.channel, {"chat", "effect"}
        )
        picked = [ev for ev in reversed(rt.events[: max(before - 1, 0)])
                  if ev.kind in kinds and chat.shown_to(rt, ev, viewer)]
        page = picked[:size]
        out = m.ListLogResponse(events=[wire.project(rt, ev, viewer) for ev in page])
        if len(picked) > size:
            out.next_page_token = paging.page_token(key, page[-1].seq)
        return out

    @rpc
    async def LeaveMatch(self, request: m.LeaveMatchRequest, context: Any) -> m.LeaveMatchResponse:
        rt, claims = await self._match(request, context)
        check_request_id(request.request_id)
        seat = self._acting_seat(rt, claims, self._seat_arg(request))

        def build(events: list[StoredEvent]) -> m.LeaveMatchResponse:
            projected = self._events(rt, events, seat)
            loss = any(p.HasField("player_left") and p.player_left.counts_as_loss for p in projected)
            return m.LeaveMatchResponse(events=projected, counts_as_loss=loss)

        result = await self._turn(
            rt, claims, seat, Leave(seat), request.request_id, None, "LeaveMatch", build
        )
        return _answer(result, m.LeaveMatchResponse)

    @rpc
    async def KickIdlePlayer(
        self, request: m.KickIdlePlayerRequest, context: Any
    ) -> m.KickIdlePlayerResponse:
        rt, claims = await self._match(request, context)
        check_request_id(request.request_id)
        controlled = [s for s in rt.controlled_seats(claims.player_id) if rt.state.seats[s].value == "active"]
        if not controlled:
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "only an active player may kick")
        if not 0 <= request.seat < len(rt.seats):
            raise invalid_argument("seat", f"must be 0..{len(rt.seats) - 1}")
        # Who may kick whom and when is the core's (``core.decide``): a seat of the caller's own,
        # pass-and-play, a seat not to move, or one not idle long enough is refused there.
        by = request.seat if request.seat in controlled else controlled[0]

        def build(events: list[StoredEvent]) -> m.KickIdlePlayerResponse:
            return m.KickIdlePlayerResponse(events=self._events(rt, events, by))

        result = await self._turn(
            rt, claims, by, Kick(request.seat, by), request.request_id, None, "KickIdlePlayer", build
        )
        return _answer(result, m.KickIdlePlayerResponse)


    @rpc
    async def GetMatchRecord(
        self, request: m.GetMatchRecordRequest, context: Any
    ) -> m.GetMatchRecordResponse:
        if self.authn.service_caller(context) is not None:  # the lobby: finished matches only
            rt = await self.manager.get(request.match_id)
            if not rt.state.over:
                raise ServiceError(grpc.StatusCode.PERMISSION_DENIED,
                                   "a service may read the record of a finished match only")
            return records.record_response(rt)
        rt, claims = await self._match(request, context)
        self._viewer(rt, claims, None, spectate=True)  # players, and spectators where allowed
        return records.record_response(rt)


def _answer(result: Any, cls: type[R]) -> R:
    """The answer of a request stored under its request id: a repeated request gets the first
    answer's stored bytes, sent as they are (the RPC's serializer passes ``bytes`` through,
    ``metrics.instrument``), so nothing is parsed to be serialized again."""
    if isinstance(result, tuple) and result and result[0] == "repeat":
        return result[1]  # type: ignore[no-any-return]
    return result  # type: ignore[no-any-return]


__all__ = ["MatchServicer", "SeatInfo"]


def _pending_oracle(message: str) -> ServiceError:
    """A Word Tiles analysis refused while a play waits for accept-or-check: it would be an
    oracle for the words the next player must judge."""
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, message,
                        messages.violation(e.RULE_CODE_DECISION_PENDING, message))
