"""The match server's in-process work of a turn, without gRPC or the database: the engine applies
the play, the event log turns it into stored events, the player's SubmitTurn answer and both
seats' stream messages are built as bytes, and the payload is encoded as the store writes it.
Real games: the scripts of ``bench/match_load.py`` (computed and cached by it), replayed turn by
turn as the server receives them (``moves.action_of`` on a ``SubmitTurnRequest``).

    .venv/bin/python bench/match_turn_work.py                 # CPU µs per turn, best of 15 passes
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python bench/match_turn_work.py --passes 3 --no-timing   # instructions:
    # (total with --passes 3) - (total with --passes 1), / 2 passes / turns per pass

Instruction counts do not depend on how busy the machine is (wall and CPU times here do, a lot).
A figure script, not a timed test.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from match_load import RULESET, load_scripts

from wordarena.engine.families import get_ruleset
from wordarena.engine.game import apply, start_game
from wordarena.engine.lexicon import load_lexicon
from wordarena.services.match import eventlog, messages, moves, wire
from wordarena.services.match.core import Act, Decision, decide
from wordarena.services.match.runtime import Options, Runtime, SeatInfo
from wordarena.v1 import match_pb2 as m


def _request(tiles: list[list[Any]] | None) -> m.SubmitTurnRequest:
    req = m.SubmitTurnRequest(match_id="bench", request_id="r")
    if tiles is None:
        req.move.pass_turn.SetInParent()
    for row, col, letter, blank in tiles or ():
        p = req.move.play.placements.add()
        p.square.row, p.square.col, p.letter, p.is_blank = row, col, letter.upper(), bool(blank)
    return req


def new_runtime(script: dict[str, Any], lexicon: Any) -> Runtime:
    """A match of ``script``'s seed as the server starts it (its first events installed)."""
    state, started = start_game(get_ruleset(RULESET, "en", None), 2, script["seed"], lexicon, True)
    rt = Runtime(match_id="bench", ruleset=state.ruleset,
                 seats=[SeatInfo("a", "A"), SeatInfo("b", "B")], options=Options(),
                 created_at=0.0, state=state, events=[], last_move=[0.0, 0.0])
    eventlog.install(rt, eventlog.to_stored(rt, started, state, 0.0))
    return rt


#: How the turn is decided: through the match core as the server does (a snapshot of the match,
#: ``core.decide``), or the engine's ``apply`` alone (the work before the core, for comparison).
VIA_CORE = True


def play_turn(rt: Runtime, seat: int, tiles: list[list[Any]] | None) -> None:
    """One SubmitTurn's in-process work: the decision (the core's, or the engine's alone), the
    stored events (encoded as the store writes them), the answer and both seats' stream messages;
    then installed."""
    action = moves.action_of(rt.state, seat, _request(tiles).move)
    if VIA_CORE:
        decided = decide(rt.snapshot(), Act("a" if seat == 0 else "b", "", "SubmitTurn", action, rt.seq, 1.0))
        assert isinstance(decided, Decision), decided
        new_state, engine_events = decided.state, list(decided.events)
    else:
        new_state, engine_events = apply(rt.state, action)
    events = eventlog.to_stored(rt, engine_events, new_state, 1.0)
    after = events[-1].event.after  # as the servicer's answer reads it (service.SubmitTurn)
    assert after is not None
    rack = messages.rack(rt.ruleset, list(after.racks[seat]), after.irradiated)
    wire.turn_answer(rt, events, seat, rt.seq + len(events), rack)
    for ev in events:
        ev.text  # noqa: B018 - encoded as the store writes it
        for viewer in (0, 1):
            wire.stream_message(rt, ev, viewer)
    rt.state = new_state
    eventlog.install(rt, events)


def play_all(scripts: list[dict[str, Any]], lexicon: Any) -> int:
    """Every turn of every script, as the server handles it. Returns the number of turns."""
    turns = 0
    for script in scripts:
        rt = new_runtime(script, lexicon)
        for seat, tiles in script["turns"]:
            play_turn(rt, seat, tiles)
            turns += 1
    return turns


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20, help="scripted games a pass (default 20)")
    ap.add_argument("--passes", type=int, default=15, help="timed passes (default 15; the best counts)")
    ap.add_argument("--no-timing", action="store_true", help="only run the passes (under valgrind)")
    ap.add_argument("--engine-only", action="store_true",
                    help="decide with the engine's apply alone, not through the match core")
    args = ap.parse_args()
    global VIA_CORE
    VIA_CORE = not args.engine_only
    scripts = load_scripts(40, True)[:args.games]
    lexicon = load_lexicon(get_ruleset(RULESET, "en", None).lexicon)
    play_all(scripts, lexicon)  # warm: caches, lexicon pages
    gc.collect()
    gc.freeze()  # as the servers do (``tune_gc``)
    gc.set_threshold(700, 10, 1000)
    best, turns = float("inf"), 0
    for _ in range(args.passes):
        t0 = time.process_time()
        turns = play_all(scripts, lexicon)
        best = min(best, (time.process_time() - t0) / turns)
    if not args.no_timing:
        print(json.dumps({"turns_per_pass": turns, "cpu_us_per_turn_best": round(best * 1e6, 1),
                          "decided_by": "core" if VIA_CORE else "engine"}))


if __name__ == "__main__":
    main()
