"""``wordarena play`` (sign in as a guest, find a game, play it on the game screen) and
``wordarena watch MATCH`` (spectate live)."""

from __future__ import annotations

import argparse
import sys

from google.protobuf import duration_pb2

from wordarena.clients.cli.client import EXIT_USAGE, Client, ClientError
from wordarena.clients.cli.common import add_common, bot_level, run
from wordarena.clients.cli.safe import safe_text
from wordarena.clients.cli.screen import GameScreen
from wordarena.clients.cli.table_cmd import add_settings, settings_from_args, table_text
from wordarena.clients.cli.tournament_cmd import next_game
from wordarena.v1 import common_pb2, lobby_pb2


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``play`` and ``watch``."""
    p = subparsers.add_parser(
        "play", help="play a game in the terminal (against a bot, at a table, or quick match)",
        description="Signs in as a guest (remembered in the config file), then: --bot LEVEL plays a "
        "bot at once; --create opens a table and waits for players; --join ID sits at a table; "
        "--quick queues for a quick match; --match ID goes back to a running match; --tournament ID "
        "plays your games of a tournament one after the other until it ends; with none of "
        "these, a menu lists the open tables. Type `help` on the game screen for the commands.")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--bot", type=bot_level, metavar="LEVEL",
                      help="play a bot of this level (1..6, or 'hardest' = 6)")
    mode.add_argument("--create", action="store_true", help="open a table and wait for players")
    mode.add_argument("--join", metavar="TABLE", help="join this table")
    mode.add_argument("--quick", action="store_true", help="quick match")
    mode.add_argument("--match", metavar="MATCH", help="resume this match")
    mode.add_argument("--tournament", metavar="ID", help="play your games of this tournament, one after "
                      "the other (waits for each to be paired) until it ends or you quit")
    p.add_argument("--name", help="guest display name (default: remembered, or a random one)")
    p.add_argument("--bot-after", type=float, default=30.0, metavar="SECONDS",
                   help="quick match: fill with bots after this wait (default 30)")
    add_settings(p, bots=False)
    add_common(p, json_flag=False)
    p.set_defaults(func=run(_play))

    w = subparsers.add_parser(
        "watch", help="spectate a match live",
        description="Spectates a match live (where it allows spectators): the board, no rack. "
        "`chat TEXT` posts to the observers' channel, which the other watchers read at once and "
        "the players only once the match is over.")
    w.add_argument("match_id", metavar="MATCH")
    w.add_argument("--name", help="guest display name")
    add_common(w, json_flag=False)
    w.set_defaults(func=run(_watch))


def say(text: str) -> None:
    """A line on the terminal (server strings in it made safe to print)."""
    print(safe_text(text, keep_newlines=True), flush=True)


def _from_table(client: Client, table: lobby_pb2.Table) -> str:
    if not table.match.match_id:
        say(f"Table {table.table_id} is open: {table_text(table)}")
        say(f"Others can join with: wordarena play --join {table.table_id}  (Ctrl-C to give up)")
    return client.wait_for_match(table.table_id, timeout=3600).match_id


def _quick(client: Client, args: argparse.Namespace) -> str:
    criteria = lobby_pb2.QuickMatchCriteria(
        ruleset=common_pb2.RulesetRef(ruleset_id=args.ruleset, language=args.language,
                                      board_id=args.board),
        seats=args.seats, bot_level=3)
    if args.bot_after:
        criteria.bot_after.CopyFrom(duration_pb2.Duration(seconds=int(max(5, args.bot_after))))
    ticket = client.quick_match(criteria)
    say(f"Looking for opponents (ticket {ticket.ticket_id})…")
    try:
        ticket = client.wait_for_ticket(ticket.ticket_id, timeout=900)
    except KeyboardInterrupt:
        client.cancel_ticket(ticket.ticket_id)
        raise
    if not ticket.assignment.match_id:
        raise ClientError("No match found (ticket "
                          f"{lobby_pb2.TicketStatus.Name(ticket.status).removeprefix('TICKET_STATUS_').lower()})")
    return ticket.assignment.match_id


def _menu(client: Client, args: argparse.Namespace) -> str | None:
    """The open tables to pick from; the match id chosen, None when the player leaves."""
    tables = client.list_tables(lobby_pb2.TableFilter(has_free_seat=True))
    say("Open tables:" if tables else "No open tables.")
    for i, t in enumerate(tables[:20], 1):
        say(f"  {i:>2}. {table_text(t)}")
    say("Type a number to join, c to create a table, q for a quick match, b [LEVEL] to play a bot "
        "(1..6, or hardest), "
        "or x to leave.")
    while True:
        try:
            choice = input("> ").strip().lower()
        except EOFError:
            raise ClientError("Nothing chosen", EXIT_USAGE) from None
        if choice.isdigit() and 1 <= int(choice) <= len(tables[:20]):
            resp = client.join_table(tables[int(choice) - 1].table_id)
            return _from_table(client, resp.table)
        if choice == "c":
            return _from_table(client, client.create_table(settings_from_args(_with_bots(args, []))))
        if choice == "q":
            return _quick(client, args)
        if choice.startswith("b"):
            try:
                level = bot_level(choice[1:].strip() or "3")
            except argparse.ArgumentTypeError as exc:
                say(f"{exc}.")
                continue
            return _from_table(client, client.create_table(settings_from_args(_with_bots(args, [level]))))
        if choice in ("x", "quit", "exit"):
            return None
        say("Please type a number, c, q, b or x.")


def _with_bots(args: argparse.Namespace, bots: list[int]) -> argparse.Namespace:
    copy = argparse.Namespace(**vars(args))
    copy.bot = bots
    return copy


def _play(args: argparse.Namespace, client: Client) -> int:
    prof = client.ensure_signed_in(args.name)
    say(f"Signed in as {prof.display_name} at {client.lobby_address}")
    if args.match:
        match_id = args.match
    elif args.tournament:
        return _tournament(client, args.tournament)
    elif args.bot is not None:
        table = client.create_table(settings_from_args(_with_bots(args, [args.bot])))
        match_id = _from_table(client, table)
    elif args.create:
        match_id = _from_table(client, client.create_table(settings_from_args(_with_bots(args, []))))
    elif args.join:
        match_id = _from_table(client, client.join_table(args.join).table)
    elif args.quick:
        match_id = _quick(client, _with_bots(args, []))
    else:
        match_id = _menu(client, args)
        if match_id is None:
            say("Bye")
            return 0
    say(f"Match {match_id}")
    return GameScreen(client, match_id).run()


def _tournament(client: Client, tournament_id: str) -> int:
    """The player's games of a tournament one after the other, each on the game screen (its
    title naming the tournament and round), until the tournament ends or the player stops."""
    played: set[str] = set()
    while True:
        say(f"Waiting for your {'next ' if played else ''}game in tournament {tournament_id}…")
        found = next_game(client, tournament_id, played)
        if found is None:
            if not played:
                raise ClientError("the tournament ended without a game for you", 1)
            say(f"Tournament {tournament_id} is over: wordarena tournament standings {tournament_id}")
            return 0
        client.remember_match(found.assignment)
        match_id = found.assignment.match_id
        played.add(match_id)
        say(f"Match {match_id}: {found.label}")
        screen = GameScreen(client, match_id, context=found.label, next_game=True)
        code = screen.run()
        if not screen.wants_next:
            if not screen.finished:
                say(f"Your game goes on: back to it with wordarena play --tournament {tournament_id}")
            return code


def _watch(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in(args.name)
    if not sys.stdout.isatty():
        say(f"Watching {args.match_id}")
    return GameScreen(client, args.match_id, spectator=True).run()
