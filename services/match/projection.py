"""A match as one viewer sees it: a stored event as the contract's ``Event`` (``view``), the
current state as a ``MatchView`` (``match_view``) and the result as a ``GameOver``.

A viewer is a seat or ``None`` for spectators. What each may see is ``sight``'s (a viewer's rack
and private event data only from the viewer's own seat; in War of Words nothing under a cloud),
the messages of a match's parts are ``messages``'; the caching and byte tricks of the answers
and streams are ``wire``'s. Every answer of the match server that shows events or state is
built by these functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from wordarena.engine.interchange.cgp import view_to_cgp
from wordarena.engine.rulesets.layout import Square
from wordarena.engine.rulesets.model import Ruleset
from wordarena.services.match import messages, results, sight, wallclock
from wordarena.services.match.core.events import After, CloudCover, MatchEvent
from wordarena.services.match.runtime import Runtime, after_snapshot
from wordarena.services.match.store import StoredEvent
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m


def seat_pb(rt: Runtime, i: int, after: After, at: float) -> c.Seat:
    """Seat ``i`` as an ``after`` summary shows it (its clock as of ``at``)."""
    r = rt.ruleset
    per = r.exchange.per_player
    ex = after.exchanges or (0,) * len(rt.seats)
    s = c.Seat(index=i, player=messages.player(rt.seats[i]),
               status=messages.SEAT_STATUS.get(after.seats[i], 0),  # type: ignore[arg-type]
               score=after.scores[i], rack_count=after.rack_sizes[i],
               exchanges_left=-1 if per is None else max(per - ex[i], 0))
    clocks = after.clocks
    if clocks is not None:
        s.clock.remaining.CopyFrom(messages.duration(max(clocks[i], 0.0)))
        s.clock.running = after.to_move == i
        s.clock.as_of.CopyFrom(messages.timestamp(at))
        if r.clock.overtime_points:  # scrabble: the clock runs past zero (stored below zero)
            s.clock.overtime_points = r.clock.overtime_points
            s.clock.max_overtime.CopyFrom(messages.duration(r.clock.max_overtime))
            if clocks[i] < 0:
                s.clock.overtime.CopyFrom(messages.duration(-clocks[i]))
    return s


def view(rt: Runtime, ev: StoredEvent, viewer: int | None) -> c.Event:
    """``ev`` as ``viewer`` (a seat, or None for spectators) may see it: the one place a stored
    event becomes the contract's ``Event``, every hidden-information rule applied (``sight``).
    Built afresh on each call; the server's answers and streams take it through ``wire``, which
    keeps and shares the latest events' projections."""
    public = public_event(rt, ev)
    return public if viewer is None or not sight.private_to(ev, viewer) else \
        seat_event(rt, ev, viewer, public)


def seat_event(rt: Runtime, ev: StoredEvent, viewer: int, public: c.Event) -> c.Event:
    """``ev`` as the seat ``viewer`` sees it: its ``public`` projection (``public_event``) and
    what only that seat sees (``sight.private_to``): its rack, the tiles it exchanged."""
    out = c.Event()
    out.CopyFrom(public)
    r = rt.ruleset
    typed = ev.event
    after = typed.after
    # Only when the event changed the viewer's rack (``eventlog.to_stored``; GameOver never did,
    # though logs written before it carried the racks of the play that ended the game).
    if after is not None and ev.kind != "game-over" and (
            viewer in after.rack_changed or ev.kind == "match-started"):
        out.viewer_rack.CopyFrom(messages.rack(r, list(after.racks[viewer]), after.irradiated))
    if ev.kind == "tiles-exchanged":
        head = typed.head
        if viewer == head.seat:
            out.tiles_exchanged.returned.extend(
                messages.tile(r, t) for t in head.data["private"]["returned"])
    return out


def public_event(rt: Runtime, stored: StoredEvent) -> c.Event:
    """A stored event as a spectator sees it (no rack, no private data)."""
    r = rt.ruleset
    ev = stored.event
    out = c.Event(seq=ev.seq, time=messages.timestamp(ev.time))
    if ev.chat is not None:
        line = ev.chat
        msg = c.ChatMessage(sender=c.Player(player_id=line.player_id, display_name=line.name),
                            text=line.text, observers=line.observers)
        if line.seat is not None:
            msg.seat = line.seat
        out.chat.CopyFrom(msg)
        return out
    after = ev.after
    assert after is not None
    out.turn_number = after.turn
    if after.to_move is not None:
        out.to_move_seat = after.to_move
    out.scores.extend(after.scores)
    out.bag_count = after.bag
    pending = set(after.pending)
    cover = ev.clouds  # War of Words: what the clouds hide (``_wow_board``)
    if cover is not None:
        out.board_changes.extend(_wow_board(rt, ev, cover))
    else:
        for change in ev.board:
            if change.tile is not None:
                out.board_changes.append(messages.board_square(r, change.index, change.tile,
                                                            change.placed_seq, change.index in pending))
            else:
                out.board_changes.append(messages.board_square(r, change.index, None))
    head = ev.head
    data, seat, kind = head.data, head.seat, ev.kind
    veiled = set(cover.veiled) if cover is not None else set()
    if kind == "match-started":
        board = messages.empty_board_view(r)
        if cover is not None:
            for i in cover.hidden:
                board.squares[i].CopyFrom(messages.live_square(r, i, r.board.squares[i], None,
                                                            hidden=True))
            board.clouds.extend(messages.cloud_pb(r, ctr) for ctr in cover.clouds)
        started = c.MatchStarted(ruleset=messages.ruleset_ref(r), options=messages.match_options(rt.options),
                                 first_seat=0, bonus_letter=data.get("bonus_letter") or "",
                                 board=board)
        for i in range(len(rt.seats)):
            started.seats.append(seat_pb(rt, i, after, ev.time))
        out.match_started.CopyFrom(started)
    elif kind in ("turn-played", "play-accepted", "play-checked"):
        drawn = next((e for e in ev.engine if e.type == "tiles-drawn"), None)
        drawn_count = drawn.data["count"] if drawn else 0
        if kind == "turn-played":
            assert seat is not None  # a play is a seat's
            turn = _turn_played(rt, seat, data, drawn_count, ev.notation)
            if cover is not None:
                sight.redact_play(turn, r, veiled, bool(cover.touched))
            turn.effect_moves.extend(_effect_moves(r, ev.effect_moves, veiled))
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
            seat=seat, placements=messages.placement_fields(r, data["placed"]),
            breakdown=messages.breakdown_fields(r, data["breakdown"], len(data["placed"])),
            decider_seat=after.to_move or 0))
    elif kind == "turn-passed":
        out.turn_passed.CopyFrom(c.TurnPassed(seat=seat, scoreless_turns=after.zero_run))
    elif kind == "tiles-exchanged":
        assert seat is not None  # an exchange is a seat's
        per = r.exchange.per_player
        left = -1 if per is None else max(per - after.exchanges[seat], 0)
        out.tiles_exchanged.CopyFrom(c.TilesExchanged(seat=seat, count=data["count"],
                                                      exchanges_left=left))
    elif kind in ("resigned", "left"):
        counts = not (rt.options.unrated or rt.options.pass_and_play) and not (
            r.family == "warofwords" and data.get("first_round"))
        out.player_left.CopyFrom(c.PlayerLeft(
            seat=seat, kind=c.LEAVE_KIND_RESIGNED if kind == "resigned" else c.LEAVE_KIND_LEFT,
            counts_as_loss=counts))
    elif kind == "timed-out":
        out.player_timed_out.CopyFrom(c.PlayerTimedOut(seat=seat))
    elif kind == "kicked":
        out.player_kicked.CopyFrom(c.PlayerKicked(seat=seat, by_seat=data.get("by", 0),
                                                  idle_for=messages.duration(ev.idle_for or 0.0)))
    elif kind == "game-over":
        out.game_over.CopyFrom(game_over_pb(rt, data, after))
    elif kind == "effect":
        out.effect.CopyFrom(sight.effect_pb(r, seat, data, veiled))
    return out


def _effect_moves(r: Ruleset, shifts: Sequence[tuple[str, int]], veiled: set[int]) -> list[c.EffectMove]:
    """The Rain / Whirlwind moves of a War of Words play (``eventlog``'s ``effect_moves``: the
    effect id before the move and the new square); none that starts or ends under a cloud."""
    out = []
    for effect_id, dst in shifts:
        src = messages.square_index(r, effect_id.partition("@")[2])
        if src in veiled or dst in veiled:
            continue
        out.append(c.EffectMove(effect_id=effect_id, to=messages.square(r, dst)))
    return out


def _turn_played(rt: Runtime, seat: int, data: dict[str, Any], drawn: int, notation: str) -> c.TurnPlayed:
    r = rt.ruleset
    tiles = len(data["placed"]) + len(data.get("actions", ()))
    out = c.TurnPlayed(seat=seat, placements=messages.placement_fields(r, data["placed"]),
                       breakdown=messages.breakdown_fields(r, data["breakdown"], tiles),
                       points=data["score"], drawn_count=drawn, notation=notation)
    for action in data.get("actions", ()):  # War of Words: [index, token, facing?]
        kind, factor = messages.action_kind(action[1])
        pl = c.Placement(square=messages.square(r, int(action[0])), action=kind,  # type: ignore[arg-type]
                         action_factor=factor)
        if len(action) > 2:
            pl.facing = messages.FACING_PB.get(action[2], 0)  # type: ignore[assignment]
        out.placements.append(pl)
    return out


def _wow_board(rt: Runtime, ev: MatchEvent, cover: CloudCover) -> list[c.BoardSquare]:
    """A War of Words event's board changes. "You can't see under clouds": a square under
    a cloud after the event is sent as ``hidden`` and nothing else."""
    r = rt.ruleset
    hidden = set(cover.hidden)
    out = []
    for change in ev.board:
        got = cover.squares.get(change.index)
        sq = Square(*got) if got is not None else r.board.squares[change.index]
        out.append(messages.live_square(r, change.index, sq, change.tile, change.placed_seq,
                                     change.index in hidden, ev.after is not None and ev.after.irradiated))
    return out


def game_over_pb(rt: Runtime, data: dict[str, Any], after: After) -> c.GameOver:
    """The ``GameOver`` of a game-over event (its engine ``data`` and ``after`` summary)."""
    r = rt.ruleset
    winners = list(data["winners"])
    scores, adj = data["scores"], data["adjustments"]
    penalties = data.get("overtime_penalties") or [0] * len(rt.seats)
    go = c.GameOver(reason=messages.REASONS.get(data["reason"], 0), winner_seats=winners)  # type: ignore[arg-type]
    outcomes = results.seat_outcomes(r.family, after.seats, scores, data["reason"],
                                     after.first_round_left)
    for i in range(len(rt.seats)):
        outcome = outcomes[i]
        fs = c.FinalScore(seat=i, score_before=scores[i] - adj[i] - penalties[i],
                          rack_penalty=min(adj[i], 0), rack_bonus=max(adj[i], 0),
                          overtime_penalty=penalties[i], final_score=scores[i],
                          outcome=outcome)  # type: ignore[arg-type]
        fs.remaining_rack.extend(messages.tile(r, t) for t in data.get("racks", [[]] * len(rt.seats))[i])
        go.final_scores.append(fs)
    return go


def match_view(rt: Runtime, viewer: int | None, controlled: list[int]) -> m.MatchView:
    """GetMatch: the current state as ``viewer`` sees it."""
    st, r = rt.state, rt.ruleset
    now = wallclock.now()
    v = m.MatchView(match_id=rt.match_id, ruleset=messages.ruleset_ref(r),
                    options=messages.match_options(rt.options),
                    status=m.MATCH_STATUS_FINISHED if st.over else m.MATCH_STATUS_IN_PROGRESS,
                    last_seq=rt.seq, game_seq=rt.game_seq, controlled_seats=controlled, bag_count=len(st.bag),
                    turn_number=st.turn + 1, scoreless_turns=st.zero_run,
                    bonus_letter=st.bonus_letter or "", create_time=messages.timestamp(rt.created_at))
    if viewer is not None:
        v.viewer_seat = viewer
        v.rack.CopyFrom(messages.rack(r, st.racks[viewer], st.irradiated))
    v.cgp = view_to_cgp(st, viewer)
    after = after_snapshot(rt.state)
    if rt.clocks is not None:
        after = replace(after, clocks=tuple(rt.clock_left(i, now) for i in range(st.players)))
    for i in range(st.players):
        s = seat_pb(rt, i, after, now)
        deadline = rt.turn_deadline(i)
        if deadline is not None:
            s.turn_deadline.CopyFrom(messages.timestamp(deadline))
        no_show = rt.no_show_deadline(i)  # the runtime decides when it applies; shown as it is
        if no_show is not None:
            s.no_show_deadline.CopyFrom(messages.timestamp(no_show))
        moved = rt.last_move[i] if rt.last_move else rt.created_at
        s.last_move_time.CopyFrom(messages.timestamp(moved))
        v.seats.append(s)
    pending = set(after.pending)
    if r.family == "warofwords":  # clouds hide what lies under them (sight.wow_board_view)
        v.board.CopyFrom(sight.wow_board_view(st, rt.placed_seq))
    else:
        v.board.CopyFrom(messages.board_view(r, st.cells, rt.placed_seq, pending,
                                          st.electrification, st.irradiated))
    if not st.over:
        v.to_move_seat = st.to_move
    if st.pending is not None:
        pseq = max((rt.placed_seq.get(i, 0) for i in pending), default=0)
        v.pending.CopyFrom(m.PendingPlay(
            seat=st.pending.seat, decider_seat=st.to_move,
            placements=messages.placements(
                r, [[i, t.letter, t.blank] for i, t in st.pending.geometry.placed]),
            breakdown=messages.breakdown(r, st.pending.breakdown.to_dict(), len(st.pending.tokens)),
            seq=pseq))
    if st.over and rt.events:
        last = rt.events[-1]
        for ev in reversed(rt.events):
            if ev.kind == "game-over":
                last = ev
                break
        if last.kind == "game-over":
            over = last.event
            assert over.after is not None  # every event of the game has its summary
            v.result.CopyFrom(game_over_pb(rt, over.head.data, over.after))
    if rt.ended_at:
        v.end_time.CopyFrom(messages.timestamp(rt.ended_at))
    return v
