"""Writes the stored-log fixtures of ``test_match_stored_logs.py``: real matches played by
today's match server on a fresh SQLite database (bots, and a human seat that chats, passes and
resigns), dumped row for row (matches, match_events, match_requests) with what the players were
shown at the end. Run it only to add a fixture of a new log version; fixtures already checked in
are never rewritten: they are the logs earlier versions wrote, and every version must replay them.

    .venv/bin/python tests/service/match/stored_logs/make_logs.py NAME
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from sqlmodel import Session, select

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from match_harness import Harness, pass_move  # noqa: E402

from wordarena.services.match.models import EventRow, MatchRow, RequestRow  # noqa: E402
from wordarena.v1 import common_pb2 as c  # noqa: E402
from wordarena.v1 import match_pb2 as m  # noqa: E402

GAMES = [  # (match id, ruleset, human seats, bot levels, seed)
    ("log-classic-bots", "classic", (), (3, 4), 11),
    ("log-wordtiles-bots", "wordtiles", (), (3, 4), 12),
    ("log-warofwords-park-bots", "warofwords/en/warofwords-park", (), (4, 5), 13),
    ("log-scrabble-bots", "scrabble", (), (3, 4), 14),
    ("log-classic-human", "classic", ("alice",), (2,), 15),
]


def _row(obj: Any) -> dict[str, Any]:
    out = {}
    for k, v in obj.model_dump().items():
        out[k] = {"b64": base64.b64encode(v).decode()} if isinstance(v, bytes) else v
    return out


async def _finished(player: Any, mid: str) -> m.MatchView:
    for _ in range(3000):
        view = await player.view(mid)
        if view.status != m.MATCH_STATUS_IN_PROGRESS:
            return view
        await asyncio.sleep(0.05)
    raise TimeoutError(mid)


def expected(view: m.MatchView) -> dict[str, Any]:
    """What a client is shown at the end: the facts the replay must give again."""
    return {
        "last_seq": view.last_seq, "status": m.MatchStatus.Name(view.status),
        "scores": [s.score for s in view.seats],
        "tiles": sorted(f"{bs.square.notation}:{bs.tile.letter}" for bs in view.board.squares
                        if bs.HasField("tile")),
    }


async def main(name: str) -> None:
    out = HERE / f"{name}.json"
    if out.exists():
        raise SystemExit(f"{out} exists: fixtures are never rewritten")
    with tempfile.TemporaryDirectory() as tmp:
        h = Harness(f"sqlite:///{tmp}/match.db", Path(tmp))
        srv = await h.start()
        watcher = h.player(srv, "alice")
        logs = []
        for mid, ruleset, humans, bots, seed in GAMES:
            await h.create(srv, mid, ruleset, humans, seed, bots, spectators_allowed=True)
            if humans:
                view = await watcher.view(mid)
                chat = m.SendChatRequest(match_id=mid, text="good luck", request_id="c1")
                await watcher.stub.SendChat(chat, metadata=watcher.md)
                while view.to_move_seat != 0:
                    view = await watcher.view(mid)
                    await asyncio.sleep(0.05)
                await watcher.submit(mid, pass_move(), view.last_seq)
                while (view := await watcher.view(mid)).to_move_seat != 0:
                    await asyncio.sleep(0.05)
                await watcher.stub.SubmitTurn(m.SubmitTurnRequest(
                    match_id=mid, expected_seq=view.last_seq, request_id="bye",
                    move=c.Move(resign=c.ResignMove())), metadata=watcher.md)
            logs.append((mid, expected(await _finished(watcher, mid))))
        with Session(srv.db.engine) as s:
            dump = {"written_by": "wordarena match server, stored-log version of 2026-12-07",
                    "matches": []}
            for mid, expect in logs:
                dump["matches"].append({
                    "match": _row(s.get(MatchRow, mid)),
                    "events": [_row(r) for r in s.exec(select(EventRow).where(EventRow.match_id == mid)
                                                        .order_by(EventRow.seq))],
                    "requests": [_row(r) for r in
                                 s.exec(select(RequestRow).where(RequestRow.match_id == mid))],
                    "expect": expect,
                })
        await h.close()
    out.write_text(json.dumps(dump, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
