"""Tournaments on the wire: TournamentSettings ⇄ ``TournamentConfig``, entities → messages."""

from __future__ import annotations

from wordarena.services.lobby import convert
from wordarena.services.lobby.errors import LobbyError
from wordarena.services.lobby.tournaments.config import (
    DEFAULT_DIVISION,
    MAX_ENTRANTS,
    DivisionBand,
    Method,
    TournamentConfig,
    validate_config,
)
from wordarena.services.lobby.tournaments.entities import (
    Entrant,
    Game,
    GameStatus,
    Tournament,
    TournamentStatus,
)
from wordarena.services.lobby.tournaments.ranking import BYE_SPREAD, Side, Standing
from wordarena.services.lobby.tournaments.service import TournamentState
from wordarena.v1 import common_pb2
from wordarena.v1 import tournament_pb2 as pb

__all__ = [
    "GAME_STATUS",
    "SIDE",
    "SIDE_FROM_PB",
    "STATUS",
    "STATUS_FROM_PB",
    "config_from_pb",
    "entrant_pb",
    "game_pb",
    "standings_pb",
    "state_pb",
    "tournament_pb",
]

METHOD_FROM_PB = {
    pb.PAIRING_METHOD_UNSPECIFIED: Method.SWISS,
    pb.PAIRING_METHOD_SWISS: Method.SWISS,
    pb.PAIRING_METHOD_ROUND_ROBIN: Method.ROUND_ROBIN,
    pb.PAIRING_METHOD_DOUBLE_ROUND_ROBIN: Method.DOUBLE_ROUND_ROBIN,
    pb.PAIRING_METHOD_KING_OF_THE_HILL: Method.KING_OF_THE_HILL,
    pb.PAIRING_METHOD_ELIMINATION: Method.ELIMINATION,
    pb.PAIRING_METHOD_RANDOM: Method.RANDOM,
    pb.PAIRING_METHOD_MANUAL: Method.MANUAL,
}
METHOD = {m: n for n, m in METHOD_FROM_PB.items() if n}
STATUS = {
    TournamentStatus.REGISTRATION: pb.TOURNAMENT_STATUS_REGISTRATION,
    TournamentStatus.RUNNING: pb.TOURNAMENT_STATUS_RUNNING,
    TournamentStatus.PAUSED: pb.TOURNAMENT_STATUS_PAUSED,
    TournamentStatus.FINISHED: pb.TOURNAMENT_STATUS_FINISHED,
}
STATUS_FROM_PB = {n: s for s, n in STATUS.items()}
GAME_STATUS = {
    GameStatus.PENDING: pb.TOURNAMENT_GAME_STATUS_PENDING,
    GameStatus.PLAYING: pb.TOURNAMENT_GAME_STATUS_PLAYING,
    GameStatus.DONE: pb.TOURNAMENT_GAME_STATUS_DONE,
}
SIDE = {Side.WIN: pb.GAME_SIDE_WIN, Side.LOSS: pb.GAME_SIDE_LOSS, Side.TIE: pb.GAME_SIDE_TIE}
SIDE_FROM_PB = {n: s for s, n in SIDE.items()}


def config_from_pb(s: pb.TournamentSettings) -> TournamentConfig:
    """Validates TournamentSettings (raises LobbyError naming the field) and returns them."""
    if not s.HasField("game"):
        raise LobbyError.settings("settings.game is required", "settings.game")
    game = convert.config_from_pb(s.game, "settings.game")
    for i, m in enumerate(s.round_methods):
        if m not in METHOD_FROM_PB:
            raise LobbyError.invalid("unknown pairing method", f"settings.round_methods[{i}]")
    if s.HasField("check_in_window") and (s.check_in_window.seconds < 0 or s.check_in_window.nanos < 0):
        raise LobbyError.invalid("check_in_window must not be negative", "settings.check_in_window")
    if s.game.options.HasField("no_show_timeout"):
        raise LobbyError.invalid(
            "set the no-show time as settings.no_show_timeout", "settings.game.options.no_show_timeout"
        )
    start = s.start_time.ToNanoseconds() / 1e9 if s.HasField("start_time") else None
    return validate_config(
        TournamentConfig(
            name=s.name,
            game=game,
            divisions=tuple(DivisionBand(d.name, d.min_rating, d.max_rating) for d in s.divisions)
            or (DivisionBand(DEFAULT_DIVISION),),
            rounds=s.rounds,
            methods=tuple(METHOD_FROM_PB[m] for m in s.round_methods) or (Method.SWISS,),
            games_per_pairing=s.games_per_pairing or 1,
            bye_spread=s.bye_spread if s.HasField("bye_spread") else BYE_SPREAD,
            start_time=start,
            check_in_window_s=s.check_in_window.ToNanoseconds() / 1e9,
            max_entrants=s.max_entrants or MAX_ENTRANTS,
            no_show_s=s.no_show_timeout.ToNanoseconds() / 1e9,
            round_interval_s=s.round_interval.ToNanoseconds() / 1e9,
        )
    )


def settings_pb(c: TournamentConfig) -> pb.TournamentSettings:
    """The settings as sent."""
    return pb.TournamentSettings(
        name=c.name,
        game=convert.settings_pb(c.game),
        divisions=[
            pb.Division(name=d.name, min_rating=d.min_rating, max_rating=d.max_rating) for d in c.divisions
        ],
        rounds=c.rounds,
        round_methods=[METHOD[m] for m in c.methods],
        games_per_pairing=c.games_per_pairing,
        bye_spread=c.bye_spread,
        start_time=convert.ts(c.start_time),
        check_in_window=convert.dur(c.check_in_window_s),
        max_entrants=c.max_entrants,
        no_show_timeout=convert.dur(c.no_show_s) if c.no_show_s else None,
        round_interval=convert.dur(c.round_interval_s) if c.round_interval_s else None,
    )


def tournament_pb(t: Tournament, games: list[Game] | None = None) -> pb.Tournament:
    """A Tournament (``rounds_paired`` from ``games`` when given)."""
    paired: dict[str, int] = {}
    for g in games or []:
        paired[g.division] = max(paired.get(g.division, 0), g.round)
    return pb.Tournament(
        tournament_id=t.tournament_id,
        settings=settings_pb(t.config),
        status=STATUS[t.status],
        director_ids=list(t.directors),
        create_time=convert.ts(t.created_at),
        rounds_paired=paired,
    )


def entrant_pb(e: Entrant) -> pb.Entrant:
    """An Entrant."""
    return pb.Entrant(
        entrant_id=e.entrant_id,
        player=common_pb2.Player(
            player_id=e.player_id,
            display_name=e.display_name,
            guest=e.guest,
            bot=e.bot_level > 0,
            bot_level=e.bot_level,
        ),
        division=e.division,
        seed_rating=e.seed_rating,
        checked_in=e.checked_in,
        withdrawn=e.withdrawn,
        invited=e.invited,
    )


def game_pb(g: Game) -> pb.TournamentGame:
    """A TournamentGame."""
    return pb.TournamentGame(
        division=g.division,
        round=g.round,
        pairing=g.pairing,
        game=g.game,
        first_entrant_id=g.first,
        second_entrant_id=g.second or "",
        status=GAME_STATUS[g.status],
        match_id=g.match_id,
        address=g.address,
        first_score=g.first_score,
        second_score=g.second_score,
        first_result=SIDE[g.first_result] if g.first_result else pb.GAME_SIDE_UNSPECIFIED,
        forfeit=g.forfeit,
    )


INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def standings_pb(
    division: str, rows: list[Standing], names: dict[str, str], ratings: dict[str, float]
) -> pb.DivisionStandings:
    """A division's standings (``ratings``: each human entrant's rating now)."""
    return pb.DivisionStandings(
        division=division,
        standings=[
            pb.TournamentStanding(
                rank=s.rank,
                entrant_id=s.entrant_id,
                display_name=names.get(s.entrant_id, ""),
                wins=s.wins,
                losses=s.losses,
                ties=s.ties,
                spread=max(INT32_MIN, min(s.spread, INT32_MAX)),  # any stored result stays readable
                byes=s.byes,
                points=s.points,
                opponents_points=s.opponents_points,
                rating_change=ratings.get(s.entrant_id, s.seed_rating) - s.seed_rating,
            )
            for s in rows
        ],
    )


def state_pb(st: TournamentState) -> pb.TournamentState:
    """The whole state."""
    names = {e.entrant_id: e.display_name for e in st.entrants}
    return pb.TournamentState(
        tournament=tournament_pb(st.tournament, st.games),
        entrants=[entrant_pb(e) for e in st.entrants],
        games=[game_pb(g) for g in st.games],
        standings=[standings_pb(d, rows, names, st.ratings) for d, rows in st.standings],
        log=[
            pb.DirectorLogEntry(
                time=convert.ts(x.at), director_id=x.director_id, action=x.action, detail=x.detail
            )
            for x in st.log
        ],
    )
