"""The bytes the match server sends for events (``wire.event_bytes``, ``stream_message``,
``turn_answer``) are written from shared, cached pieces: a seat's own event is the public bytes
followed by its rack, a SubmitTurn answer is assembled from its events' bytes. Whatever the
shortcut, each must parse to exactly the message built the plain way (``projection._project``,
uncached) for that viewer, after every turn of a game, for both seats and a spectator: no rack of
another seat, no stale view from a cache."""

from __future__ import annotations

from typing import Any

from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Exchange, Pass, Resign, apply, start_game
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.movegen import generate_moves
from wordarena.services.match import eventlog, messages, projection, wire
from wordarena.services.match.runtime import Options, Runtime, SeatInfo
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m


def _runtime(seed: int) -> Runtime:
    ruleset = get_ruleset("classic", "en", None)
    state, events = start_game(ruleset, 2, seed, load_lexicon(ruleset.lexicon), True)
    rt = Runtime(match_id="m", ruleset=state.ruleset,
                 seats=[SeatInfo("alice", "Alice"), SeatInfo("bob", "Bob")], options=Options(),
                 created_at=1.0, state=state, events=[], last_move=[1.0, 1.0])
    eventlog.install(rt, eventlog.to_stored(rt, events, state, 1.0))
    return rt


def _action(rt: Runtime, turn: int) -> Any:
    seat = rt.state.to_move
    if turn == 2:
        return Exchange(seat, tuple(rt.state.racks[seat][:3]))
    if turn == 5:
        return Pass(seat)
    if turn == 9:
        return Resign(seat)
    moves = generate_moves(rt.state)
    return moves[0].to_play(seat) if moves else Pass(seat)


def _check(rt: Runtime, events: list[Any], mover: int | None) -> None:
    for ev in events:
        for viewer in (0, 1, None):
            want = projection.view(rt, ev, viewer)  # the plain way, no cache
            assert c.Event.FromString(wire.event_bytes(rt, ev, viewer)) == want, (ev.kind, viewer)
            streamed = m.StreamMatchResponse.FromString(wire.stream_message(rt, ev, viewer))
            assert streamed == m.StreamMatchResponse(event=want), (ev.kind, viewer)
            if ev.kind == "match-started":  # the empty board, cached per ruleset: as built anew
                size = rt.ruleset.board.rows * rt.ruleset.board.cols
                assert want.match_started.board == messages.board_view(rt.ruleset, (None,) * size, {}, set())
                assert len(want.match_started.board.squares) == size
            if viewer is None:  # a spectator never gets a rack
                assert not want.HasField("viewer_rack")
            elif ev.kind in ("match-started", "turn-played") and viewer == (mover or 0):
                assert want.HasField("viewer_rack")  # the seat's own new rack
    if mover is not None and events:
        racks = events[-1].payload["after"]["racks"]
        rack = messages.rack(rt.ruleset, racks[mover])
        last_seq = events[-1].seq
        got = m.SubmitTurnResponse.FromString(wire.turn_answer(rt, events, mover, last_seq, rack))
        assert got == m.SubmitTurnResponse(events=[projection.view(rt, ev, mover) for ev in events],
                                           last_seq=last_seq, rack=rack)


def test_every_event_parses_to_its_plain_projection_for_both_seats_and_a_spectator() -> None:
    rt = _runtime(seed=7)
    _check(rt, rt.events, None)  # match-started: each seat its own rack
    kinds = set()
    for turn in range(10):
        action = _action(rt, turn)
        state, engine_events = apply(rt.state, action)
        events = eventlog.to_stored(rt, engine_events, state, 2.0 + turn)
        rt.state = state
        eventlog.install(rt, events)
        _check(rt, events, action.seat)
        kinds.update(ev.kind for ev in events)
        if state.over:
            break
    # The game went through the cases the shortcuts treat apart.
    assert {"turn-played", "tiles-exchanged", "turn-passed", "resigned", "game-over"} <= kinds
    # Read again once the older events keep only their (deflated) text: a late subscriber's view.
    assert any(ev.compacted for ev in rt.events)
    for ev in rt.events:
        for viewer in (0, 1, None):
            want = projection.view(rt, ev, viewer)
            assert c.Event.FromString(wire.event_bytes(rt, ev, viewer)) == want, (ev.seq, viewer)
            streamed = m.StreamMatchResponse.FromString(wire.stream_message(rt, ev, viewer))
            assert streamed == m.StreamMatchResponse(event=want), (ev.seq, viewer)
