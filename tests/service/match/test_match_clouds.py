"""War of Words clouds over loopback gRPC, on the Cloudy Day in the Park board.

Rule sentences (shared/rules/war-of-words-2.txt, "Persistent Tiles and Effects"):
* "Clouds obscure an area on the board approximately 5x5 in size. You can't see under clouds."
* "If you're playing any tile under a cloud, in-play scoring stops working."

A human seat (played by an engine bot through the public API, action tiles included) meets a
level-5 bot seat; a spectator streams the match. Every message anyone receives is checked
against the squares the engine's clouds covered at that moment, replayed independently from
the match's log: no tile, letter, multiplier, terrain or effect detail under a cloud.
"""

from __future__ import annotations

import asyncio
from typing import Any

from match_harness import Harness
from wordarena.engine.bots import Bot
from wordarena.engine.families import parse_ruleset_id, replay
from wordarena.engine.game import Exchange, GameState, Play, apply
from wordarena.engine.game.actions import action_from_dict
from wordarena.engine.game.events import Event as EngineEvent
from wordarena.engine.warofwords.clouds import hidden_squares, preview_allowed
from wordarena.services.match import views
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m

PARK = "warofwords/en/warofwords-park"
_RULESET = parse_ruleset_id(PARK)


def _move(action: Any) -> c.Move:
    if isinstance(action, Play):
        pls = []
        for p in action.placements:
            if p.letter.startswith("@"):
                kind, factor = views.action_kind(p.letter)
                pls.append(c.Placement(square=c.Square(row=p.row, col=p.col), action=kind,
                                       action_factor=factor, facing=views.FACING_PB.get(p.facing, 0)))
            else:
                pls.append(c.Placement(square=c.Square(row=p.row, col=p.col),
                                       letter="" if p.letter == "*" else p.letter,
                                       is_wildcard=p.letter == "*", is_blank=p.blank))
        return c.Move(play=c.PlayMove(placements=pls))
    if isinstance(action, Exchange):
        return c.Move(exchange=c.ExchangeMove(tiles=[views.tile(_RULESET, t) for t in action.tiles]))
    return c.Move(pass_turn=c.PassMove())


def _states_by_seq(rt: Any, lexicon_for: Any) -> dict[int, tuple[GameState, GameState]]:
    """For every stored event: the engine state before and after the commit it belongs to,
    replayed from the log (not from what the projection stored)."""
    out: dict[int, tuple[GameState, GameState]] = {}
    first = [EngineEvent.from_dict(rt.events[0].payload["engine"][0])]
    state = replay(first, lexicon_for)
    before = after = state
    for ev in rt.events:
        engine = ev.payload.get("engine") or []
        if engine and "action" in engine[0].get("data", {}):
            before, after = after, apply(after, action_from_dict(engine[0]["data"]["action"]))[0]
        out[ev.seq] = (before, after)
    return out


def _square_index(sq: c.Square, cols: int) -> int:
    return sq.row * cols + sq.col


def _check_square(bs: c.BoardSquare, hidden: frozenset[int], cols: int, what: str) -> None:
    i = _square_index(bs.square, cols)
    if i in hidden:
        assert bs.hidden, f"{what}: {bs.square.notation} is under a cloud but not marked hidden"
        assert not bs.HasField("tile") and not bs.HasField("premium"), f"{what}: leak at {i}"
        assert bs.terrain == 0 and bs.scenery == 0 and not bs.is_star and not bs.water_patch_id, what
    else:
        assert not bs.hidden, f"{what}: {bs.square.notation} is not under a cloud"


def _check_event(ev: c.Event, states: dict[int, tuple[GameState, GameState]], cols: int,
                 stats: dict[str, int]) -> None:
    before, after = states[ev.seq]
    hidden = hidden_squares(after)
    veiled = hidden | hidden_squares(before)
    what = f"event {ev.seq} ({ev.WhichOneof('kind')})"
    for bs in ev.board_changes:
        _check_square(bs, hidden, cols, what)
    kind = ev.WhichOneof("kind")
    if kind == "match_started":
        for bs in ev.match_started.board.squares:
            _check_square(bs, hidden, cols, what)
        assert len(ev.match_started.board.clouds) == 3
    elif kind == "turn_played":
        tp = ev.turn_played
        for p in tp.placements:
            assert _square_index(p.square, cols) not in veiled, f"{what}: placement under a cloud"
        stats["plays"] += 1
        if tp.breakdown.words:
            stats["words shown"] += 1
        else:
            stats["words withheld"] += 1
    elif kind == "effect":
        eff = ev.effect
        stats["effects"] += 1
        if eff.HasField("square"):
            assert _square_index(eff.square, cols) not in veiled, f"{what}: effect source hidden"
        for sq in eff.squares:
            assert _square_index(sq, cols) not in veiled, f"{what}: effect names a hidden square"
        if not eff.HasField("square"):  # the reason names no square under a cloud either
            assert " at " not in eff.reason, f"{what}: {eff.reason}"
        if eff.by_seat is not None and eff.kind == c.EFFECT_KIND_DESTROYED:
            stats["destroyed"] = stats.get("destroyed", 0) + 1


def _check_view(view: m.MatchView, state: GameState, cols: int) -> None:
    hidden = hidden_squares(state)
    for bs in view.board.squares:
        _check_square(bs, hidden, cols, "GetMatch")
    for eff in view.board.effects:
        assert _square_index(eff.origin, cols) not in hidden
    assert len(view.board.clouds) == 3


async def test_clouds_hide_what_lies_under_them_in_every_message(harness: Harness) -> None:
    """"You can't see under clouds": no message to a player or a spectator shows a tile,
    letter, multiplier or effect detail under a cloud; "If you're playing any tile under a
    cloud, in-play scoring stops working": PreviewPlay gives no score there."""
    srv = await harness.start()
    mid = await harness.create(srv, ruleset=PARK, players=("alice",), bots=(5,), seed=11,
                               spectators_allowed=True)
    alice, carol = harness.player(srv, "alice"), harness.player(srv, "carol")
    rt = srv.manager.matches[mid]
    cols = rt.ruleset.board.cols
    streams = []
    for who in (alice, carol):
        async def read(p: Any = who) -> None:
            async for msg in p.stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=p.md):
                p.received.append(msg)
        streams.append(asyncio.create_task(read()))
    views_seen: list[tuple[m.MatchView, GameState]] = []
    previews = {"refused": 0, "scored": 0}
    me = Bot(4, seed=3, lexicon=rt.state.lexicon)
    for _ in range(300):
        for _ in range(400):
            if rt.state.over or rt.state.to_move == 0:
                break
            await asyncio.sleep(0.02)
        if rt.state.over:
            break
        state = rt.state
        views_seen.append((await alice.view(mid), state))
        views_seen.append((await carol.view(mid), state))
        action = me.choose(state)
        if isinstance(action, Play):
            pv = await alice.stub.PreviewPlay(m.PreviewPlayRequest(
                match_id=mid, placements=_move(action).play.placements), metadata=alice.md)
            alice.received.append(pv)
            if preview_allowed(state, action.placements):
                assert pv.legal
                previews["scored"] += 1
            else:
                assert not pv.legal and not pv.breakdown.words and pv.breakdown.total == 0
                assert pv.violation.code_name == "FEATURE_UNAVAILABLE"
                previews["refused"] += 1
        await alice.submit(mid, _move(action), rt.seq)
    assert rt.state.over
    await asyncio.wait_for(asyncio.gather(*streams), 20)
    for p in (alice, carol):
        log = await p.stub.ListLog(m.ListLogRequest(match_id=mid, page_size=200), metadata=p.md)
        p.received.append(log)

    states = _states_by_seq(rt, srv.manager.lexicon_for)
    stats = {"plays": 0, "words shown": 0, "words withheld": 0, "effects": 0, "messages": 0}
    for p in (alice, carol):
        for msg in p.received:
            stats["messages"] += 1
            events = list(getattr(msg, "events", [])) + ([msg.event] if hasattr(msg, "event") else [])
            for ev in events:
                if ev.WhichOneof("kind") != "heartbeat":
                    _check_event(ev, states, cols, stats)
    for view, state in views_seen:
        _check_view(view, state, cols)
    # The check had something to find: letters lay under clouds, and some of alice's plays
    # went under a cloud (no preview) while others were scored.
    covered = sum(1 for _, after in states.values()
                  for i in hidden_squares(after) if after.cells[i] is not None)
    print(stats, previews, "letters under clouds (summed over events):", covered)
    assert covered > 0
    assert previews["refused"] > 0 and previews["scored"] > 0
    assert stats["words withheld"] > 0 and stats["words shown"] > 0
