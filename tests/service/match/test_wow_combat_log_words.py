"""War of Words: every combat-log line the CLI prints says what happened and where — whose tile,
which tile, on which squares — for every kind of Effect a real game sends. Two bots play a War
of Words game on the match server; a spectator reads the match's stream over gRPC, as a client
does, and the CLI's move log (``movelog.describe_events``) tells each Effect. It used to print
``Ben's effect at K11 changed size`` (a Black Hole growing), ``An effect under a cloud reached
A5`` (Fire spreading, on a board without clouds), ``Ben's Rain at F8 moved`` (from where?),
``multiplier tile at G2: a multiplier now`` and ``Ben's effect at E4 ended`` (a Black Hole
swallowing tiles)."""

from __future__ import annotations

import re

from match_harness import Harness

from wordarena.clients.cli import movelog
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m

SQUARE = r"[A-O](?:1[0-5]|[1-9])"
#: What a line of each kind must say (with the squares it names).
SAYS = {
    c.EFFECT_KIND_DESTROYED: rf"destroyed the tiles on {SQUARE}",
    c.EFFECT_KIND_POISONED: rf"Poison at {SQUARE} poisoned the letters on {SQUARE}",
    c.EFFECT_KIND_HEALED: rf"Medic at {SQUARE} healed the letters on {SQUARE}",
    c.EFFECT_KIND_RAINED: rf"Rain at {SQUARE} rained on {SQUARE}",
    c.EFFECT_KIND_MULTIPLIER_CHANGED: rf"(Rain at {SQUARE} grew the multipliers on {SQUARE}"
                                      rf"|(multiplier tile|Star) put on {SQUARE}"
                                      rf"|An 11L appeared at {SQUARE})",
    c.EFFECT_KIND_ELECTRIFIED: rf"Lightning at {SQUARE} electrified the water: x\d+ -> x\d+",
    c.EFFECT_KIND_RESIZED: rf"(Black Hole|Quicksand) at {SQUARE} (grew to \dx\d|opened \(1x1\)|collapsed)",
    c.EFFECT_KIND_SPREAD: rf"Fire spread to {SQUARE}",
    c.EFFECT_KIND_MOVED: rf"((Rain|Whirlwind) moved from {SQUARE} to {SQUARE}|The clouds drift)",
    c.EFFECT_KIND_RESCORED: rf"Quicksand at {SQUARE} rescored the words on {SQUARE}",
    c.EFFECT_KIND_IRRADIATED: rf"Nuclear Bomb at {SQUARE} irradiated the board",
    c.EFFECT_KIND_EXPIRED: rf"(at {SQUARE} ended|at {SQUARE} swallowed the [\w ]+ on {SQUARE})",
}


async def test_every_combat_log_line_says_what_happened_and_where(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="warofwords/en/warofwords-desert", players=(), bots=(5, 4),
                               seed=2, spectators_allowed=True)
    carol = harness.player(srv, "carol")
    events = []
    async for msg in carol.stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=carol.md):
        if not msg.event.HasField("heartbeat"):
            events.append(msg.event)
    assert events[-1].HasField("game_over")
    names = ["Ann", "Ben"]
    kinds: dict[int, int] = {}
    for ev in events:
        if not ev.HasField("effect"):
            continue
        line = movelog.describe_events([ev], names)[0]
        kinds[ev.effect.kind] = kinds.get(ev.effect.kind, 0) + 1
        assert "effect" not in line.lower(), line  # a tile's name, not "effect"
        assert "  " not in line and " ," not in line, line
        assert re.search(SAYS[ev.effect.kind], line), (c.EffectKind.Name(ev.effect.kind), line)
    told = {c.EffectKind.Name(k) for k in kinds}
    assert {"EFFECT_KIND_DESTROYED", "EFFECT_KIND_RESIZED", "EFFECT_KIND_MOVED",
            "EFFECT_KIND_MULTIPLIER_CHANGED", "EFFECT_KIND_EXPIRED"} <= told, told
