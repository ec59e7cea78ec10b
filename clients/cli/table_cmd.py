"""Lobby scripting commands: ``login``, ``whoami``, ``table create|list|show|join|bot|start|leave``,
``quickmatch``, ``matches``, ``leaderboard``.

Each prints a short text summary, or JSON with ``--json``; exit codes as in :mod:`clients.cli.common`.
"""

from __future__ import annotations

import argparse

from google.protobuf import duration_pb2

from wordarena.clients.cli.client import EXIT_REFUSED, Client, ClientError
from wordarena.clients.cli.common import add_common, bot_level, emit, run, to_dict
from wordarena.v1 import common_pb2, lobby_pb2

CHALLENGE = {"default": common_pb2.CHALLENGE_MODE_UNSPECIFIED,
             "instant": common_pb2.CHALLENGE_MODE_INSTANT,
             "accept-or-check": common_pb2.CHALLENGE_MODE_ACCEPT_OR_CHECK}
PERIODS = {"all": lobby_pb2.LEADERBOARD_PERIOD_ALL_TIME, "month": lobby_pb2.LEADERBOARD_PERIOD_MONTH,
           "week": lobby_pb2.LEADERBOARD_PERIOD_WEEK, "day": lobby_pb2.LEADERBOARD_PERIOD_DAY}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register the lobby commands."""
    p = subparsers.add_parser("login", help="sign in (as a new guest, or to a claimed account)",
                              description="Signs in and remembers the token in the config file "
                              "($WORDARENA_CONFIG or ~/.config/wordarena/config.json).")
    p.add_argument("--name", help="display name (3..24 characters); default: a random guest name")
    p.add_argument("--password", help="sign in to a claimed account instead of as a guest")
    add_common(p)
    p.set_defaults(func=run(_login))

    p = subparsers.add_parser("whoami", help="who the config file says you are")
    add_common(p)
    p.set_defaults(func=run(_whoami))

    table = subparsers.add_parser("table", help="create, list, join and start tables")
    sub = table.add_subparsers(dest="table_command", required=True)
    p = sub.add_parser("create", help="open a table (you become host and sit down)")
    add_settings(p)
    p.add_argument("--seat", type=int, help="your seat (default: the first free one)")
    p.add_argument("--private", action="store_true", help="unlisted; joining needs the invite code")
    p.add_argument("--host-start", action="store_true", help="start only on `table start` (not when full)")
    p.add_argument("--wait", action="store_true", help="wait until the match starts, print where")
    add_common(p)
    p.set_defaults(func=run(_table_create))

    p = sub.add_parser("list", help="list open tables")
    p.add_argument("--ruleset", default="", help="only this ruleset")
    p.add_argument("--language", default="", help="only this language")
    p.add_argument("--free", action="store_true", help="only tables with a free seat")
    p.add_argument("--all", action="store_true", help="also started and closed tables")
    add_common(p)
    p.set_defaults(func=run(_table_list))

    p = sub.add_parser("show", help="one table")
    p.add_argument("table_id", metavar="ID")
    add_common(p)
    p.set_defaults(func=run(_table_show))

    p = sub.add_parser("join", help="take a seat at a table")
    p.add_argument("table_id", metavar="ID")
    p.add_argument("--seat", type=int, help="seat wanted")
    p.add_argument("--invite", default="", help="invite code of a private table")
    p.add_argument("--wait", action="store_true", help="wait until the match starts, print where")
    add_common(p)
    p.set_defaults(func=run(_table_join))

    p = sub.add_parser("bot", help="seat a bot at your table (host only)")
    p.add_argument("table_id", metavar="ID")
    p.add_argument("--level", type=bot_level, default=3,
                   help="bot strength 1..6 or 'hardest' (= 6, simulation; default 3)")
    p.add_argument("--seat", type=int, help="seat for the bot")
    add_common(p)
    p.set_defaults(func=run(_table_bot))

    p = sub.add_parser("start", help="start the table's match (host only)")
    p.add_argument("table_id", metavar="ID")
    add_common(p)
    p.set_defaults(func=run(_table_start))

    p = sub.add_parser("leave", help="leave a table before it starts")
    p.add_argument("table_id", metavar="ID")
    add_common(p)
    p.set_defaults(func=run(_table_leave))

    p = subparsers.add_parser("quickmatch", help="queue for a quick match and wait for it",
                              description="Queues for a quick match and waits (up to --wait "
                              "seconds) until matched; prints the match id and address.")
    p.add_argument("--ruleset", default="classic", help="ruleset id (default classic)")
    p.add_argument("--language", default="", help="language (default the ruleset's)")
    p.add_argument("--board", default="", help="board id (default any)")
    p.add_argument("--seats", type=int, default=0, help="players (default 2)")
    p.add_argument("--bot-after", type=float, default=None, metavar="SECONDS",
                   help="fill empty seats with bots after this wait (5..600 s)")
    p.add_argument("--bot-level", type=bot_level, default=0,
                   help="bot strength then (1..6 or 'hardest')")
    p.add_argument("--wait", type=float, default=600.0, metavar="SECONDS",
                   help="how long to wait (0 = just queue and print the ticket)")
    add_common(p)
    p.set_defaults(func=run(_quickmatch))

    p = subparsers.add_parser("matches", help="your matches (active first), with where they are played")
    p.add_argument("--active", action="store_true", help="only active matches")
    add_common(p)
    p.set_defaults(func=run(_matches))

    p = subparsers.add_parser("leaderboard", help="a ruleset's leaderboard")
    p.add_argument("--ruleset", default="classic", help="ruleset id (default classic)")
    p.add_argument("--period", choices=sorted(PERIODS), default="all")
    p.add_argument("--limit", type=int, default=20, help="entries (1..100)")
    add_common(p)
    p.set_defaults(func=run(_leaderboard))


def add_settings(p: argparse.ArgumentParser, *, bots: bool = True) -> None:
    """Table settings options (shared with ``play``, which has its own ``--bot``)."""
    p.add_argument("--ruleset", default="classic",
                   help="classic, wordtiles, scrabble, warofwords (default classic)")
    p.add_argument("--language", default="", help="language, e.g. en, es, de (default en)")
    p.add_argument("--board", default="", help="board id (default the ruleset's)")
    p.add_argument("--seats", type=int, default=0, help="seats 2..4 (default the ruleset's minimum)")
    if bots:
        p.add_argument("--bot", type=bot_level, action="append", default=[], metavar="LEVEL",
                       help="seat a bot of this level (1..6 or 'hardest') at the next free seat; "
                       "repeatable")
    p.add_argument("--bot-think", type=int, default=0, metavar="MS",
                   help="the bots' think time per move, 100..30000 ms (level 6 simulates this "
                   "long; default the server's, 1.5 s)")
    p.add_argument("--clock", type=float, default=0, metavar="MINUTES",
                   help="game clock, minutes per player (wordtiles: 3..20, default 10; "
                   "scrabble: 5..90, default 25, 10 points per started minute over)")
    p.add_argument("--turn-deadline", type=float, default=0, metavar="HOURS",
                   help="classic, warofwords: hours per turn, 1..720 (default 72); classic "
                   "times a late player out, War of Words lets the others kick them")
    p.add_argument("--challenge", choices=sorted(CHALLENGE), default="default",
                   help="how words are checked")
    p.add_argument("--unrated", action="store_true", help="do not count towards records")
    p.add_argument("--no-spectators", action="store_true", help="forbid watching")
    p.add_argument("--pass-and-play", action="store_true",
                   help="one client plays every human seat in turn (no chat, no idle kicks, "
                   "not counted in records)")


def settings_from_args(args: argparse.Namespace, *, seat: int | None = None) -> lobby_pb2.TableSettings:
    """TableSettings from the options of :func:`add_settings`."""
    seats = args.seats or max(2, 1 + len(args.bot))
    options = common_pb2.MatchOptions(challenge_mode=CHALLENGE[args.challenge],
                                      unrated=args.unrated, spectators_allowed=not args.no_spectators,
                                      pass_and_play=getattr(args, "pass_and_play", False))
    if args.clock:
        options.clock.per_player.CopyFrom(duration_pb2.Duration(seconds=int(args.clock * 60)))
    if getattr(args, "turn_deadline", 0):
        options.clock.idle_kick_after.CopyFrom(
            duration_pb2.Duration(seconds=int(args.turn_deadline * 3600)))
    settings = lobby_pb2.TableSettings(
        ruleset=common_pb2.RulesetRef(ruleset_id=args.ruleset, language=args.language,
                                      board_id=args.board),
        seats=seats, options=options,
        visibility=lobby_pb2.VISIBILITY_PRIVATE if getattr(args, "private", False)
        else lobby_pb2.VISIBILITY_PUBLIC,
        start_policy=lobby_pb2.START_POLICY_HOST if getattr(args, "host_start", False)
        else lobby_pb2.START_POLICY_WHEN_FULL,
        bot_think_ms=getattr(args, "bot_think", 0))
    mine = 0 if seat is None else seat
    free = [i for i in range(seats) if i != mine]
    for level, index in zip(args.bot, free, strict=False):
        settings.bots.add(seat=index, bot_level=level)
    if len(args.bot) > len(free):
        raise ClientError(f"{len(args.bot)} bots do not fit at a {seats}-seat table", 2)
    return settings


def table_text(t: lobby_pb2.Table) -> str:
    """One line for a table."""
    seats = ", ".join(
        (s.player.display_name + (f" (bot {s.player.bot_level})" if s.player.bot else ""))
        if s.HasField("player") and s.player.player_id else "—" for s in t.seats)
    status = lobby_pb2.TableStatus.Name(t.status).removeprefix("TABLE_STATUS_").lower()
    rs = t.settings.ruleset
    line = f"{t.table_id}  {rs.ruleset_id}/{rs.language or 'en'}  {status}  [{seats}]"
    if t.invite_code:
        line += f"  invite {t.invite_code}"
    if t.match.match_id:
        line += f"  match {t.match.match_id} at {t.match.address}"
    return line


def _login(args: argparse.Namespace, client: Client) -> int:
    reused: common_pb2.Player | None = None
    if args.password:
        if not args.name:
            raise ClientError("--password needs --name", 2)
        player = client.sign_in(args.name, args.password)
    elif args.name:  # run again with the same name: the remembered player, not a new guest
        reused = client.signed_in_as(args.name)
        player = reused or client.sign_in_guest(args.name)
    else:
        before = client.profile.player_id if client.profile.token else ""
        client.ensure_signed_in()
        player = client.me().player
        reused = player if player.player_id == before else None
    said = "Already signed in" if reused is not None else "Signed in"
    emit(args, {"player": to_dict(player), "lobby": client.lobby_address,
                "config": str(client.config.path), "reused": reused is not None},
         f"{said} as {player.display_name} ({player.player_id}) at {client.lobby_address}")
    return 0


def _whoami(args: argparse.Namespace, client: Client) -> int:
    prof = client.profile
    if not prof.token:
        raise ClientError("Not signed in: run `wordarena login --name NAME`", EXIT_REFUSED)
    me = client.me()
    emit(args, to_dict(me), f"{me.player.display_name} ({me.player.player_id})"
         + (" guest" if me.player.guest else ""))
    return 0


def _signed_in(client: Client) -> None:
    client.require_signed_in()


def _wait_and_report(args: argparse.Namespace, client: Client, table: lobby_pb2.Table,
                     seat: int | None = None) -> int:
    if getattr(args, "wait", False) and not table.match.match_id:
        client.wait_for_match(table.table_id, timeout=args.timeout * 30)
        table = client.get_table(table.table_id)
    if table.match.match_id:
        client.remember_match(table.match)
    data = to_dict(table)
    if seat is not None:
        data["your_seat"] = seat
    emit(args, data, table_text(table))
    return 0


def _table_create(args: argparse.Namespace, client: Client) -> int:
    _signed_in(client)
    table = client.create_table(settings_from_args(args, seat=args.seat), seat=args.seat)
    return _wait_and_report(args, client, table)


def _table_list(args: argparse.Namespace, client: Client) -> int:
    _signed_in(client)
    flt = lobby_pb2.TableFilter(ruleset_id=args.ruleset, language=args.language, has_free_seat=args.free)
    if args.all:
        flt.statuses.extend([lobby_pb2.TABLE_STATUS_OPEN, lobby_pb2.TABLE_STATUS_STARTING,
                             lobby_pb2.TABLE_STATUS_STARTED, lobby_pb2.TABLE_STATUS_CLOSED])
    tables = client.list_tables(flt)
    emit(args, {"tables": [to_dict(t) for t in tables]},
         "\n".join(table_text(t) for t in tables) or "No open tables.")
    return 0


def _table_show(args: argparse.Namespace, client: Client) -> int:
    _signed_in(client)
    table = client.get_table(args.table_id)
    client.remember_match(table.match)
    emit(args, to_dict(table), table_text(table))
    return 0


def _table_join(args: argparse.Namespace, client: Client) -> int:
    _signed_in(client)
    resp = client.join_table(args.table_id, args.invite, args.seat)
    return _wait_and_report(args, client, resp.table, resp.seat)


def _table_bot(args: argparse.Namespace, client: Client) -> int:
    _signed_in(client)
    table = client.sit_bot(args.table_id, args.level, args.seat)
    emit(args, to_dict(table), table_text(table))
    return 0


def _table_start(args: argparse.Namespace, client: Client) -> int:
    _signed_in(client)
    resp = client.start_table(args.table_id)
    client.remember_match(resp.assignment)
    a = resp.assignment
    emit(args, to_dict(resp), f"Match {a.match_id} at {a.address}"
         + (f", your seat {a.seat}" if a.HasField("seat") else ""))
    return 0


def _table_leave(args: argparse.Namespace, client: Client) -> int:
    _signed_in(client)
    table = client._call(client.lobby.LeaveTable, lobby_pb2.LeaveTableRequest(table_id=args.table_id)).table
    emit(args, to_dict(table), table_text(table))
    return 0


def _quickmatch(args: argparse.Namespace, client: Client) -> int:
    _signed_in(client)
    criteria = lobby_pb2.QuickMatchCriteria(
        ruleset=common_pb2.RulesetRef(ruleset_id=args.ruleset, language=args.language,
                                      board_id=args.board),
        seats=args.seats, bot_level=args.bot_level)
    if args.bot_after is not None:
        criteria.bot_after.CopyFrom(duration_pb2.Duration(seconds=int(args.bot_after)))
    ticket = client.quick_match(criteria)
    if args.wait > 0 and ticket.status == lobby_pb2.TICKET_STATUS_QUEUED:
        ticket = client.wait_for_ticket(ticket.ticket_id, timeout=args.wait)
    status = lobby_pb2.TicketStatus.Name(ticket.status).removeprefix("TICKET_STATUS_").lower()
    if ticket.assignment.match_id:
        client.remember_match(ticket.assignment)
        a = ticket.assignment
        text = f"Matched: match {a.match_id} at {a.address}, your seat {a.seat}"
    else:
        text = f"Ticket {ticket.ticket_id}: {status} ({ticket.players_waiting} waiting)"
    emit(args, to_dict(ticket), text)
    return 0 if ticket.status in (lobby_pb2.TICKET_STATUS_MATCHED, lobby_pb2.TICKET_STATUS_QUEUED) \
        else EXIT_REFUSED


def _matches(args: argparse.Namespace, client: Client) -> int:
    _signed_in(client)
    matches = client.my_matches(lobby_pb2.MATCH_LIST_STATE_ACTIVE if args.active else 0)
    lines = []
    for m in matches:
        client.remember_match(m.assignment)
        if m.active:
            _live_scores(client, m)
        players = " vs ".join(f"{s.player.display_name} {s.score}" for s in m.seats)
        state = ("your turn" if m.your_turn else "active") if m.active else \
            common_pb2.Outcome.Name(m.outcome).removeprefix("OUTCOME_").lower()
        lines.append(f"{m.assignment.match_id}  {m.ruleset.ruleset_id}  {state}  {players}")
    emit(args, {"matches": [to_dict(m) for m in matches]}, "\n".join(lines) or "No matches.")
    return 0


def _live_scores(client: Client, m: lobby_pb2.MatchSummary) -> None:
    """A running match's scores and whose turn it is, from its match server: the lobby hears of
    scores only when a game ends, so its list shows 0 for every seat of a running game. The
    lobby's values stay when the match server cannot be reached."""
    try:
        view = client.get_match(m.assignment.match_id)
    except ClientError:
        return
    scores = {s.index: s.score for s in view.seats}
    for seat in m.seats:
        seat.score = scores.get(seat.index, seat.score)
    if view.HasField("to_move_seat"):
        m.your_turn = view.to_move_seat in view.controlled_seats


def _leaderboard(args: argparse.Namespace, client: Client) -> int:
    _signed_in(client)
    resp = client.leaderboard(args.ruleset, PERIODS[args.period], args.limit)
    lines = [f"{e.rank:>3}. {e.player.display_name:<24} {e.record.rating.rating:7.1f}  "
             f"{e.record.wins}-{e.record.losses}-{e.record.ties}  avg {e.record.average_score:.1f}"
             for e in resp.entries]
    if resp.HasField("caller_entry") and resp.caller_entry.rank:
        lines.append(f"You: #{resp.caller_entry.rank}")
    emit(args, to_dict(resp), "\n".join(lines) or "Nobody on the leaderboard yet.")
    return 0
