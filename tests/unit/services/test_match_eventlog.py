"""The match event log in memory: every stored play carries the engine's ``8H WORD`` from the
board before it, and logs stored before plays carried it get the same notation on rebuild;
events no longer among a match's latest keep only their payload's JSON text and read back the
same payload."""

from __future__ import annotations

import copy
import json
import zlib
from typing import Any

from wordarena.engine.bots import Bot
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Play, apply, start_game
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.notation import play_notation
from wordarena.services.match import eventlog, store
from wordarena.services.match.core import events as codec
from wordarena.services.match.runtime import Options, Runtime, SeatInfo
from wordarena.services.match.store import StoredEvent, encode_payload


def _new_match(family: str, seed: int) -> tuple[Runtime, Any, list[Any]]:
    """A two-player match as the server starts it (no events installed yet), its lexicon and
    the engine's first events."""
    ruleset = get_ruleset(family, "en")
    lexicon = load_lexicon(ruleset.lexicon)
    state, events = start_game(ruleset, 2, seed, lexicon, True)
    rt = Runtime(match_id="m", ruleset=ruleset, seats=[SeatInfo("a", "A"), SeatInfo("b", "B")],
                 options=Options(), created_at=0.0, state=state, events=[])
    return rt, lexicon, events


def test_plays_carry_the_engine_notation_and_old_logs_get_it_on_rebuild() -> None:
    rt, lexicon, events = _new_match("scrabble", 3)
    ruleset = rt.ruleset
    eventlog.install(rt, eventlog.to_stored(rt, events, rt.state, 0.0))
    bots = [Bot(2, 1, lexicon), Bot(2, 2, lexicon)]
    expected: list[str] = []
    for _ in range(12):
        if rt.state.over:
            break
        action = bots[rt.state.to_move].choose(rt.state)
        new_state, engine_events = apply(rt.state, action)
        if isinstance(action, Play):
            across = engine_events[0].data["across"]
            expected.append(play_notation(ruleset.board, rt.state.cells, action.placements, across))
        eventlog.install(rt, eventlog.to_stored(rt, engine_events, new_state, 0.0))
        rt.state = new_state
    written = [ev.payload["notation"] for ev in rt.events if ev.kind == "turn-played"]
    assert written == expected and len(written) >= 4
    # a log stored before plays carried notation, as the store reads it back (decoded)
    old = [codec.decode(ev.seq, ev.time, ev.kind,
                        {k: v for k, v in copy.deepcopy(ev.payload).items() if k not in ("notation", "v")})
           for ev in rt.events]
    assert not any(ev.notation for ev in old)
    upgraded = codec.upgrade_log(ruleset, old)
    assert [ev.notation for ev in upgraded] == [ev.event.notation for ev in rt.events]


def test_old_events_keep_only_their_json_text_and_read_back_the_same_payload() -> None:
    rt, lexicon, events = _new_match("classic", 11)
    as_stored: dict[int, dict[str, object]] = {}  # each payload as the store wrote it

    def install(stored: list[StoredEvent]) -> None:
        for ev in stored:
            as_stored[ev.seq] = json.loads(encode_payload(ev.payload))
        eventlog.install(rt, stored)

    install(eventlog.to_stored(rt, events, rt.state, 0.0))
    bots = [Bot(2, 1, lexicon), Bot(2, 2, lexicon)]
    while not rt.state.over and rt.seq < 20:
        new_state, engine_events = apply(rt.state, bots[rt.state.to_move].choose(rt.state))
        install(eventlog.to_stored(rt, engine_events, new_state, 0.0))
        rt.state = new_state
    latest = rt.events[-eventlog.KEEP_DECODED:]
    assert rt.seq >= 2 * eventlog.KEEP_DECODED
    assert all(ev.compacted for ev in rt.events[:-eventlog.KEEP_DECODED])
    assert not any(ev.compacted for ev in latest)
    assert [ev.payload for ev in rt.events] == [as_stored[ev.seq] for ev in rt.events]
    assert all(json.loads(ev.text) == as_stored[ev.seq] for ev in rt.events)


def _packed_log() -> tuple[Runtime, dict[int, str]]:
    """A classic match played until at least two blocks of its old events are packed, and
    each event's text as it was stored."""
    rt, lexicon, events = _new_match("classic", 12)
    eventlog.install(rt, eventlog.to_stored(rt, events, rt.state, 0.0))
    as_stored = {ev.seq: ev.text for ev in rt.events}
    bots = [Bot(2, 1, lexicon), Bot(2, 2, lexicon)]
    while not rt.state.over and rt.seq < 2 * eventlog.PACK_BLOCK + eventlog.KEEP_DECODED + 3:
        new_state, engine_events = apply(rt.state, bots[rt.state.to_move].choose(rt.state))
        stored = eventlog.to_stored(rt, engine_events, new_state, 0.0)
        as_stored.update((ev.seq, ev.text) for ev in stored)
        eventlog.install(rt, stored)
        rt.state = new_state
    return rt, as_stored


def test_old_texts_are_deflated_in_shared_blocks_a_fraction_of_their_size() -> None:
    """Compacted events' texts wait until ``PACK_BLOCK`` of them can be deflated together; the
    blocks hold the log in a fraction of its JSON and read back exactly what was stored."""
    rt, as_stored = _packed_log()
    old = rt.events[:-eventlog.KEEP_DECODED]
    packed = [ev for ev in old if ev.packed]
    assert len(packed) >= 2 * eventlog.PACK_BLOCK
    assert len(old) - len(packed) < eventlog.PACK_BLOCK  # the loose ones wait for a block
    assert all(not ev.packed for ev in old[len(packed):])  # the oldest go first
    blocks = {id(ev.block): ev.block for ev in packed}
    assert len(blocks) == len(packed) // eventlog.PACK_BLOCK  # shared, one per PACK_BLOCK events
    raw = sum(len(as_stored[ev.seq].encode()) for ev in packed)
    assert sum(len(b) for b in blocks.values() if b is not None) < raw / 3
    assert all(ev.text == as_stored[ev.seq] for ev in rt.events)
    assert [ev.payload for ev in rt.events] == [json.loads(as_stored[ev.seq]) for ev in rt.events]


def test_a_late_reader_inflates_each_block_once(monkeypatch: Any) -> None:
    """Reading a packed log from the start (a late subscriber, ``ListLog``, a rebuild)
    inflates each block once, not once for each of its ``PACK_BLOCK`` events."""
    rt, as_stored = _packed_log()
    blocks = {id(ev.block) for ev in rt.events if ev.packed}
    inflated: list[bytes] = []
    decompress = zlib.decompress

    def counting(data: bytes) -> bytes:
        inflated.append(data)
        return decompress(data)

    monkeypatch.setattr(zlib, "decompress", counting)
    store.inflate.cache_clear()
    assert [ev.text for ev in rt.events] == [as_stored[ev.seq] for ev in rt.events]
    assert [ev.payload for ev in rt.events] == [json.loads(as_stored[ev.seq]) for ev in rt.events]
    assert len(inflated) == len(blocks) >= 2
