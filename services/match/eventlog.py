"""The event log of a match: the engine's events turned into stored events, appended durably,
installed in memory, and replayed into a ``Runtime`` on start-up or take-over.

A stored event is a typed ``core.events.MatchEvent``, stored as ``(seq, time, kind, payload)``
with the payload written by that module's versioned codec (its doc lists every field). Its
payload keeps what the projection needs without the engine state of that moment: the engine
events it stands for (a play and the tiles drawn after it are one stored event), the state's
summary after it, the squares that changed (War of Words: and what the clouds hide), a play's
notation written by the engine from the board before the play.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from wordarena.engine.board import square_name
from wordarena.engine.families import parse_ruleset_id, replay
from wordarena.engine.game import GameState
from wordarena.engine.game.events import Event as EngineEvent
from wordarena.services.common import logs
from wordarena.services.match import messages, metrics, results, sight
from wordarena.services.match.core import events as codec
from wordarena.services.match.core.events import CloudCover, MatchEvent, SquareChange
from wordarena.services.match.runtime import Options, Runtime, SeatInfo, after_snapshot
from wordarena.services.match.store import MatchStore, StoredEvent, StoredRequest

log = logs.get_logger(__name__)


def stored_kind(engine_type: str) -> str:
    """Stored-event kind of an engine event type."""
    return {"game-started": "match-started", "play": "turn-played", "passed": "turn-passed",
            "exchanged": "tiles-exchanged"}.get(engine_type, engine_type)


def group_engine_events(events: Sequence[EngineEvent]) -> list[list[EngineEvent]]:
    """One stored event per engine event, except that ``tiles-drawn`` joins the play before it."""
    groups: list[list[EngineEvent]] = []
    for ev in events:
        if ev.type == "tiles-drawn" and groups:
            groups[-1].append(ev)
        else:
            groups.append([ev])
    return groups


# --- writing -------------------------------------------------------------------------------


def to_stored(rt: Runtime, events: Sequence[EngineEvent], state: GameState, now: float,
              clocks: list[float] | None = None, *, idle_for: float | None = None) -> list[StoredEvent]:
    """The stored events of engine ``events`` that took ``rt.state`` to ``state``, numbered
    after ``rt.seq``. ``clocks``: the seats' clocks after the action (default: unchanged);
    ``idle_for``: how long a kicked seat had been idle (the kick's event says it)."""
    return [StoredEvent.of(ev) for ev in match_events(rt, events, state, now, clocks, idle_for=idle_for)]


def match_events(rt: Runtime, events: Sequence[EngineEvent], state: GameState, now: float,
                 clocks: list[float] | None = None, *, idle_for: float | None = None) -> list[MatchEvent]:
    """``to_stored``'s typed events."""
    before = rt.state
    prev_racks = [tuple(r) for r in before.racks] if rt.events else [() for _ in before.racks]
    rack_changed = tuple(i for i, r in enumerate(state.racks) if tuple(r) != prev_racks[i])
    # The action's own event changed the racks; what follows it (effects, GameOver) did not.
    after = after_snapshot(state, clocks=clocks if clocks is not None else rt.clocks,
                           rack_changed=rack_changed)
    groups = group_engine_events(events)
    game_over = next((g[0].data for g in groups if g[0].type == "game-over"), None)
    early: tuple[int, ...] = ()
    if game_over is not None:  # who left in the first round (War of Words: no result)
        early = tuple(results.first_round_leavers([*results.departures(rt.events), *groups]))
    out: list[MatchEvent] = []
    seq = rt.seq
    wow = rt.ruleset.family == "warofwords"
    for k, g in enumerate(groups):
        seq += 1
        kind = stored_kind(g[0].type)
        a = after if k == 0 else replace(after, rack_changed=())
        if game_over is not None and kind != "game-over":
            a = replace(a, scores=tuple(s - adj for s, adj in zip(game_over["scores"],
                                                                  game_over["adjustments"], strict=True)))
        if kind == "game-over" and early:
            a = replace(a, first_round_left=early)
        cover: CloudCover | None = None
        moves: tuple[tuple[str, int], ...] = ()
        if wow:  # War of Words: what changed in anyone's view, and what clouds hide
            board, cover = _wow_changes(rt, g, before, state, seq, k == 0)
            if g[0].type == "play" and g[0].data.get("moves"):
                moves = _effect_moves(before, g[0].data["moves"])
        else:
            board = _board_changes(g, state, seq)
        out.append(MatchEvent(seq, now, kind, engine=tuple(g), after=a, board=tuple(board),
                              clouds=cover, effect_moves=moves,
                              notation=codec.play_notation(rt.ruleset, before.cells, g[0]),
                              idle_for=idle_for if k == 0 else None))
    return out


def _effect_moves(before: GameState, shifts: list[list[int]]) -> tuple[tuple[str, int], ...]:
    """A play's Rain / Whirlwind moves as [effect id before the move, new square index]."""
    from wordarena.engine.warofwords.arena import markers

    cols = before.ruleset.board.cols
    kinds = {m.index: m.kind for m in markers(before) if m.kind in ("rain", "whirlwind")}
    return tuple((messages.effect_id(kinds.get(src, ""), square_name(*divmod(src, cols))), dst)
                 for src, dst in shifts)


def _wow_changes(rt: Runtime, group: list[EngineEvent], before: GameState, state: GameState,
                 seq: int, first: bool) -> tuple[list[SquareChange], CloudCover]:
    """War of Words board changes (on the first stored event of a commit: every square whose view
    changed, letters destroyed or drawn over by clouds included) and the cloud data the
    projection needs (``sight.wow_payload``); ``touched``: a word of the play lies (partly) under
    a cloud."""
    wow, changed = sight.wow_payload(before, state)
    changes: list[SquareChange] = []
    if first:
        for i in changed:
            cell = state.cells[i]
            if cell is None:
                changes.append(SquareChange(i))
            else:
                fresh = before.cells[i] != cell
                changes.append(SquareChange(i, cell, seq if fresh else rt.placed_seq.get(i, seq)))
    else:
        wow["squares"] = {}
    data = group[0].data
    if group[0].type == "play" and data.get("placed"):
        layout = state.ruleset.board
        placed = [int(p[0]) for p in data["placed"]]
        filled = {i for i, t in enumerate(before.cells) if t is not None} | set(placed)
        veiled = set(wow["veiled"])
        wow["touched"] = bool(sight.word_squares(layout.cols, layout.rows, filled, placed) & veiled)
    return changes, CloudCover.decode(wow)


def _board_changes(group: list[EngineEvent], state: GameState, seq: int) -> list[SquareChange]:
    head = group[0]
    data = head.data
    changes: list[SquareChange] = []
    if head.type in ("play", "play-pending", "play-accepted", "play-checked"):
        for index, *_ in data.get("placed", []):
            cell = state.cells[index]
            if cell is not None:
                changes.append(SquareChange(index, cell, seq))
    # Tiles taken back off the board: a failed check, or a player leaving with a play pending.
    for index, *_ in data.get("returned", []):
        changes.append(SquareChange(index))
    return changes


async def append(store: MatchStore, rt: Runtime, owner: str, events: list[StoredEvent],
                 request: StoredRequest | None, *, finished_at: float | None) -> None:
    """Append ``events`` (and the answer to ``request``) after ``rt.seq`` in one transaction;
    ``finished_at``: the match ended with them. Raises ``store.ConflictError`` when another
    server owns the match now."""
    t0 = time.perf_counter()
    await store.append(rt.match_id, owner, rt.seq, events, request,
                       status="finished" if finished_at is not None else None, ended_at=finished_at)
    metrics.APPEND_SECONDS.observe(time.perf_counter() - t0)


#: A match's latest events keep their payload dicts (the ones read as a turn is answered and
#: streamed: the last turn's, or a play and the game's end); older ones keep only their JSON
#: text (``StoredEvent.compact``), decoded again when read. Each decoded event costs a classic
#: match about 9 KB (its score breakdown foremost): 2 instead of 4 took 18 KB off a match.
KEEP_DECODED = 2


def install(rt: Runtime, events: Sequence[StoredEvent]) -> None:
    """Add durably stored ``events`` to the match in memory (its log and the seq at which each
    square's tile was placed), compacting the events that are no longer among its latest."""
    for ev in events:
        _track_placed(rt.placed_seq, ev.event)
        rt.events.append(ev)
    compact_old(rt.events, len(events))


#: Compacted events whose texts are deflated together (``StoredEvent.pack``): a classic play
#: costs 4.8 µs to deflate in a block of eight, 18 µs alone.
PACK_BLOCK = 8


def compact_old(log: list[StoredEvent], added: int) -> None:
    """Compact the events of ``log`` that its last ``added`` pushed out of the latest
    ``KEEP_DECODED`` (chat stays decoded: small, and counted on every SendChat), and deflate the
    texts of the compacted ones once ``PACK_BLOCK`` of them wait."""
    end = max(len(log) - KEEP_DECODED, 0)
    for ev in log[max(end - added, 0):end]:
        if ev.kind != "chat":
            ev.compact()
    loose: list[StoredEvent] = []
    for i in range(end - 1, -1, -1):  # back to the last block deflated
        ev = log[i]
        if ev.packed:
            break
        if ev.kind != "chat":
            loose.append(ev)
    if len(loose) >= PACK_BLOCK:
        StoredEvent.pack(loose[::-1])


def _track_placed(placed_seq: dict[int, int], ev: MatchEvent) -> None:
    for change in ev.board:
        if change.tile is not None:
            placed_seq[change.index] = change.placed_seq
        else:
            placed_seq.pop(change.index, None)


# --- replaying -----------------------------------------------------------------------------


async def rebuild(store: MatchStore, match_id: str, lexicon_for: Callable[[str], Any]) -> Runtime:
    """The match rebuilt from its stored log: the engine state replayed from the seed, clocks,
    last moves, request answers and where each tile was placed."""
    loaded = await store.load(match_id)
    assert loaded is not None
    row = loaded.row
    ruleset = parse_ruleset_id(row.ruleset_id)
    seats = [SeatInfo(**s) for s in json.loads(row.seats)]
    options = Options.from_dict(json.loads(row.options))
    typed = codec.upgrade_log(ruleset, [ev.event for ev in loaded.events])
    engine_events = [ee for ev in typed for ee in ev.engine]
    await asyncio.to_thread(lexicon_for, ruleset.lexicon)  # first load: off the loop
    state: GameState = replay(engine_events, lexicon_for)
    ruleset = state.ruleset  # as the match plays it (a table's challenge mode included)
    rt = Runtime(match_id=match_id, ruleset=ruleset, seats=seats, options=options,
                 created_at=row.created_at, state=state, events=loaded.events,
                 status=row.status, ended_at=row.ended_at, last_move=[row.created_at] * len(seats))
    for stored, ev in zip(loaded.events, typed, strict=True):
        if ev.notation != stored.event.notation:  # an older version's play, upgraded
            stored.upgrade(ev)
        _track_placed(rt.placed_seq, ev)
        if ev.after is not None:
            if ev.after.clocks is not None:
                rt.clocks = list(ev.after.clocks)
            rt.turn_start = ev.time
            for ee in ev.engine:
                if ee.seat is not None and "action" in ee.data:
                    rt.last_move[ee.seat] = ev.time
    rt.requests = {k: (r.method, r.response) for k, r in loaded.requests.items()}
    compact_old(rt.events, len(rt.events))
    if state.over:
        rt.status = "finished"
    log.info("match rebuilt from its log", match_id=match_id, seq=rt.seq)
    return rt
