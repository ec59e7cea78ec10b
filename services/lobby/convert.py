"""Conversions between the lobby's plain objects and the contract's messages (both ways), and
the contract's enum values the lobby's rows store."""

from __future__ import annotations

from google.protobuf import duration_pb2, timestamp_pb2

from wordarena.engine.game import Seat
from wordarena.engine.game.outcome import Outcome
from wordarena.engine.rulesets.model import Ruleset
from wordarena.services.common import rulesets as ruleset_pb
from wordarena.services.lobby.errors import LobbyError
from wordarena.services.lobby.matchmaking import Ticket, TicketStatus
from wordarena.services.lobby.models import MatchRow, MatchSeatRow, PlayerRow
from wordarena.services.lobby.records import PlayerRecord
from wordarena.services.lobby.settings import (
    CHALLENGE_ACCEPT_OR_CHECK,
    CHALLENGE_INSTANT,
    TableConfig,
    challenge_modes,
    think_ms_problem,
    validate_settings,
)
from wordarena.services.lobby.table_cache import ChangeKind, TableQuery
from wordarena.services.lobby.tables import Occupant, Table, TableStatus
from wordarena.v1 import common_pb2, lobby_pb2

FAMILY = ruleset_pb.FAMILIES
CHALLENGE_TO_PB = {
    CHALLENGE_INSTANT: common_pb2.CHALLENGE_MODE_INSTANT,
    CHALLENGE_ACCEPT_OR_CHECK: common_pb2.CHALLENGE_MODE_ACCEPT_OR_CHECK,
}
CHALLENGE_FROM_PB = {v: k for k, v in CHALLENGE_TO_PB.items()}
TABLE_STATUS = {
    TableStatus.OPEN: lobby_pb2.TABLE_STATUS_OPEN,
    TableStatus.STARTING: lobby_pb2.TABLE_STATUS_STARTING,
    TableStatus.STARTED: lobby_pb2.TABLE_STATUS_STARTED,
    TableStatus.CLOSED: lobby_pb2.TABLE_STATUS_CLOSED,
}
TABLE_STATUS_FROM_PB = {v: k for k, v in TABLE_STATUS.items()}
SEAT_STATUS_FROM_PB = {
    common_pb2.SEAT_STATUS_UNSPECIFIED: Seat.ACTIVE,
    common_pb2.SEAT_STATUS_ACTIVE: Seat.ACTIVE,
    common_pb2.SEAT_STATUS_TIMED_OUT: Seat.TIMED_OUT,
    common_pb2.SEAT_STATUS_LEFT: Seat.LEFT,
    common_pb2.SEAT_STATUS_RESIGNED: Seat.RESIGNED,
    common_pb2.SEAT_STATUS_KICKED: Seat.KICKED,
}
OUTCOME_TO_PB = {
    Outcome.WIN: common_pb2.OUTCOME_WIN,
    Outcome.LOSS: common_pb2.OUTCOME_LOSS,
    Outcome.TIE: common_pb2.OUTCOME_TIE,
    Outcome.NO_RESULT: common_pb2.OUTCOME_NO_RESULT,
}
OUTCOME_FROM_PB = {v: k for k, v in OUTCOME_TO_PB.items()}


def ts(seconds: float | None) -> timestamp_pb2.Timestamp | None:
    """A Timestamp for epoch seconds (None stays None)."""
    if seconds is None:
        return None
    t = timestamp_pb2.Timestamp()
    t.FromNanoseconds(int(seconds * 1e9))
    return t


def dur(seconds: float) -> duration_pb2.Duration:
    """A Duration of ``seconds``."""
    d = duration_pb2.Duration()
    d.FromNanoseconds(int(seconds * 1e9))
    return d


def player_pb(occ: Occupant) -> common_pb2.Player:
    """The Player message of a seat occupant."""
    return common_pb2.Player(
        player_id=occ.player_id,
        display_name=occ.display_name,
        guest=occ.guest,
        bot=occ.is_bot,
        bot_level=occ.bot_level,
    )


def ruleset_ref(ruleset_id: str, language: str, board_id: str) -> common_pb2.RulesetRef:
    """A full RulesetRef (family filled in)."""
    return common_pb2.RulesetRef(
        ruleset_id=ruleset_id, family=FAMILY.get(ruleset_id, 0), language=language, board_id=board_id
    )


def options_pb(cfg: TableConfig) -> common_pb2.MatchOptions:
    """MatchOptions of a config."""
    clock = common_pb2.ClockSettings()
    if cfg.clock_s:
        clock.per_player.CopyFrom(dur(cfg.clock_s))
    if cfg.idle_kick_s:
        clock.idle_kick_after.CopyFrom(dur(cfg.idle_kick_s))
    return common_pb2.MatchOptions(
        challenge_mode=CHALLENGE_TO_PB[cfg.challenge_mode],
        clock=clock,
        pass_and_play=cfg.pass_and_play,
        unrated=cfg.unrated,
        spectators_allowed=cfg.spectators_allowed,
        no_show_timeout=dur(cfg.no_show_s) if cfg.no_show_s else None,
    )


def settings_pb(cfg: TableConfig) -> lobby_pb2.TableSettings:
    """TableSettings of a config."""
    return lobby_pb2.TableSettings(
        ruleset=ruleset_ref(cfg.ruleset_id, cfg.language, cfg.board_id),
        seats=cfg.seats,
        options=options_pb(cfg),
        bots=[lobby_pb2.BotSeat(seat=s, bot_level=lv, bot_think_ms=dict(cfg.bot_think).get(s, 0))
              for s, lv in cfg.bots],
        visibility=lobby_pb2.VISIBILITY_PRIVATE if cfg.private else lobby_pb2.VISIBILITY_PUBLIC,
        start_policy=lobby_pb2.START_POLICY_HOST if cfg.host_starts else lobby_pb2.START_POLICY_WHEN_FULL,
        bot_think_ms=cfg.bot_think_ms,
    )


def _seconds(d: duration_pb2.Duration, field: str) -> int:
    if d.seconds < 0 or d.nanos < 0:
        raise LobbyError.settings("durations must not be negative", field)
    if d.nanos:
        raise LobbyError.settings("durations must be whole seconds", field)
    return int(d.seconds)


def config_from_pb(s: lobby_pb2.TableSettings, prefix: str = "settings") -> TableConfig:
    """Validates TableSettings (raises LobbyError) and returns the config."""
    if s.options.challenge_mode and s.options.challenge_mode not in CHALLENGE_FROM_PB:
        raise LobbyError.settings("unknown challenge mode", f"{prefix}.options.challenge_mode")
    if s.visibility not in (0, lobby_pb2.VISIBILITY_PUBLIC, lobby_pb2.VISIBILITY_PRIVATE):
        raise LobbyError.settings("unknown visibility", f"{prefix}.visibility")
    if s.start_policy not in (0, lobby_pb2.START_POLICY_WHEN_FULL, lobby_pb2.START_POLICY_HOST):
        raise LobbyError.settings("unknown start policy", f"{prefix}.start_policy")
    if s.seats < 0:
        raise LobbyError.settings("seats must be 2..4", f"{prefix}.seats")
    if len(s.bots) > 4:
        raise LobbyError.settings("at most 3 bots", f"{prefix}.bots")
    for i, b in enumerate(s.bots):
        if think_ms_problem(b.bot_think_ms):
            raise LobbyError.settings(think_ms_problem(b.bot_think_ms),
                                      f"{prefix}.bots[{i}].bot_think_ms")
    return validate_settings(
        ruleset_id=s.ruleset.ruleset_id,
        language=s.ruleset.language,
        board_id=s.ruleset.board_id,
        seats=s.seats,
        challenge_mode=CHALLENGE_FROM_PB.get(s.options.challenge_mode, ""),
        clock_s=_seconds(s.options.clock.per_player, f"{prefix}.options.clock.per_player"),
        idle_kick_s=_seconds(s.options.clock.idle_kick_after, f"{prefix}.options.clock.idle_kick_after"),
        pass_and_play=s.options.pass_and_play,
        unrated=s.options.unrated,
        spectators_allowed=s.options.spectators_allowed,
        bots=tuple((b.seat, b.bot_level) for b in s.bots),
        private=s.visibility == lobby_pb2.VISIBILITY_PRIVATE,
        host_starts=s.start_policy == lobby_pb2.START_POLICY_HOST,
        bot_think_ms=s.bot_think_ms,
        bot_think=tuple((b.seat, b.bot_think_ms) for b in s.bots),
        no_show_s=s.options.no_show_timeout.ToNanoseconds() / 1e9,
        prefix=prefix,
    )


def table_pb(t: Table, viewer: str | None = None) -> lobby_pb2.Table:
    """A Table as ``viewer`` sees it (invite code and seat only for seated players)."""
    seat = t.seat_of(viewer) if viewer else None
    msg = lobby_pb2.Table(
        table_id=t.table_id,
        settings=settings_pb(t.config),
        status=TABLE_STATUS[t.status],
        host_player_id=t.host_player_id,
        seats=[
            lobby_pb2.TableSeat(index=i, player=player_pb(o) if o is not None else None)
            for i, o in enumerate(t.seats)
        ],
        invite_code=t.invite_code if seat is not None else "",
        create_time=ts(t.created_at),
    )
    if t.match_id:
        msg.match.CopyFrom(lobby_pb2.MatchAssignment(match_id=t.match_id, address=t.match_address, seat=seat))
    return msg


TICKET_STATUS = {
    TicketStatus.QUEUED: lobby_pb2.TICKET_STATUS_QUEUED,
    TicketStatus.MATCHED: lobby_pb2.TICKET_STATUS_MATCHED,
    TicketStatus.CANCELLED: lobby_pb2.TICKET_STATUS_CANCELLED,
    TicketStatus.EXPIRED: lobby_pb2.TICKET_STATUS_EXPIRED,
}


def table_query(f: lobby_pb2.TableFilter) -> TableQuery:
    """Validates a TableFilter (raises LobbyError) and returns the query."""
    for st in f.statuses:
        if st not in TABLE_STATUS_FROM_PB:
            raise LobbyError.invalid("unknown table status", "filter.statuses")
    if f.seats and not 2 <= f.seats <= 4:
        raise LobbyError.invalid("seats must be 2..4 or 0", "filter.seats")
    if len(f.ruleset_id) > 32 or len(f.language) > 16 or len(f.table_id) > 64:
        raise LobbyError.invalid("filter value too long", "filter")
    return TableQuery(
        statuses=frozenset(TABLE_STATUS_FROM_PB[st] for st in f.statuses),
        ruleset_id=f.ruleset_id,
        language=ruleset_pb.normalise_language(f.language),
        has_free_seat=f.has_free_seat,
        seats=f.seats,
        table_id=f.table_id,
    )


def change_kind_pb(kind: ChangeKind) -> int:
    """The TableChangeKind of a change kind."""
    return int(lobby_pb2.TableChangeKind.Value(f"TABLE_CHANGE_KIND_{kind.name}"))


def account_pb(p: PlayerRow) -> common_pb2.Player:
    """The Player message of an account."""
    return common_pb2.Player(player_id=p.id, display_name=p.display_name, guest=p.guest)


def auth_token_pb(token: str, expires_at: float) -> lobby_pb2.AuthToken:
    """An AuthToken."""
    return lobby_pb2.AuthToken(token=token, expire_time=ts(expires_at))


def ticket_pb(t: Ticket, waiting: int = 0) -> lobby_pb2.QuickMatchTicket:
    """A QuickMatchTicket (``waiting``: players queued for its criteria, shown while queued)."""
    crit = lobby_pb2.QuickMatchCriteria(
        ruleset=ruleset_ref(t.criteria.ruleset_id, t.criteria.language, t.criteria.board_id),
        seats=t.criteria.seats,
        bot_level=t.bot_level,
    )
    if t.bot_after_s is not None:
        crit.bot_after.CopyFrom(dur(t.bot_after_s))
    msg = lobby_pb2.QuickMatchTicket(
        ticket_id=t.ticket_id,
        criteria=crit,
        status=TICKET_STATUS[t.status],
        create_time=ts(t.created_at),
        players_waiting=waiting if t.status == TicketStatus.QUEUED else 0,
    )
    if t.status == TicketStatus.MATCHED:
        msg.assignment.CopyFrom(
            lobby_pb2.MatchAssignment(match_id=t.match_id, address=t.address, seat=t.seat)
        )
    return msg


def record_pb(ruleset_id: str, r: PlayerRecord) -> lobby_pb2.PlayerRecord:
    """A PlayerRecord."""
    return lobby_pb2.PlayerRecord(
        ruleset_id=ruleset_id,
        games=r.games,
        wins=r.wins,
        losses=r.losses,
        ties=r.ties,
        average_score=r.average_score,
        weighted_score=r.weighted_score,
        rating=lobby_pb2.Rating(
            rating=r.rating.rating, deviation=r.rating.deviation, volatility=r.rating.volatility
        ),
        best_score=r.best_score,
    )


def match_summary_pb(m: MatchRow, seats: list[MatchSeatRow], my_seat: int) -> lobby_pb2.MatchSummary:
    """A MatchSummary of a player's match, seen from their seat."""
    mine = next(x for x in seats if x.seat == my_seat)
    return lobby_pb2.MatchSummary(
        assignment=lobby_pb2.MatchAssignment(match_id=m.id, address=m.address, seat=my_seat),
        ruleset=ruleset_ref(m.ruleset_id, m.language, m.board_id),
        active=m.active,
        seats=[
            common_pb2.Seat(
                index=x.seat,
                player=common_pb2.Player(
                    player_id=x.player_id,
                    display_name=x.display_name,
                    guest=x.guest,
                    bot=x.bot_level > 0,
                    bot_level=x.bot_level,
                ),
                status=x.status,
                score=x.score,
            )
            for x in seats
        ],
        outcome=mine.outcome,
        start_time=ts(m.created_at),
        end_time=ts(m.ended_at),
    )


def ruleset_summary_pb(
    ruleset_id: str, rs: Ruleset, langs: dict[str, tuple[str, ...]]
) -> lobby_pb2.RulesetSummary:
    """A RulesetSummary (``langs``: the ruleset's languages and their boards)."""
    return lobby_pb2.RulesetSummary(
        ruleset_id=ruleset_id,
        family=FAMILY[ruleset_id],
        name=rs.name,
        languages=list(langs),
        board_ids=list(langs[rs.language]),
        min_seats=rs.min_players,
        max_seats=rs.max_players,
    )


def ruleset_description_pb(
    ruleset_id: str, rs: Ruleset, langs: dict[str, tuple[str, ...]]
) -> lobby_pb2.RulesetDescription:
    """A RulesetDescription: the board as printed, the tile set, limits, tools and rules, all
    spelled from the engine's ruleset by ``services.common.rulesets``."""
    desc = lobby_pb2.RulesetDescription(
        summary=ruleset_summary_pb(ruleset_id, rs, langs),
        board=ruleset_pb.empty_board(rs),
        tiles=ruleset_pb.tile_counts(rs),
        alphabet=list(rs.tiles.letters),
        features=ruleset_pb.features(rs),  # type: ignore[arg-type]
        rules_text=ruleset_pb.rules_text(rs),
        rack_size=rs.rack_size,
        bingo=[
            lobby_pb2.BingoBonus(tiles=b.count, letters_only=b.letters_only, points=b.bonus)
            for b in rs.bingos
        ],
        exchange_limit=-1 if rs.exchange.per_player is None else rs.exchange.per_player,
        exchange_min_bag=rs.exchange.min_bag,
        challenge_modes=[CHALLENGE_TO_PB[m] for m in challenge_modes(rs)],
    )
    if rs.clock.default:
        desc.clock_min.CopyFrom(dur(rs.clock.minimum))
        desc.clock_max.CopyFrom(dur(rs.clock.maximum))
        desc.clock_default.CopyFrom(dur(rs.clock.default))
    if rs.clock.overtime_points:
        desc.overtime_points = rs.clock.overtime_points
        desc.max_overtime.CopyFrom(dur(rs.clock.max_overtime))
    if rs.clock.turn_deadline:
        desc.turn_deadline_default.CopyFrom(dur(rs.clock.turn_deadline))
    return desc
