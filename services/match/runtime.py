"""One match in memory: its engine state rebuilt from the log, its stored events, clocks,
subscribers, and the projection of its events and state for a viewer."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from wordarena.engine.game import GameState, Seat
from wordarena.engine.rulesets.model import Ruleset
from wordarena.services.match import results, views
from wordarena.services.match.store import StoredEvent
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m

HEARTBEAT = object()


@dataclass(slots=True)
class SeatInfo:
    """Who sits at a seat."""

    player_id: str
    display_name: str
    guest: bool = False
    bot: bool = False
    bot_level: int = 0

    def to_pb(self) -> c.Player:
        return c.Player(player_id=self.player_id, display_name=self.display_name, guest=self.guest,
                        bot=self.bot, bot_level=self.bot_level)

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "display_name": self.display_name, "guest": self.guest,
                "bot": self.bot, "bot_level": self.bot_level}


@dataclass(slots=True)
class Options:
    """Match options as stored (JSON)."""

    challenge_mode: int = 0
    per_player_seconds: float = 0.0  # 0 = untimed
    idle_kick_seconds: float = 3 * 86400.0
    pass_and_play: bool = False
    unrated: bool = False
    spectators_allowed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}  # type: ignore[attr-defined]

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Options:
        return cls(**{k: d[k] for k in cls.__slots__ if k in d})  # type: ignore[attr-defined]

    def to_pb(self) -> c.MatchOptions:
        o = c.MatchOptions(challenge_mode=self.challenge_mode,  # type: ignore[arg-type]
                           pass_and_play=self.pass_and_play, unrated=self.unrated,
                           spectators_allowed=self.spectators_allowed)
        if self.per_player_seconds:
            o.clock.per_player.CopyFrom(views.duration(self.per_player_seconds))
        o.clock.idle_kick_after.CopyFrom(views.duration(self.idle_kick_seconds))
        return o


class Subscriber:
    """A StreamMatch consumer: a bounded queue of stored events."""

    def __init__(self, viewer: int | None, size: int) -> None:
        self.viewer = viewer
        self.queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=size)
        self.overflowed = False
        self.closed_reason: str | None = None
        #: The status the stream ends with when closed (None: UNAVAILABLE + MatchMoved).
        self.closed_error: Any = None

    def push(self, item: Any) -> None:
        if self.overflowed:
            return
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            self.overflowed = True

    def close(self, reason: str, error: Any = None) -> None:
        """End the stream (drain / lost ownership: UNAVAILABLE; or ``error``, a ``ServiceError``,
        e.g. the match was aborted); wakes the consumer."""
        self.closed_reason = reason
        self.closed_error = error
        try:
            self.queue.put_nowait(None)
        except asyncio.QueueFull:
            self.overflowed = True


@dataclass
class Runtime:
    """A live match owned by this server."""

    match_id: str
    ruleset: Ruleset
    seats: list[SeatInfo]
    options: Options
    created_at: float
    state: GameState
    events: list[StoredEvent]
    status: str = "in-progress"
    ended_at: float | None = None
    requests: dict[tuple[str, str], tuple[str, bytes]] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subscribers: set[Subscriber] = field(default_factory=set)
    placed_seq: dict[int, int] = field(default_factory=dict)
    clocks: list[float] | None = None  # remaining seconds per seat at ``turn_start``
    turn_start: float = 0.0  # wall time when the seat to move began its turn
    last_move: list[float] = field(default_factory=list)
    timer: asyncio.Task[None] | None = None
    bot_task: asyncio.Task[None] | None = None

    @property
    def seq(self) -> int:
        return len(self.events)

    # --- who is who ----------------------------------------------------------------------

    def controlled_seats(self, player_id: str) -> list[int]:
        """Seats the player may act for (several in pass-and-play)."""
        return [i for i, s in enumerate(self.seats) if not s.bot and s.player_id == player_id]

    def bot_seat(self, seat: int) -> bool:
        return self.seats[seat].bot

    # --- clocks --------------------------------------------------------------------------

    def clock_remaining(self, seat: int, now: float | None = None) -> float | None:
        """Seconds left on ``seat``'s clock now (None when untimed)."""
        if self.clocks is None:
            return None
        left = self.clocks[seat]
        if not self.state.over and seat == self.state.to_move and self.status == "in-progress":
            left -= (time.time() if now is None else now) - self.turn_start
        return max(left, 0.0)

    def charged_clocks(self, now: float) -> list[float] | None:
        """Clocks after charging the seat to move for the time since its turn began."""
        if self.clocks is None:
            return None
        out = list(self.clocks)
        if not self.state.over:
            out[self.state.to_move] = max(out[self.state.to_move] - (now - self.turn_start), 0.0)
        return out

    # --- projections ---------------------------------------------------------------------

    def seat_pb(self, i: int, after: dict[str, Any], at: float) -> c.Seat:
        r = self.ruleset
        per = r.exchange.per_player
        ex = after.get("exchanges") or [0] * len(self.seats)
        s = c.Seat(index=i, player=self.seats[i].to_pb(),
                   status=views.SEAT_STATUS.get(after["seats"][i], 0),  # type: ignore[arg-type]
                   score=after["scores"][i], rack_count=after["rack_sizes"][i],
                   exchanges_left=-1 if per is None else max(per - ex[i], 0))
        clocks = after.get("clocks")
        if clocks is not None:
            s.clock.remaining.CopyFrom(views.duration(clocks[i]))
            s.clock.running = after.get("to_move") == i
            s.clock.as_of.CopyFrom(views.timestamp(at))
        return s

    def project(self, ev: StoredEvent, viewer: int | None) -> c.Event:
        """A stored event as ``viewer`` (a seat, or None for spectators) may see it."""
        r = self.ruleset
        out = c.Event(seq=ev.seq, time=views.timestamp(ev.time))
        p = ev.payload
        after = p.get("after")
        if ev.kind == "chat":
            chat = p["chat"]
            msg = c.ChatMessage(sender=c.Player(player_id=chat["player_id"], display_name=chat["name"]),
                                text=chat["text"])
            if chat.get("seat") is not None:
                msg.seat = chat["seat"]
            out.chat.CopyFrom(msg)
            return out
        assert after is not None
        out.turn_number = after["turn"]
        if after.get("to_move") is not None:
            out.to_move_seat = after["to_move"]
        out.scores.extend(after["scores"])
        out.bag_count = after["bag"]
        if viewer is not None and (viewer in after.get("rack_changed", ()) or ev.kind == "match-started"):
            out.viewer_rack.CopyFrom(views.rack(r, after["racks"][viewer]))
        pending = set(after.get("pending") or ())
        wow = p.get("wow")  # War of Words: what the clouds hide (``_wow_board``)
        if wow is not None:
            out.board_changes.extend(self._wow_board(ev, wow))
        for entry in p.get("board", ()) if wow is None else ():
            index = entry[0]
            if len(entry) > 1:
                from wordarena.engine.tiles import Tile

                cell = Tile(entry[1], bool(entry[2]), int(entry[3]))
                out.board_changes.append(views.board_square(r, index, cell, entry[4] if len(entry) > 4
                                                            else ev.seq, index in pending))
            else:
                out.board_changes.append(views.board_square(r, index, None))
        engine_events = p.get("engine", [])
        head = engine_events[0] if engine_events else {"type": "", "seat": None, "data": {}}
        data = head["data"]
        seat = head.get("seat")
        kind = ev.kind
        if kind == "match-started":
            board = views.board_view(r, self.empty_cells(), {}, set())
            if wow is not None:
                for i in wow["hidden"]:
                    board.squares[i].CopyFrom(views.live_square(r, i, r.board.squares[i], None,
                                                                hidden=True))
                board.clouds.extend(views.cloud_pb(r, ctr) for ctr in wow.get("clouds", ()))
            started = c.MatchStarted(ruleset=views.ruleset_ref(r), options=self.options.to_pb(),
                                     first_seat=0, bonus_letter=data.get("bonus_letter") or "",
                                     board=board)
            for i in range(len(self.seats)):
                started.seats.append(self.seat_pb(i, after, ev.time))
            out.match_started.CopyFrom(started)
        elif kind in ("turn-played", "play-accepted", "play-checked"):
            drawn = next((e for e in engine_events if e["type"] == "tiles-drawn"), None)
            drawn_count = drawn["data"]["count"] if drawn else 0
            if kind == "turn-played":
                turn = self._turn_played(seat, data, drawn_count)
                if wow is not None:
                    views.redact_play(turn, r, set(wow["veiled"]), bool(wow.get("touched")))
                out.turn_played.CopyFrom(turn)
            elif kind == "play-accepted":
                out.play_accepted.CopyFrom(c.PlayAccepted(seat=data["by"], decider_seat=seat,
                                                          points=data["score"]))
            else:
                held = bool(data.get("held"))
                out.play_checked.CopyFrom(c.PlayChecked(
                    seat=data["by"], checker_seat=seat,
                    result=c.CHECK_RESULT_HELD if held else c.CHECK_RESULT_FAILED,
                    invalid_words=data.get("invalid_words", []), points=data.get("score", 0) if held else 0))
        elif kind == "play-pending":
            out.play_pending.CopyFrom(c.PlayPending(
                seat=seat, placements=views.placements(r, data["placed"]),
                breakdown=views.breakdown(r, data["breakdown"], len(data["placed"])),
                decider_seat=after.get("to_move") or 0))
        elif kind == "turn-passed":
            out.turn_passed.CopyFrom(c.TurnPassed(seat=seat, scoreless_turns=after.get("zero_run", 0)))
        elif kind == "tiles-exchanged":
            per = r.exchange.per_player
            left = -1 if per is None else max(per - after["exchanges"][seat], 0)
            te = c.TilesExchanged(seat=seat, count=data["count"], exchanges_left=left)
            if viewer == seat:
                te.returned.extend(views.tile(r, t) for t in data["private"]["returned"])
            out.tiles_exchanged.CopyFrom(te)
        elif kind in ("resigned", "left"):
            counts = not (self.options.unrated or self.options.pass_and_play) and not (
                r.family == "warofwords" and data.get("first_round"))
            out.player_left.CopyFrom(c.PlayerLeft(
                seat=seat, kind=c.LEAVE_KIND_RESIGNED if kind == "resigned" else c.LEAVE_KIND_LEFT,
                counts_as_loss=counts))
        elif kind == "timed-out":
            out.player_timed_out.CopyFrom(c.PlayerTimedOut(seat=seat))
        elif kind == "kicked":
            out.player_kicked.CopyFrom(c.PlayerKicked(seat=seat, by_seat=data.get("by", 0),
                                                      idle_for=views.duration(p.get("idle_for", 0.0))))
        elif kind == "game-over":
            out.game_over.CopyFrom(self.game_over_pb(data, after))
        elif kind == "effect":
            out.effect.CopyFrom(views.effect_pb(r, seat, data, set(wow["veiled"]) if wow else set()))
        return out

    def _turn_played(self, seat: int, data: dict[str, Any], drawn: int) -> c.TurnPlayed:
        r = self.ruleset
        tiles = len(data["placed"]) + len(data.get("actions", ()))
        bd = views.breakdown(r, data["breakdown"], tiles)
        out = c.TurnPlayed(seat=seat, placements=views.placements(r, data["placed"]), breakdown=bd,
                           points=data["score"], drawn_count=drawn,
                           notation=views.notation(r, data["placed"], data["across"], data["words"]))
        for action in data.get("actions", ()):  # War of Words: [index, token, facing?]
            kind, factor = views.action_kind(action[1])
            pl = c.Placement(square=views.square(r, int(action[0])), action=kind,  # type: ignore[arg-type]
                             action_factor=factor)
            if len(action) > 2:
                pl.facing = views.FACING_PB.get(action[2], 0)  # type: ignore[assignment]
            out.placements.append(pl)
        return out

    def _wow_board(self, ev: StoredEvent, wow: dict[str, Any]) -> list[c.BoardSquare]:
        """A War of Words event's board changes. "You can't see under clouds": a square under
        a cloud after the event is sent as ``hidden`` and nothing else."""
        from wordarena.engine.rulesets.layout import Square
        from wordarena.engine.tiles import Tile

        r = self.ruleset
        hidden = set(wow["hidden"])
        out = []
        for entry in ev.payload.get("board", ()):
            index = entry[0]
            got = wow["squares"].get(str(index))
            sq = Square(*got) if got is not None else r.board.squares[index]
            cell = Tile(entry[1], bool(entry[2]), int(entry[3])) if len(entry) > 1 else None
            out.append(views.live_square(r, index, sq, cell, entry[4] if len(entry) > 4 else ev.seq,
                                         index in hidden))
        return out

    def game_over_pb(self, data: dict[str, Any], after: dict[str, Any]) -> c.GameOver:
        r = self.ruleset
        winners = list(data["winners"])
        scores, adj = data["scores"], data["adjustments"]
        go = c.GameOver(reason=views.REASONS.get(data["reason"], 0), winner_seats=winners)  # type: ignore[arg-type]
        outcomes = results.seat_outcomes(r.family, after["seats"], winners, data["reason"],
                                         after.get("first_round_left") or ())
        for i in range(len(self.seats)):
            outcome = outcomes[i]
            fs = c.FinalScore(seat=i, score_before=scores[i] - adj[i],
                              rack_penalty=min(adj[i], 0), rack_bonus=max(adj[i], 0),
                              final_score=scores[i], outcome=outcome)  # type: ignore[arg-type]
            fs.remaining_rack.extend(views.tile(r, t) for t in data.get("racks", [[]] * len(self.seats))[i])
            go.final_scores.append(fs)
        return go

    def empty_cells(self) -> tuple[None, ...]:
        return (None,) * (self.ruleset.board.rows * self.ruleset.board.cols)

    def after_snapshot(self) -> dict[str, Any]:
        """The state's public and private summary stored with an event."""
        st = self.state
        return {
            "scores": list(st.scores), "to_move": None if st.over else st.to_move, "bag": len(st.bag),
            "turn": st.turn, "zero_run": st.zero_run, "rack_sizes": [len(r) for r in st.racks],
            "seats": [s.value for s in st.seats], "exchanges": list(st.exchanges) or [0] * st.players,
            "racks": [list(r) for r in st.racks],
            "pending": [i for i, _ in st.pending.geometry.placed] if st.pending else [],
        }

    def view(self, viewer: int | None, controlled: list[int]) -> m.MatchView:
        """GetMatch: the current state as ``viewer`` sees it."""
        st, r = self.state, self.ruleset
        now = time.time()
        v = m.MatchView(match_id=self.match_id, ruleset=views.ruleset_ref(r), options=self.options.to_pb(),
                        status=m.MATCH_STATUS_FINISHED if st.over else m.MATCH_STATUS_IN_PROGRESS,
                        last_seq=self.seq, controlled_seats=controlled, bag_count=len(st.bag),
                        turn_number=st.turn + 1, scoreless_turns=st.zero_run,
                        bonus_letter=st.bonus_letter or "", create_time=views.timestamp(self.created_at))
        if viewer is not None:
            v.viewer_seat = viewer
            v.rack.CopyFrom(views.rack(r, st.racks[viewer]))
        after = self.after_snapshot()
        if self.clocks is not None:
            after["clocks"] = [self.clock_remaining(i, now) for i in range(st.players)]
        for i in range(st.players):
            s = self.seat_pb(i, after, now)
            moved = self.last_move[i] if self.last_move else self.created_at
            s.last_move_time.CopyFrom(views.timestamp(moved))
            v.seats.append(s)
        pending = set(after["pending"])
        if r.family == "warofwords":  # clouds hide what lies under them (views.wow_board_view)
            v.board.CopyFrom(views.wow_board_view(st, self.placed_seq))
        else:
            v.board.CopyFrom(views.board_view(r, st.cells, self.placed_seq, pending,
                                              st.electrification, st.irradiated))
        if not st.over:
            v.to_move_seat = st.to_move
        if st.pending is not None:
            pseq = max((self.placed_seq.get(i, 0) for i in pending), default=0)
            v.pending.CopyFrom(m.PendingPlay(
                seat=st.pending.seat, decider_seat=st.to_move,
                placements=views.placements(
                    r, [[i, t.letter, t.blank] for i, t in st.pending.geometry.placed]),
                breakdown=views.breakdown(r, st.pending.breakdown.to_dict(), len(st.pending.tokens)),
                seq=pseq))
        if st.over and self.events:
            last = self.events[-1]
            for ev in reversed(self.events):
                if ev.kind == "game-over":
                    last = ev
                    break
            if last.kind == "game-over":
                v.result.CopyFrom(self.game_over_pb(last.payload["engine"][0]["data"], last.payload["after"]))
        if self.ended_at:
            v.end_time.CopyFrom(views.timestamp(self.ended_at))
        return v


def stored_kind(engine_type: str) -> str:
    """Stored-event kind of an engine event type."""
    return {"game-started": "match-started", "play": "turn-played", "passed": "turn-passed",
            "exchanged": "tiles-exchanged"}.get(engine_type, engine_type)


def group_engine_events(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """One stored event per engine event, except that ``tiles-drawn`` joins the play before it."""
    groups: list[list[dict[str, Any]]] = []
    for ev in events:
        if ev["type"] == "tiles-drawn" and groups:
            groups[-1].append(ev)
        else:
            groups.append([ev])
    return groups


def seat_status_of(state: GameState, seat: int) -> Seat:
    return state.seats[seat]
