"""Records: ``record MATCH [-o FILE]``, a match's game record as GCG (GetMatchRecord), and
``player-record [PLAYER]``, a player's wins, losses, scores and rating (GetPlayerRecord).

``record`` meant a player's record before match records existed; a player id given to it now
finds no match, and the error says where the player's record went.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wordarena.clients.cli.client import EXIT_USAGE, Client, ClientError, to_dict
from wordarena.clients.cli.common import add_common, emit, run
from wordarena.clients.cli.safe import safe_text
from wordarena.v1 import lobby_pb2, match_pb2

STATUS = {match_pb2.MATCH_STATUS_FINISHED: "finished", match_pb2.MATCH_STATUS_IN_PROGRESS: "running"}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``record`` and ``player-record``."""
    p = subparsers.add_parser(
        "record", help="a match's game record (GCG): every rack once it is over, none while it runs",
        description="Prints a match's game record as GCG (GetMatchRecord), or writes it to FILE. "
        "Its players may have it, and anyone where the match allows spectators. A player's wins "
        "and losses: `wordarena player-record`.")
    p.add_argument("match_id", metavar="MATCH")
    p.add_argument("-o", "--output", metavar="FILE", help="write the GCG to FILE instead of stdout")
    add_common(p)
    p.set_defaults(func=run(_record))

    p = subparsers.add_parser("player-record", aliases=["stats"],
                              help="a player's wins, losses, scores and rating per ruleset")
    p.add_argument("player", metavar="PLAYER", nargs="?", default="",
                   help="player id (see `whoami`, `leaderboard --json`, `state --json`); default you")
    p.add_argument("--ruleset", default="", help="only this ruleset")
    add_common(p)
    p.set_defaults(func=run(_player_record))


def _record(args: argparse.Namespace, client: Client) -> int:
    client.require_signed_in()
    try:
        resp: match_pb2.GetMatchRecordResponse = client.match_record(args.match_id)
    except ClientError as exc:
        if exc.code == "NOT_FOUND":
            exc.message += " (a player's wins and losses: `wordarena player-record PLAYER`)"
        raise
    what = f"{STATUS.get(resp.status, 'the')} match, " + ("racks shown" if resp.racks_shown else "no racks")
    if args.output:
        try:
            Path(args.output).write_text(resp.gcg, encoding="utf-8")
        except OSError as exc:
            raise ClientError(f"-o {args.output}: {exc.strerror or exc}", EXIT_USAGE) from exc
        data = {"file": args.output} | to_dict(resp)
        data.pop("gcg", None)
        emit(args, data, f"Wrote {args.output} ({what}, up to seq {resp.last_seq})")
    elif args.json:
        emit(args, to_dict(resp))
    elif sys.stdout.isatty():  # names come from other people: nothing may act on the terminal
        print(safe_text(resp.gcg, keep_newlines=True), end="", flush=True)
    else:
        print(resp.gcg, end="", flush=True)  # piped: the record as is, for GCG readers
    return 0


def record_text(resp: lobby_pb2.GetPlayerRecordResponse) -> str:
    """A player's records, one line per ruleset."""
    who = resp.player.display_name or resp.player.player_id
    lines = [f"{who} ({resp.player.player_id})" + (" guest" if resp.player.guest else "")]
    for r in resp.records:
        lines.append(f"  {r.ruleset_id:<11} {r.games} games  {r.wins}-{r.losses}-{r.ties} (W-L-T)  "
                     f"avg {r.average_score:.1f}  weighted {r.weighted_score:+.1f}  best {r.best_score}  "
                     f"rating {r.rating.rating:.0f} ±{r.rating.deviation:.0f}")
    if not resp.records:
        lines.append("  no rated games finished yet")
    return "\n".join(lines)


def _player_record(args: argparse.Namespace, client: Client) -> int:
    client.require_signed_in()
    resp = client.player_record(args.player, args.ruleset)
    emit(args, to_dict(resp), record_text(resp))
    return 0
