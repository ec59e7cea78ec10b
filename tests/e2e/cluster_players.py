"""Scripted players for the cluster fail-over test, run in the clients' own namespace.

Usage: ``python cluster_players.py LOBBY OUT_JSONL WORK_DIR --pairs N --bots M --stop-file F``.

They know only the lobby's address. Each slot is a thread playing classic matches back to back
until ``--stop-file`` exists, then finishing the match in hand: a *pair* slot is two guests at one
table passing in turn (a 0–0 game ends after six passes); a *bot* slot is a guest against a
level-1 bot (the bot moves on the match server) who passes ``--bot-turns`` times and then resigns.
Every player is a reference CLI client (``clients.cli.client.Client``), which finds a match that
moved through ``MatchMoved`` error details or, when its server does not answer, ``LocateMatch``.

One JSON object per line on ``OUT_JSONL`` (written under a lock, flushed at once):

- ``{"kind": "match", "t": …, "match": …, "address": …, "seats": {player id: seat}, "bot": bool}``
  when a match starts (the server the lobby allocated it on; the scripted players' seats);
- ``{"kind": "ack", "t": …, "match": …, "player": …, "request_id": …, "last_seq": …,
  "address": …}`` for every turn the server acknowledged (``address``: the server that answered);
- ``{"kind": "refused", "t": …, "match": …, "code": …, "rule": …, "request_id": …}`` for every
  failed SubmitTurn attempt (the turn is retried with the same request id, so it counts once);
- ``{"kind": "moved", "t": …, "match": …, "via": "MatchMoved" | "LocateMatch", "from": …, "to": …}``
  each time a client follows its match to another server;
- ``{"kind": "finished", "t": …, "match": …, "status": …}`` when a slot saw its match end;
- ``{"kind": "error", …}`` when a slot failed, ``{"kind": "done"}`` at exit.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

from wordarena.clients.cli.client import Client, Config, new_request_id
from wordarena.clients.cli.errors import ClientError
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import lobby_pb2
from wordarena.v1 import match_pb2 as m

PASS = c.Move(pass_turn=c.PassMove())
RESIGN = c.Move(resign=c.ResignMove())
CALL_TIMEOUT = 2.0  # a server that stopped answering is given up on (and the match located) soon
LOBBY_TIMEOUT = 30.0  # the lobby is not failed in the test; starting a table may try several servers


class Log:
    """The shared JSON-lines output."""

    def __init__(self, path: Path) -> None:
        self.file = path.open("a", encoding="utf-8")
        self.lock = threading.Lock()

    def write(self, **record: Any) -> None:
        with self.lock:
            self.file.write(json.dumps(record) + "\n")
            self.file.flush()


class Player(Client):
    """A reference client that logs each time it follows a match to another server."""

    def __init__(self, lobby: str, config: Path, log: Log) -> None:
        super().__init__(lobby, config=Config(config), timeout=CALL_TIMEOUT)
        self.log = log

    def relocate(self, match_id: str, exc: ClientError) -> bool:
        old = self.profile.matches.get(match_id)
        moved = super().relocate(match_id, exc)
        if moved:
            self.log.write(
                kind="moved",
                t=time.time(),
                match=match_id,
                player=self.profile.player_id,
                via="MatchMoved" if exc.new_address else "LocateMatch",
                **{"from": old},
                to=self.profile.matches.get(match_id),
            )
        return moved


def patiently(call: Any, *args: Any, tries: int = 200, **kwargs: Any) -> Any:
    """``call(*args)``, retried every 0.2 s while the cluster is failing over."""
    for attempt in range(tries):
        try:
            return call(*args, **kwargs)
        except ClientError as exc:
            if attempt == tries - 1 or exc.code not in ("UNAVAILABLE", "DEADLINE_EXCEEDED", "NOT_FOUND"):
                raise
            time.sleep(0.2)
    raise AssertionError("unreachable")


def view(player: Player, match_id: str) -> m.MatchView:
    """The player's view, waiting out a failing-over server."""
    return patiently(player.get_match, match_id)


def take_turn(player: Player, match_id: str, move: c.Move, seen: m.MatchView) -> None:
    """Submit ``move`` on ``seen.last_seq`` until the server answers (one request id for all tries).
    A refusal that is not about reaching the server (the game moved on) ends the attempt."""
    request_id = new_request_id()
    while True:
        try:
            resp = player.submit(match_id, move, expected_seq=seen.last_seq, request_id=request_id)
        except ClientError as exc:
            player.log.write(
                kind="refused",
                t=time.time(),
                match=match_id,
                player=player.profile.player_id,
                code=exc.code,
                rule=exc.rule,
                request_id=request_id,
            )
            if exc.code in ("UNAVAILABLE", "DEADLINE_EXCEEDED", "NOT_FOUND"):
                time.sleep(0.2)
                continue
            return
        player.log.write(
            kind="ack",
            t=time.time(),
            match=match_id,
            player=player.profile.player_id,
            request_id=request_id,
            last_seq=resp.last_seq,
            address=player.profile.matches.get(match_id),
        )
        return


def play(players: dict[int, Player], match_id: str, think: float, bot_turns: int | None) -> None:
    """Play the match to its end: each seat in ``players`` passes on its turn (a bot seat's
    player resigns after ``bot_turns`` passes)."""
    watcher = next(iter(players.values()))
    turns = 0
    while True:
        v = view(watcher, match_id)
        if v.status != m.MATCH_STATUS_IN_PROGRESS:
            watcher.log.write(kind="finished", t=time.time(), match=match_id, status=int(v.status))
            return
        mover = players.get(v.to_move_seat)
        if mover is None:  # the bot's turn
            time.sleep(0.05)
            continue
        if mover is not watcher:
            v = view(mover, match_id)
            if v.to_move_seat not in players or players[v.to_move_seat] is not mover:
                continue
        time.sleep(think)
        move = RESIGN if bot_turns is not None and turns >= bot_turns else PASS
        take_turn(mover, match_id, move, v)
        turns += 1


def table_settings(bot: bool) -> lobby_pb2.TableSettings:
    return lobby_pb2.TableSettings(
        ruleset=c.RulesetRef(ruleset_id="classic", language="en"),
        seats=2,
        bots=[lobby_pb2.BotSeat(seat=1, bot_level=1)] if bot else [],
        start_policy=lobby_pb2.START_POLICY_HOST,
    )


def slot(index: int, args: argparse.Namespace, log: Log, bot: bool) -> None:
    """Matches back to back until the stop file appears."""
    work = Path(args.work_dir)
    host = Player(args.lobby, work / f"slot{index}-a.json", log)
    host.sign_in_guest(f"Host{index}")
    guest = None if bot else Player(args.lobby, work / f"slot{index}-b.json", log)
    if guest is not None:
        guest.sign_in_guest(f"Guest{index}")
    while not Path(args.stop_file).exists():
        table = host.create_table(table_settings(bot), seat=0)
        if guest is not None:
            guest.join_table(table.table_id, seat=1)
        # The lobby allocates within the call; a match server that stopped answering costs it up to
        # 2 s per candidate, so this call gets a lobby-sized deadline (retries reuse the request id).
        patiently(host.start_table, table.table_id, request_id=new_request_id(), timeout=LOBBY_TIMEOUT)
        where = host.wait_for_match(table.table_id, timeout=60)
        players = {where.seat: host}
        if guest is not None:
            players[guest.wait_for_match(table.table_id).seat] = guest
        log.write(
            kind="match",
            t=time.time(),
            match=where.match_id,
            address=where.address,
            bot=bot,
            seats={p.profile.player_id: seat for seat, p in players.items()},
        )
        play(players, where.match_id, args.think, args.bot_turns if bot else None)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("lobby")
    p.add_argument("out")
    p.add_argument("work_dir")
    p.add_argument("--pairs", type=int, default=4)
    p.add_argument("--bots", type=int, default=2)
    p.add_argument("--bot-turns", type=int, default=4)
    p.add_argument("--think", type=float, default=0.2)
    p.add_argument("--stop-file", required=True)
    args = p.parse_args(argv)
    log = Log(Path(args.out))
    errors: list[BaseException] = []

    def run(index: int, bot: bool) -> None:
        try:
            slot(index, args, log, bot)
        except BaseException as exc:  # reported below: the test fails on any slot's error
            errors.append(exc)
            log.write(kind="error", slot=index, error=repr(exc))

    threads = [threading.Thread(target=run, args=(i, i >= args.pairs)) for i in range(args.pairs + args.bots)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    log.write(kind="done", errors=len(errors))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
