"""Conversions between the lobby's plain objects and the contract's messages."""

from __future__ import annotations

from google.protobuf import duration_pb2, timestamp_pb2
from wordarena.services.lobby.errors import LobbyError
from wordarena.services.lobby.records import Outcome, SeatStatus
from wordarena.services.lobby.settings import (
    CHALLENGE_ACCEPT_OR_CHECK,
    CHALLENGE_INSTANT,
    TableConfig,
    validate_settings,
)
from wordarena.services.lobby.tables import Occupant, Table, TableStatus
from wordarena.v1 import common_pb2, lobby_pb2

FAMILY = {
    "classic": common_pb2.FAMILY_CLASSIC,
    "wordtiles": common_pb2.FAMILY_WORDTILES,
    "warofwords": common_pb2.FAMILY_WAROFWORDS,
    "scrabble": common_pb2.FAMILY_SCRABBLE,
}
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
    common_pb2.SEAT_STATUS_UNSPECIFIED: SeatStatus.ACTIVE,
    common_pb2.SEAT_STATUS_ACTIVE: SeatStatus.ACTIVE,
    common_pb2.SEAT_STATUS_TIMED_OUT: SeatStatus.TIMED_OUT,
    common_pb2.SEAT_STATUS_LEFT: SeatStatus.LEFT,
    common_pb2.SEAT_STATUS_RESIGNED: SeatStatus.RESIGNED,
    common_pb2.SEAT_STATUS_KICKED: SeatStatus.KICKED,
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
    )


def settings_pb(cfg: TableConfig) -> lobby_pb2.TableSettings:
    """TableSettings of a config."""
    return lobby_pb2.TableSettings(
        ruleset=ruleset_ref(cfg.ruleset_id, cfg.language, cfg.board_id),
        seats=cfg.seats,
        options=options_pb(cfg),
        bots=[lobby_pb2.BotSeat(seat=s, bot_level=lv) for s, lv in cfg.bots],
        visibility=lobby_pb2.VISIBILITY_PRIVATE if cfg.private else lobby_pb2.VISIBILITY_PUBLIC,
        start_policy=lobby_pb2.START_POLICY_HOST if cfg.host_starts else lobby_pb2.START_POLICY_WHEN_FULL,
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
