"""``wordarena tournament …``: tournaments from the command line.

Players: ``list``, ``show``, ``join``, ``leave``, ``checkin``, ``standings``, ``export``,
``games`` (the games' zip, downloaded in pieces and checked), ``watch``. Directors: ``create``,
``bot``, ``start``, ``pause``, ``resume``, ``end``, ``pair``, ``result``, ``forfeit``. Each prints
a short text summary, or JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from wordarena.clients.cli.client import Client, ClientError
from wordarena.clients.cli.common import add_common, bot_level, emit, run, to_dict
from wordarena.clients.cli.safe import safe_text
from wordarena.clients.cli.table_cmd import add_settings, settings_from_args
from wordarena.v1 import lobby_pb2
from wordarena.v1 import tournament_pb2 as tp

METHODS = {
    n.removeprefix("PAIRING_METHOD_").lower().replace("_", "-"): v for n, v in tp.PairingMethod.items() if v
}
SIDES = {"win": tp.GAME_SIDE_WIN, "loss": tp.GAME_SIDE_LOSS, "tie": tp.GAME_SIDE_TIE}
Handler = Callable[[argparse.Namespace, Client], int]


def _sub(sub: Any, name: str, help_: str, fn: Handler, *, tid: bool = True) -> argparse.ArgumentParser:
    p = sub.add_parser(name, help=help_)
    if tid:
        p.add_argument("tournament_id", metavar="ID")
    add_common(p)
    p.set_defaults(func=run(fn))
    return p


def _game_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--division", default="", help="division (default the first)")
    p.add_argument("--round", type=int, required=True, help="round, 1-based")
    p.add_argument("--pairing", type=int, required=True, help="pairing index in the round, 0-based")
    p.add_argument("--game", type=int, default=0, help="game index in the pairing (default 0)")
    p.add_argument("--reason", required=True, help="why (kept in the director log)")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``tournament`` and its sub-commands."""
    top = subparsers.add_parser("tournament", help="tournaments: create, join, watch, direct")
    sub = top.add_subparsers(dest="tournament_command", required=True)
    p = _sub(sub, "create", "create a tournament (you become its director)", _create, tid=False)
    p.add_argument("--name", required=True, help="its name")
    add_settings(p, bots=False)
    p.add_argument("--rounds", type=int, required=True, help="number of rounds")
    p.add_argument(
        "--method",
        action="append",
        default=[],
        choices=sorted(METHODS),
        help="pairing method of the next round (repeatable; the last repeats; default swiss)",
    )
    p.add_argument("--games", type=int, default=1, help="games per pairing (default 1)")
    p.add_argument("--bye-spread", type=int, default=None, help="spread of a bye (default 50)")
    p.add_argument("--no-show", type=float, default=0, help="seconds to make a first move, else forfeit")
    p.add_argument("--round-interval", type=float, default=0, help="seconds between round starts")
    p.set_defaults(bot=[])
    p = _sub(sub, "list", "list tournaments", _list, tid=False)
    p.add_argument("--invited", action="store_true",
                   help="only those where a director's invitation waits for your answer")
    _sub(sub, "show", "a tournament: entrants, games and where they are played", _show)
    _sub(sub, "join", "register for a tournament, or accept a director's invitation", _join)
    _sub(sub, "leave", "withdraw your registration, or decline an invitation", _leave)
    _sub(sub, "checkin", "check in", _checkin)
    p = _sub(sub, "standings", "a division's standings", _standings)
    p.add_argument("--division", default="", help="division (default the first)")
    _sub(sub, "export", "every division's standings as CSV", _export)
    p = _sub(sub, "games", "download the games' records (a zip of GCG files and standings.csv)", _games)
    p.add_argument("--out", default="", help="the zip file to write (default <ID>-games.zip)")
    _sub(sub, "watch", "follow a tournament until it ends (its state after each change)", _watch)
    p = _sub(sub, "invite", "director: invite a player (they play once they accept with join)", _invite)
    p.add_argument("player_id", metavar="PLAYER", help="the player's id")
    p = _sub(sub, "bot", "director: add a bot entrant", _bot)
    p.add_argument("--level", type=bot_level, default=3,
                   help="bot strength 1..6 or 'hardest' (default 3)")
    for name, help_ in (
        ("start", "director: start"),
        ("pause", "director: pause"),
        ("resume", "director: resume"),
        ("end", "director: end now"),
    ):
        _sub(sub, name, help_, _director_status(name))
    p = _sub(sub, "pair", "director: pair the next round by hand", _pair)
    p.add_argument(
        "pairs", nargs="+", metavar="A:B", help="entrant ids of a pairing, first mover first (A alone: a bye)"
    )
    p.add_argument("--division", default="", help="division (default the first)")
    p = _sub(sub, "result", "director: set or correct a game's result", _result)
    _game_args(p)
    p.add_argument("--score", required=True, metavar="FIRST-SECOND", help="final scores, e.g. 412-380")
    p = _sub(sub, "forfeit", "director: award a game as a forfeit", _forfeit)
    _game_args(p)
    p.add_argument("--winner", required=True, metavar="ENTRANT", help="entrant id of the winner")


def _create(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in()
    settings = tp.TournamentSettings(
        name=args.name,
        game=settings_from_args(args),
        rounds=args.rounds,
        round_methods=[METHODS[m] for m in args.method],
        games_per_pairing=args.games,
    )
    settings.game.ClearField("visibility")
    settings.game.ClearField("start_policy")
    if args.bye_spread is not None:
        settings.bye_spread = args.bye_spread
    if args.no_show:
        settings.no_show_timeout.FromNanoseconds(int(args.no_show * 1e9))
    if args.round_interval:
        settings.round_interval.FromNanoseconds(int(args.round_interval * 1e9))
    t = client.call(client.tournaments.CreateTournament, tp.CreateTournamentRequest(settings=settings))
    emit(args, t.tournament, f"Tournament {t.tournament.tournament_id} created: {args.name}")
    return 0


def _status(t: tp.Tournament) -> str:
    return tp.TournamentStatus.Name(t.status).removeprefix("TOURNAMENT_STATUS_").lower()


def _list(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in()
    req = tp.ListTournamentsRequest(invited=args.invited)
    rows = client.call(client.tournaments.ListTournaments, req).tournaments
    emit(
        args,
        {"tournaments": [to_dict(t) for t in rows]},
        "\n".join(f"{t.tournament_id}  {_status(t)}  {t.settings.name}" for t in rows)
        or ("No invitations" if args.invited else "No tournaments"),
    )
    return 0


def _state(client: Client, tid: str) -> tp.TournamentState:
    return client.call(client.tournaments.GetTournament, tp.GetTournamentRequest(tournament_id=tid)).state


def state_text(st: tp.TournamentState) -> str:
    """The tournament as lines: status, entrants, games (with where they are played), standings."""
    names = {e.entrant_id: e.player.display_name for e in st.entrants}
    t = st.tournament
    lines = [f"{t.tournament_id}  {t.settings.name}  {_status(t)}"]
    lines += [
        f"  entrant {e.entrant_id}  {e.player.display_name}  {e.division}"
        + ("  withdrawn" if e.withdrawn else "  invited (not yet accepted)" if e.invited else "")
        for e in st.entrants
    ]
    for g in st.games:
        who = f"{names.get(g.first_entrant_id, '?')} v {names.get(g.second_entrant_id, 'bye')}"
        where = f"  match {g.match_id} at {g.address}" if g.match_id else ""
        score = f"  {g.first_score}-{g.second_score}" if g.status == tp.TOURNAMENT_GAME_STATUS_DONE else ""
        lines.append(f"  round {g.round} pairing {g.pairing} game {g.game}: {who}{score}{where}")
    for d in st.standings:
        lines += [
            f"  {d.division} #{s.rank} {s.display_name} {s.wins}-{s.losses}-{s.ties} {s.spread:+d}"
            for s in d.standings
        ]
    return "\n".join(lines)


def _show(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in()
    st = _state(client, args.tournament_id)
    emit(args, st, state_text(st))
    return 0


def _join(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in()
    e = client.call(client.tournaments.Register, tp.RegisterRequest(tournament_id=args.tournament_id)).entrant
    emit(args, e, f"Registered as entrant {e.entrant_id} in division {e.division}")
    return 0


def _leave(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in()
    client.call(client.tournaments.Unregister, tp.UnregisterRequest(tournament_id=args.tournament_id))
    emit(args, {}, "Withdrawn from the tournament")
    return 0


def _checkin(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in()
    e = client.call(client.tournaments.CheckIn, tp.CheckInRequest(tournament_id=args.tournament_id)).entrant
    emit(args, e, f"Checked in as {e.entrant_id}")
    return 0


def _standings(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in()
    req = tp.GetStandingsRequest(tournament_id=args.tournament_id, division=args.division)
    d = client.call(client.tournaments.GetStandings, req).standings
    emit(
        args,
        d,
        "\n".join(
            f"#{s.rank} {s.display_name} {s.wins}-{s.losses}-{s.ties} {s.spread:+d}" for s in d.standings
        ),
    )
    return 0


def _export(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in()
    req = tp.ExportStandingsRequest(tournament_id=args.tournament_id)
    csv = client.call(client.tournaments.ExportStandings, req).csv
    emit(args, {"csv": csv}, csv.rstrip("\n"))
    return 0


def _games(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in()
    out = Path(args.out or f"{args.tournament_id}-games.zip")
    stream = client.tournaments.ExportGamesStream(
        tp.ExportGamesStreamRequest(tournament_id=args.tournament_id), metadata=client.metadata()
    )
    head: tp.ExportGamesStreamResponse | None = None
    digest = hashlib.sha256()
    size = 0
    try:
        with out.open("wb") as f:
            for msg in stream:
                if head is None:
                    head = msg
                if msg.offset != size:
                    raise ClientError(f"piece at offset {msg.offset}, expected {size}", 1)
                f.write(msg.chunk)
                digest.update(msg.chunk)
                size += len(msg.chunk)
    except grpc.RpcError as exc:
        out.unlink(missing_ok=True)
        raise ClientError(f"download failed: {exc.details()}", 1) from exc  # type: ignore[attr-defined]
    if head is None or size != head.total_size or digest.hexdigest() != head.sha256:
        out.unlink(missing_ok=True)
        raise ClientError("the download is incomplete or damaged (size or SHA-256 differ); try again", 1)
    summary = {
        "file": str(out), "games": head.games, "withheld": head.withheld,
        "unavailable": len(head.unavailable), "bytes": size, "sha256": head.sha256,
    }  # fmt: skip
    text = f"Wrote {out}: {head.games} games ({head.withheld} withheld, {len(head.unavailable)} unavailable)"
    emit(args, summary, text)
    return 0


def _watch(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in()
    stream = client.tournaments.WatchTournament(
        tp.WatchTournamentRequest(tournament_id=args.tournament_id), metadata=client.metadata()
    )
    try:
        for msg in stream:
            emit(args, msg, state_text(msg.state))
    except Exception as exc:  # grpc.RpcError; the CLI names the failure in plain words
        raise ClientError(f"watch ended: {exc}", 1) from exc
    return 0


@dataclass(frozen=True)
class TournamentGameFound:
    """The caller's game of a tournament being played: where, and how to name it on screen."""

    assignment: lobby_pb2.MatchAssignment
    tournament: str  # the tournament's name
    round: int
    game: int  # game index in the pairing, 0-based
    games: int  # games per pairing

    @property
    def label(self) -> str:
        """``tournament Club night · round 2`` (``· game 2 of 3`` when a pairing plays several)."""
        more = f" · game {self.game + 1} of {self.games}" if self.games > 1 else ""
        return f"tournament {self.tournament} · round {self.round}{more}"


def next_game(client: Client, tournament_id: str,
              skip: Collection[str] = ()) -> TournamentGameFound | None:
    """Waits (watching the tournament) until the caller has a game being played other than the
    matches in ``skip`` (those already played: the lobby may still list a game as playing for a
    moment after it ends); None when the tournament is over first."""
    me = client.profile.player_id
    stream = client.tournaments.WatchTournament(
        tp.WatchTournamentRequest(tournament_id=tournament_id), metadata=client.metadata()
    )
    try:
        for msg in stream:
            t = msg.state.tournament
            mine = {e.entrant_id for e in msg.state.entrants if e.player.player_id == me}
            for g in msg.state.games:
                if (g.status == tp.TOURNAMENT_GAME_STATUS_PLAYING and g.match_id not in skip
                        and mine & {g.first_entrant_id, g.second_entrant_id}):
                    seat = 0 if g.first_entrant_id in mine else 1
                    return TournamentGameFound(
                        lobby_pb2.MatchAssignment(match_id=g.match_id, address=g.address, seat=seat),
                        safe_text(t.settings.name) or tournament_id, g.round, g.game,
                        max(t.settings.games_per_pairing, 1))
            if t.status == tp.TOURNAMENT_STATUS_FINISHED:
                stream.cancel()
                return None
    except grpc.RpcError as exc:
        raise ClientError(f"cannot follow the tournament: {exc.details() or exc.code().name}", 1) from exc
    return None


def _bot(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in()
    req = tp.AddEntrantRequest(tournament_id=args.tournament_id, bot_level=args.level)
    e = client.call(client.tournaments.AddEntrant, req).entrant
    emit(args, e, f"Bot entrant {e.entrant_id} ({e.player.display_name}) added")
    return 0


def _invite(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in()
    req = tp.AddEntrantRequest(tournament_id=args.tournament_id, player_id=args.player_id)
    e = client.call(client.tournaments.AddEntrant, req).entrant
    text = (
        f"{e.player.display_name} invited as entrant {e.entrant_id}: paired once they accept "
        f"(wordarena tournament join {args.tournament_id})"
        if e.invited
        else f"{e.player.display_name} entered as {e.entrant_id}"
    )
    emit(args, e, text)
    return 0


def _director_status(name: str) -> Handler:
    rpc, req = {
        "start": ("StartTournament", tp.StartTournamentRequest),
        "pause": ("PauseTournament", tp.PauseTournamentRequest),
        "resume": ("ResumeTournament", tp.ResumeTournamentRequest),
        "end": ("EndTournament", tp.EndTournamentRequest),
    }[name]

    def handler(args: argparse.Namespace, client: Client) -> int:
        client.ensure_signed_in()
        t = client.call(getattr(client.tournaments, rpc), req(tournament_id=args.tournament_id)).tournament
        emit(args, t, f"Tournament {t.tournament_id} is {_status(t)}")
        return 0

    return handler


def _pair(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in()
    pairs = [
        tp.ManualPairing(first_entrant_id=a, second_entrant_id=b)
        for a, _, b in (x.partition(":") for x in args.pairs)
    ]
    req = tp.PairRoundRequest(tournament_id=args.tournament_id, division=args.division, pairings=pairs)
    games = client.call(client.tournaments.PairRound, req).games
    emit(args, {"games": [to_dict(g) for g in games]}, f"Round {games[0].round if games else '?'} paired")
    return 0


def _ref(args: argparse.Namespace) -> tp.GameRef:
    return tp.GameRef(division=args.division, round=args.round, pairing=args.pairing, game=args.game)


def _result(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in()
    first, sep, second = args.score.partition("-")
    if not sep or not first.isdigit() or not second.isdigit():
        raise ClientError("--score must be FIRST-SECOND, e.g. 412-380", 2)
    req = tp.SetResultRequest(
        tournament_id=args.tournament_id,
        game=_ref(args),
        first_score=int(first),
        second_score=int(second),
        reason=args.reason,
    )
    g = client.call(client.tournaments.SetResult, req).game
    emit(args, g, f"Result set: {g.first_score}-{g.second_score}")
    return 0


def _forfeit(args: argparse.Namespace, client: Client) -> int:
    client.ensure_signed_in()
    req = tp.AwardForfeitRequest(
        tournament_id=args.tournament_id, game=_ref(args), winner_entrant_id=args.winner, reason=args.reason
    )
    g = client.call(client.tournaments.AwardForfeit, req).game
    emit(args, g, f"Forfeit awarded: {g.first_score}-{g.second_score}")
    return 0
