"""Match scripting commands: ``move``, ``pass``, ``swap``, ``resign``, ``accept``, ``check``,
``state``, ``stream``, ``bag``, ``preview``, ``hindsight``, ``strength``, ``define``, ``chat``,
``log`` (combat log and chat history), ``kick``, ``leave``.

Moves are written as players write them: ``8H WORD`` across, ``H8 WORD`` down, lower case for a
blank, ``.`` for a tile already on the board, ``H8 @bomb`` an action tile, parts of one play
joined with ``+`` (see :mod:`clients.cli.moves`). ``--expected-seq`` defaults to the latest seq of a
fresh GetMatch; the match server's address is remembered from the lobby (or asked with
LocateMatch).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from wordarena.clients.cli import effects, movelog, moves, render
from wordarena.clients.cli.client import (
    EXIT_REFUSED,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
    Client,
    ClientError,
    to_dict,
)
from wordarena.clients.cli.common import add_common, emit, json_text, run
from wordarena.clients.cli.safe import safe_text
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
    p = cmd("move", "submit a turn: '8H WORD', 'H8 WORD', 'H8 @bomb', '8H WORD + K10 @bomb', 'pass', "
            "'swap ABC @bomb', 'resign'", _move,
            ("move", {"metavar": "MOVE", "nargs": "+"}), seq)
    p.add_argument("--request-id", default=None, help="idempotency key (default: a new UUID)")
    p.add_argument("--yes", action="store_true", help="with 'resign': confirm it (a script must)")
    cmd("pass", "pass the turn", _pass, seq)
    cmd("swap", "exchange tiles with the bag ('?' = blank, '*' = wildcard, '@bomb' = an action tile)",
        _swap, ("tiles", {"metavar": "TILES", "nargs": "+"}), seq)
    cmd("resign", "resign the match (a loss): asks first on a terminal; a script adds --yes", _resign, seq,
        ("--yes", {"action": "store_true", "help": "confirm without asking (scripts must)"}))
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
        ("--limit", {"type": int, "default": 5, "help": "how many best plays (1..20)"}),
        ("--sim", {"action": "store_true",
                   "help": "also rank them by simulation (level 6's judgement: what each play "
                           "keeps after the opponent's best answer; a second or two)"}))
    cmd("strength", "is this play valid, and how does it rank among your legal plays", _strength,
        ("play", {"metavar": "PLAY", "nargs": "+"}))
    cmd("chat", "send a chat message (a spectator's goes to the observers' channel)", _chat,
        ("text", {"metavar": "TEXT", "nargs": "+"}))
    cmd("log", "the combat log (War of Words effects), or the chat history with --chat", _log,
        ("--chat", {"action": "store_true", "help": "the chat history instead of the combat log"}),
        ("--all", {"action": "store_true", "help": "chat and combat log together"}),
        ("--limit", {"type": int, "default": 50, "help": "how many entries, newest (1..200)"}))
    cmd("kick", "kick a player idle for too long (a loss for them)", _kick,
        ("seat", {"metavar": "SEAT", "help": "seat number or display name"}))

    p = subparsers.add_parser("define", help="definitions of a word (on a match's server)")
    p.add_argument("word", metavar="WORD")
    p.add_argument("--match", required=True, metavar="MATCH", help="a match whose server to ask")
    p.add_argument("--language", default="", help="language (default the match's)")
    add_common(p)
    p.set_defaults(func=run(_define))


def events_text(events: list[common_pb2.Event] | tuple, names: list[str] | None = None) -> str:
    """Move-log lines for events."""
    return "\n".join(movelog.describe_events(events, names))


def _names(client: Client, match_id: str) -> tuple[match_pb2.MatchView, list[str]]:
    view = client.get_match(match_id)
    return view, render.names_of(view)


def submit(args: argparse.Namespace, client: Client, text: str) -> int:
    """Parse ``text`` against the current board and submit it."""
    view, names = _names(client, args.match_id)
    move = moves.parse_move(view.board, text, moves.has_action_tiles(view.ruleset))
    if move.HasField("resign") and not _resign_confirmed(args, view):
        raise ClientError("Not resigned: resigning ends the game as a loss; add --yes to confirm "
                          "(a script must)", EXIT_USAGE)
    expected = args.expected_seq if args.expected_seq is not None else view.last_seq
    try:
        resp = client.submit(args.match_id, move, expected, getattr(args, "request_id", None))
    except ClientError as exc:
        if exc.rule != "NOT_YOUR_TURN":
            raise
        raise ClientError(render.not_your_turn(client.get_match(args.match_id)), exc.exit_code,
                          code=exc.code, rule=exc.rule) from exc
    out = events_text(list(resp.events), names) or f"Submitted {text}"
    out += f"\nlast seq {resp.last_seq}; rack {render.rack_letters(resp.rack) or '-'}"
    emit(args, to_dict(resp), out)
    return 0


def _move(args: argparse.Namespace, client: Client) -> int:
    return submit(args, client, " ".join(args.move))


def _pass(args: argparse.Namespace, client: Client) -> int:
    return submit(args, client, "pass")


def _swap(args: argparse.Namespace, client: Client) -> int:
    return submit(args, client, "swap " + " ".join(args.tiles))


def _resign(args: argparse.Namespace, client: Client) -> int:
    return submit(args, client, "resign")


def _resign_confirmed(args: argparse.Namespace, view: match_pb2.MatchView) -> bool:
    """``--yes``, or a ``y`` typed at the question on a terminal (a script must say ``--yes``)."""
    if getattr(args, "yes", False):
        return True
    if not sys.stdin.isatty() or getattr(args, "json", False):
        return False
    names = " vs ".join(render.names_of(view))
    try:
        answer = input(f"Resign match {args.match_id} ({names})? It ends the game as a loss [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


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
    try:
        names = render.names_of(client.get_match(args.match_id))
    except ClientError as exc:  # no such match, not signed in: exit 1 (unreachable: retried below)
        if exc.exit_code != EXIT_UNREACHABLE:
            raise
    count = 0
    last_event = time.monotonic()
    previous: common_pb2.Effect | None = None

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
            print(json_text(to_dict(event)), flush=True)
        elif (event.WhichOneof("kind") == "effect" and previous is not None
              and effects.same_happening(previous, event.effect)):
            # the same happening again, for another player's score: only what is new
            who = names[event.effect.seat] if event.effect.HasField("seat") and event.effect.seat < len(
                names) else "seat"
            print(f"{event.seq:>4}   and {who} {event.effect.points:+d}", flush=True)
        else:
            line = movelog.describe_event(event, names)
            print(f"{event.seq:>4} {line or event.WhichOneof('kind')}", flush=True)
        previous = event.effect if event.WhichOneof("kind") == "effect" else None
        count += 1
        if args.count and count >= args.count:
            break
    return 0


def _bag(args: argparse.Namespace, client: Client) -> int:
    resp = client.tile_bag(args.match_id)
    tiles = render.tile_counts_text(resp.unseen)
    emit(args, to_dict(resp), f"Unseen ({resp.unseen_count}: {resp.bag_count} in the bag, "
         f"{resp.opponent_rack_count} on other racks): {tiles}")
    return 0


def _ask(args: argparse.Namespace, client: Client, call: Callable[..., Any],
         describe: Callable[[Any, set[tuple[int, int]]], str], verdict: str) -> int:
    """PreviewPlay or WordStrength for the play typed; exit 1 when the answer is no."""
    view = client.get_match(args.match_id)
    text = " ".join(args.play)
    action_tiles = moves.has_action_tiles(view.ruleset)
    if call == client.preview:  # a preview takes the moves of a Rain / Whirlwind too
        play = moves.play_move(view.board, text, action_tiles)
        placed = list(play.placements)
        resp = client.preview(args.match_id, placed, effect_moves=list(play.effect_moves))
    else:
        placed = moves.play_placements(view.board, text, action_tiles)
        resp = call(args.match_id, placed)
    blanks = movelog.blank_squares(placed, view.board)
    if call == client.preview:
        seat = view.viewer_seat if view.HasField("viewer_seat") else None
        emit(args, to_dict(resp), preview_text(resp, blanks, render.names_of(view), seat))
    else:
        emit(args, to_dict(resp), describe(resp, blanks))
    return 0 if getattr(resp, verdict) else EXIT_REFUSED


def _preview(args: argparse.Namespace, client: Client) -> int:
    return _ask(args, client, client.preview, preview_text, "legal")


def preview_text(resp: match_pb2.PreviewPlayResponse, blanks: set[tuple[int, int]],
                 names: Sequence[str] = (), seat: int | None = None) -> str:
    """A PreviewPlay answer in words (blanks in lower case, as on the board); War of Words: what
    the action tiles will do, a line each as the combat log will tell it, and what the play
    comes to for each player (``names`` by seat; ``seat`` the player previewing)."""
    if resp.legal:
        text = "Legal: " + (movelog.breakdown_text(resp.breakdown, blanks) if resp.HasField("breakdown")
                            else "score hidden (under a cloud)")
    else:
        text = "Not legal: " + render.violation_text(resp.violation)
        if resp.HasField("breakdown"):
            text += f"\nWould score {movelog.breakdown_text(resp.breakdown, blanks)}"
    if not resp.effects and not resp.reach_hidden:
        return text

    def who(s: int) -> str:
        return safe_text(names[s]) if 0 <= s < len(names) else f"seat {s}"

    lines = [text, "Then:" if resp.effects else ""]
    lines.extend(f"  {line}" for line in movelog.describe_events(
        (common_pb2.Event(effect=e) for e in resp.effects), list(names) or None))
    net: dict[int, int] = {}
    if seat is not None:
        net[seat] = resp.breakdown.total
    for e in resp.effects:
        if e.HasField("seat"):
            net[e.seat] = net.get(e.seat, 0) + e.points
    if any(e.points for e in resp.effects):
        lines.append("In all: " + ", ".join(f"{who(s)} {p:+d}" for s, p in sorted(net.items())))
    if resp.reach_hidden:
        lines.append("Some squares it reaches are under a cloud (or next to one): what lies there is "
                     "not counted, so it may destroy more")
    return "\n".join(line for line in lines if line)


#: Hindsight asks the server for this many plays and shows the best ``--limit`` of them once
#: the same play at mirror positions of the opening (``H4 / 8D / 8H / H8 WORD``) is one row.
HINDSIGHT_ASK = 20


def _hindsight(args: argparse.Namespace, client: Client) -> int:
    ask = args.limit if args.sim or args.json else HINDSIGHT_ASK
    resp = client.hindsight(args.match_id, args.turn, ask, args.sim)
    emit(args, to_dict(resp), hindsight_text(resp, shown=args.limit, asked_seq=args.turn))
    return 0


def hindsight_text(resp: match_pb2.HindsightResponse, shown: int = 0, asked_seq: int = 0) -> str:
    """A Hindsight answer: what was played, its rank, the best plays with their leaves (the same
    word for the same score and leave at several positions one row: ``H4 / 8D / 8H / H8 WORD``;
    at most ``shown`` rows when given), and (when asked for) the plays ranked by simulation."""
    turn = f"Your turn at event {asked_seq}" if asked_seq else "Your last turn"
    lines = [f"{turn}: {render.counted(resp.legal_play_count, 'legal play')}"]
    if resp.HasField("played") and resp.played.notation:
        lines.append(f"You played {movelog.play_text(resp.played.notation, resp.played.play.placements)} "
                     f"for {resp.played.breakdown.total} (rank {resp.played_rank})")
    rows = _same_plays_once(resp.best)
    for i, (positions, a) in enumerate(rows[:shown or None], 1):
        leave = render.rack_letters(common_pb2.Rack(tiles=a.leave))
        line = f"{i:>2}. {_play_row(a, positions)}"
        lines.append(line + (f"  leave {leave}" if leave else ""))
    if resp.simulated:
        lines.append("By simulation (what a play keeps after the opponent's best answer):")
        lines.extend(simulated_text(i, s) for i, s in enumerate(resp.simulated, 1))
    return "\n".join(lines)


def _same_plays_once(best: Iterable[match_pb2.AnalysedPlay]
                     ) -> list[tuple[list[str], match_pb2.AnalysedPlay]]:
    """The plays in order, each word that scores the same and keeps the same leave once, with
    every position it was listed at (on an empty board the same play lies at four mirror
    positions); the same placements listed twice count once."""
    rows: dict[tuple[object, ...], tuple[list[str], match_pb2.AnalysedPlay]] = {}
    for a in best:
        position, _, word = movelog.play_text(a.notation, a.play.placements).partition(" ")
        leave = render.rack_letters(common_pb2.Rack(tiles=a.leave))
        key = (word, a.breakdown.total, leave) if a.notation else (
            tuple(sorted(p.SerializeToString(deterministic=True) for p in a.play.placements)),)
        positions, _ = rows.setdefault(key, ([], a))
        if position not in positions:
            positions.append(position)
    return list(rows.values())


def _play_row(a: match_pb2.AnalysedPlay, positions: Sequence[str] = ()) -> str:
    """A play in a Hindsight list: its notation (with the other positions of the same play,
    ``H4 / 8D ADORN``) and score, in columns."""
    text = movelog.play_text(a.notation, a.play.placements)
    if len(positions) > 1:
        text = " / ".join(positions) + " " + text.partition(" ")[2]
    return f"{text:<20} {a.breakdown.total:>4}"


def simulated_text(rank: int, sim: match_pb2.SimulatedPlay) -> str:
    """One play ranked by simulation: the play (or the exchange), its equity, what it keeps on
    average ± its error, the chance to win and over how many draws."""
    if sim.HasField("play"):
        what = _play_row(sim.play)
    else:
        what = f"{'exchange ' + render.rack_letters(common_pb2.Rack(tiles=sim.exchange)):<25}"
    head = f"{rank:>2}. {what}  equity {sim.equity:.1f}"
    if not sim.iterations:
        return head + "  (the only choice: not simulated)"
    return (f"{head}  keeps {sim.mean_spread:+.1f} ± {sim.spread_error:.1f}  "
            f"win {sim.win_chance:.0%}  ({sim.iterations} draws)")


def _strength(args: argparse.Namespace, client: Client) -> int:
    return _ask(args, client, client.strength, strength_text, "valid")


def strength_text(resp: match_pb2.WordStrengthResponse, blanks: set[tuple[int, int]]) -> str:
    """A WordStrength answer in words: the best play says so (or that it ties for best)."""
    if resp.valid:
        score = resp.breakdown.total
        if score >= resp.best_score:
            tied = resp.HasField("best") and resp.best.breakdown.total >= score
            where = "tied for the best play" if tied else "the best play"
        else:
            where = (f"rank {resp.rank} of {resp.legal_play_count}: the best scores "
                     f"{resp.best_score}, this beats {resp.percentile:.0%} of the plays")
        text = f"Valid: {movelog.breakdown_text(resp.breakdown, blanks)}; {where}"
        if score >= resp.best_score:
            text += f" (of {render.counted(resp.legal_play_count, 'legal play')})"
    else:
        reasons = []
        if resp.invalid_words:
            reasons.append("not words: " + ", ".join(resp.invalid_words))
        if resp.HasField("violation") and (resp.violation.code or resp.violation.code_name):
            reasons.append(render.violation_text(resp.violation))
        text = "Not valid: " + ("; ".join(reasons) or "illegal") + f" (best available {resp.best_score})"
    return text


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


LOG_CHANNELS = {"combat": match_pb2.LOG_CHANNEL_COMBAT, "chat": match_pb2.LOG_CHANNEL_CHAT,
                "all": match_pb2.LOG_CHANNEL_UNSPECIFIED}


def log_text(resp: match_pb2.ListLogResponse, names: list[str], channel: str) -> str:
    """A ListLog page oldest first, one line per entry (``seq turn: what``)."""
    lines = []
    for group in _happenings(list(reversed(resp.events))):
        e = group[0]
        lines.append(f"{e.seq:>4}  " + (f"turn {e.turn_number:<3} " if e.turn_number else "")
                     + "\n".join(movelog.describe_events(group, names)))
    title = {"combat": "Combat log", "chat": "Chat", "all": "Chat and combat log"}[channel]
    return "\n".join([f"{title} ({render.counted(len(lines), 'entry', 'entries')}):" if lines
                      else f"{title}: nothing yet", *lines])


def _happenings(events: list[common_pb2.Event]) -> list[list[common_pb2.Event]]:
    """Events in order, the Effect events that tell one happening (one per player whose score
    it moved) grouped together, every other event alone."""
    out: list[list[common_pb2.Event]] = []
    for e in events:
        prev = out[-1][0] if out else None
        if (prev is not None and e.WhichOneof("kind") == "effect" and prev.WhichOneof("kind") == "effect"
                and effects.same_happening(prev.effect, e.effect)):
            out[-1].append(e)
        else:
            out.append([e])
    return out


def _log(args: argparse.Namespace, client: Client) -> int:
    channel = "all" if args.all else "chat" if args.chat else "combat"
    resp = client.list_log(args.match_id, LOG_CHANNELS[channel], max(1, min(args.limit, 200)))
    _view, names = _names(client, args.match_id)
    emit(args, to_dict(resp), log_text(resp, names, channel))
    return 0


def seat_of(view: match_pb2.MatchView, text: str) -> int:
    """A seat named by its number or its player's display name (case-insensitive)."""
    text = text.strip()
    if text.isdigit() and any(s.index == int(text) for s in view.seats):
        return int(text)
    found = [s.index for s in view.seats if s.player.display_name.lower() == text.lower()]
    if len(found) != 1:
        seats = ", ".join(f"{s.index} {render.seat_name(view, s.index)}" for s in view.seats)
        raise ClientError(f"No seat {text!r} in this match (seats: {seats})", EXIT_USAGE)
    return found[0]


def _kick(args: argparse.Namespace, client: Client) -> int:
    view, names = _names(client, args.match_id)
    resp = client.kick(args.match_id, seat_of(view, args.seat))
    emit(args, to_dict(resp), events_text(list(resp.events), names) or "Kicked")
    return 0
