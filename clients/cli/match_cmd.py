"""Match scripting commands: ``move``, ``pass``, ``swap``, ``resign``, ``accept``, ``check``,
``state``, ``stream``, ``bag``, ``preview``, ``hindsight``, ``strength``, ``define``, ``chat``,
``leave``.

Moves are written as players write them: ``8H WORD`` across, ``H8 WORD`` down, lower case for a
blank, ``.`` for a tile already on the board. ``--expected-seq`` defaults to the latest seq of a
fresh GetMatch; the match server's address is remembered from the lobby (or asked with
LocateMatch).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time

from wordarena.clients.cli import moves, render
from wordarena.clients.cli.client import EXIT_REFUSED, Client, ClientError, to_dict
from wordarena.clients.cli.common import add_common, emit, run
from wordarena.v1 import common_pb2, match_pb2


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register the match commands."""

    def cmd(name: str, help_: str, func, *args: tuple[str, dict]) -> argparse.ArgumentParser:  # type: ignore[no-untyped-def]
        p = subparsers.add_parser(name, help=help_, description=help_)
        p.add_argument("match_id", metavar="MATCH")
        for flag, kw in args:
            p.add_argument(flag, **kw)
        add_common(p)
        p.set_defaults(func=run(func))
        return p

    seq = ("--expected-seq", {"type": int, "default": None,
                              "help": "latest seq you have seen (default: from a fresh GetMatch)"})
    p = cmd("move", "submit a turn: '8H WORD', 'H8 WORD', 'pass', 'swap ABC', 'resign'", _move,
            ("move", {"metavar": "MOVE", "nargs": "+"}), seq)
    p.add_argument("--request-id", default=None, help="idempotency key (default: a new UUID)")
    cmd("pass", "pass the turn", _pass, seq)
    cmd("swap", "exchange tiles with the bag ('?' = blank)", _swap, ("tiles", {"metavar": "TILES"}), seq)
    cmd("resign", "resign the match", _resign, seq)
    cmd("accept", "Word Tiles: accept the pending play", _accept, seq)
    cmd("check", "Word Tiles: check the pending play's words", _check, seq)
    cmd("leave", "leave the match (the others play on)", _leave)
    cmd("state", "the match as you see it: board, rack, scores, whose turn", _state)
    cmd("stream", "print the match's events after a seq, live, until the game ends", _stream,
        ("--after", {"type": int, "default": 0, "help": "events after this seq (default 0)"}),
        ("--count", {"type": int, "default": 0, "help": "stop after this many events"}),
        ("--idle", {"type": float, "default": 0.0,
                    "help": "stop after this many seconds without an event (0 = never)"}))
    cmd("bag", "tiles unseen from your seat (bag + opponents' racks)", _bag)
    cmd("preview", "score a play without making it", _preview, ("play", {"metavar": "PLAY", "nargs": "+"}))
    cmd("hindsight", "the best plays you could have made on your last turn", _hindsight,
        ("--turn", {"type": int, "default": 0, "help": "seq of the turn (default your latest)"}),
        ("--limit", {"type": int, "default": 5, "help": "how many best plays (1..20)"}))
    cmd("strength", "is this play valid, and how does it rank among your legal plays", _strength,
        ("play", {"metavar": "PLAY", "nargs": "+"}))
    cmd("chat", "send a chat message", _chat, ("text", {"metavar": "TEXT", "nargs": "+"}))

    p = subparsers.add_parser("define", help="definitions of a word (on a match's server)")
    p.add_argument("word", metavar="WORD")
    p.add_argument("--match", required=True, metavar="MATCH", help="a match whose server to ask")
    p.add_argument("--language", default="", help="language (default the match's)")
    add_common(p)
    p.set_defaults(func=run(_define))


def events_text(events: list[common_pb2.Event] | tuple, names: list[str] | None = None) -> str:
    """Move-log lines for events."""
    lines = [render.describe_event(e, names) for e in events]
    return "\n".join(line for line in lines if line)


def _names(client: Client, match_id: str) -> tuple[match_pb2.MatchView, list[str]]:
    view = client.get_match(match_id)
    return view, render.names_of(view)


def submit(args: argparse.Namespace, client: Client, text: str) -> int:
    """Parse ``text`` against the current board and submit it."""
    view, names = _names(client, args.match_id)
    move = moves.parse_move(view.board, text)
    expected = args.expected_seq if args.expected_seq is not None else view.last_seq
    resp = client.submit(args.match_id, move, expected, getattr(args, "request_id", None))
    out = events_text(list(resp.events), names) or f"Submitted {text}"
    out += f"\nlast seq {resp.last_seq}; rack {render.rack_letters(resp.rack) or '-'}"
    emit(args, to_dict(resp), out)
    return 0


def _move(args: argparse.Namespace, client: Client) -> int:
    return submit(args, client, " ".join(args.move))


def _pass(args: argparse.Namespace, client: Client) -> int:
    return submit(args, client, "pass")


def _swap(args: argparse.Namespace, client: Client) -> int:
    return submit(args, client, f"swap {args.tiles}")


def _resign(args: argparse.Namespace, client: Client) -> int:
    return submit(args, client, "resign")


def _decide(args: argparse.Namespace, client: Client, decision: int) -> int:
    view, names = _names(client, args.match_id)
    expected = args.expected_seq if args.expected_seq is not None else view.last_seq
    resp = client.decide(args.match_id, decision, expected)
    emit(args, to_dict(resp), events_text(list(resp.events), names) or "Done")
    return 0


def _accept(args: argparse.Namespace, client: Client) -> int:
    return _decide(args, client, match_pb2.DECISION_ACCEPT)


def _check(args: argparse.Namespace, client: Client) -> int:
    return _decide(args, client, match_pb2.DECISION_CHECK)


def _leave(args: argparse.Namespace, client: Client) -> int:
    resp = client.leave(args.match_id)
    _view, names = _names(client, args.match_id)
    emit(args, to_dict(resp), events_text(list(resp.events), names) or "Left the match")
    return 0


def _state(args: argparse.Namespace, client: Client) -> int:
    view = client.get_match(args.match_id)
    emit(args, to_dict(view), render.match_screen(view))
    return 0


def _stream(args: argparse.Namespace, client: Client) -> int:
    names: list[str] = []
    with contextlib.suppress(ClientError):
        names = render.names_of(client.get_match(args.match_id))
    count = 0
    last_event = time.monotonic()

    def stop() -> bool:
        return bool(args.idle) and time.monotonic() - last_event > args.idle

    def notice(text: str) -> None:
        import sys

        print(f"notice: {text}", file=sys.stderr, flush=True)

    for event in client.follow(args.match_id, args.after, notice=notice, heartbeats=bool(args.idle),
                               stop=stop):
        if event.WhichOneof("kind") == "heartbeat":
            continue
        last_event = time.monotonic()
        if args.json:
            print(json.dumps(to_dict(event), ensure_ascii=False), flush=True)
        else:
            line = render.describe_event(event, names)
            print(f"{event.seq:>4} {line or event.WhichOneof('kind')}", flush=True)
        count += 1
        if args.count and count >= args.count:
            break
    return 0


def _bag(args: argparse.Namespace, client: Client) -> int:
    resp = client.tile_bag(args.match_id)
    tiles = " ".join(f"{render.tile_text(tc.tile) if not tc.tile.is_blank else '?'}×{tc.count}"
                     for tc in resp.unseen)
    emit(args, to_dict(resp), f"Unseen ({resp.unseen_count}: {resp.bag_count} in the bag, "
         f"{resp.opponent_rack_count} on other racks): {tiles}")
    return 0


def _placements(client: Client, match_id: str, words: list[str]) -> list[common_pb2.Placement]:
    position, word = moves.split_play(" ".join(words))
    view = client.get_match(match_id)
    return moves.placements(view.board, position, word)


def _preview(args: argparse.Namespace, client: Client) -> int:
    resp = client.preview(args.match_id, _placements(client, args.match_id, args.play))
    if resp.legal:
        text = "Legal: " + (render.breakdown_text(resp.breakdown) if resp.HasField("breakdown")
                            else "score hidden (under a cloud)")
    else:
        text = "Not legal: " + render.violation_text(resp.violation)
        if resp.HasField("breakdown"):
            text += f"\nWould score {render.breakdown_text(resp.breakdown)}"
    emit(args, to_dict(resp), text)
    return 0 if resp.legal else EXIT_REFUSED


def _hindsight(args: argparse.Namespace, client: Client) -> int:
    resp = client.hindsight(args.match_id, args.turn, args.limit)
    lines = [f"Turn at seq {resp.turn_seq}: {resp.legal_play_count} legal plays"]
    if resp.HasField("played") and resp.played.notation:
        lines.append(f"You played {resp.played.notation} for {resp.played.breakdown.total} "
                     f"(rank {resp.played_rank})")
    for i, a in enumerate(resp.best, 1):
        leave = "".join(render.tile_text(t) for t in a.leave)
        line = f"{i:>2}. {a.notation:<20} {a.breakdown.total:>4}"
        lines.append(line + (f"  leave {leave}" if leave else ""))
    emit(args, to_dict(resp), "\n".join(lines))
    return 0


def _strength(args: argparse.Namespace, client: Client) -> int:
    resp = client.strength(args.match_id, _placements(client, args.match_id, args.play))
    if resp.valid:
        text = (f"Valid: {render.breakdown_text(resp.breakdown)}; rank {resp.rank} of "
                f"{resp.legal_play_count} (best {resp.best_score}, beats {resp.percentile:.0%})")
    else:
        reasons = []
        if resp.invalid_words:
            reasons.append("not words: " + ", ".join(resp.invalid_words))
        if resp.HasField("violation") and (resp.violation.code or resp.violation.code_name):
            reasons.append(render.violation_text(resp.violation))
        text = "Not valid: " + ("; ".join(reasons) or "illegal") + f" (best available {resp.best_score})"
    emit(args, to_dict(resp), text)
    return 0 if resp.valid else EXIT_REFUSED


def _chat(args: argparse.Namespace, client: Client) -> int:
    resp = client.chat(args.match_id, " ".join(args.text))
    emit(args, to_dict(resp), f"Sent (seq {resp.event.seq})")
    return 0


def define_text(resp: match_pb2.DefineResponse) -> str:
    """Definitions as text."""
    lines = [f"{resp.word}" + (f"  ({resp.source})" if resp.source else "")]
    for i, d in enumerate(resp.definitions, 1):
        pos = f"{d.part_of_speech}: " if d.part_of_speech else ""
        lines.append(f"{i:>2}. {pos}{d.text}")
    return "\n".join(lines)


def _define(args: argparse.Namespace, client: Client) -> int:
    language = args.language
    if not language:
        try:
            language = client.get_match(args.match).ruleset.language
        except ClientError:
            language = ""
    resp = client.define(args.match, args.word, language)
    emit(args, to_dict(resp), define_text(resp))
    return 0
