"""CreateMatch's request read into domain values: the ruleset, the seats and the options, each
checked (INVALID_ARGUMENT naming the field otherwise); and the answer to a repeated request.
"""

from __future__ import annotations

import grpc

from wordarena.engine.bots import LEVELS
from wordarena.engine.bots.simulation import THINK_MS_MAX, THINK_MS_MIN
from wordarena.engine.errors import InputError
from wordarena.engine.families import get_ruleset, parse_ruleset_id
from wordarena.engine.rulesets.model import Ruleset, WordCheck
from wordarena.services.common.errors import ServiceError, invalid_argument
from wordarena.services.common.request_ids import check_request_id
from wordarena.services.common.rulesets import normalise_language
from wordarena.services.match.leases import address_of
from wordarena.services.match.models import MatchRow
from wordarena.services.match.runtime import Options, SeatInfo
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl


def check_match_id(match_id: str) -> None:
    """Refuse a missing or malformed match id (by the rule of request ids)."""
    check_request_id(match_id, "match_id")


def canonical(req: ctl.CreateMatchRequest) -> bytes:
    """The request as stored, so that a retry compares equal whatever seed was chosen."""
    out = ctl.CreateMatchRequest()
    out.CopyFrom(req)
    out.seed = 0 if not req.seed else req.seed
    return out.SerializeToString(deterministic=True)


def existing_answer(row: MatchRow, req: ctl.CreateMatchRequest, address: str) -> ctl.CreateMatchResponse:
    """The answer to a CreateMatch for a match id already stored: the same match when the
    request is the same (its owner's address, else ``address``), ALREADY_EXISTS otherwise."""
    if canonical(req) != row.create_request:
        raise ServiceError(grpc.StatusCode.ALREADY_EXISTS,
                           f"match {row.id!r} exists with different settings")
    return ctl.CreateMatchResponse(match_id=row.id, address=address_of(row.owner) or address,
                                   seed=int(row.seed))


def ruleset_of(ref: c.RulesetRef) -> Ruleset:
    """The ruleset a request names (a family with language, in any case, and board; or the
    engine's full ruleset id)."""
    if not ref.ruleset_id:
        raise invalid_argument("ruleset.ruleset_id", "required, e.g. 'classic'")
    try:
        if "/" in ref.ruleset_id:
            return parse_ruleset_id(ref.ruleset_id)
        return get_ruleset(ref.ruleset_id, normalise_language(ref.language) or "en", ref.board_id or None)
    except InputError as exc:
        raise invalid_argument(f"ruleset.{exc.where or 'ruleset_id'}", exc.detail) from exc


def seats_of(req: ctl.CreateMatchRequest, ruleset: Ruleset) -> list[SeatInfo]:
    """Who sits where: every seat once, players or bots, as many as the ruleset allows."""
    n = len(req.seats)
    if not ruleset.min_players <= n <= ruleset.max_players:
        raise invalid_argument("seats", f"{ruleset.name} is played by {ruleset.min_players}.."
                               f"{ruleset.max_players} players, not {n}")
    by_index: dict[int, SeatInfo] = {}
    for k, s in enumerate(req.seats):
        if not 0 <= s.index < n or s.index in by_index:
            raise invalid_argument(f"seats[{k}].index", f"seat indexes must be 0..{n - 1}, each once")
        which = s.WhichOneof("occupant")
        think = s.bot_think_ms
        if think and which != "bot_level":
            raise invalid_argument(f"seats[{k}].bot_think_ms", "only a bot seat has a think time")
        if think and not THINK_MS_MIN <= think <= THINK_MS_MAX:
            raise invalid_argument(f"seats[{k}].bot_think_ms",
                                   f"must be {THINK_MS_MIN}..{THINK_MS_MAX} ms (0 = the default)")
        if which == "player":
            if not s.player.player_id or len(s.player.player_id) > 128:
                raise invalid_argument(f"seats[{k}].player.player_id", "required, at most 128 chars")
            name = s.player.display_name[:64] or s.player.player_id
            by_index[s.index] = SeatInfo(s.player.player_id, name, guest=s.player.guest)
        elif which == "bot_level":
            if s.bot_level not in LEVELS:
                raise invalid_argument(f"seats[{k}].bot_level",
                                       f"must be {min(LEVELS)}..{max(LEVELS)}")
            by_index[s.index] = SeatInfo(f"bot:{s.bot_level}", f"Bot {s.bot_level}", bot=True,
                                         bot_level=s.bot_level, bot_think_ms=think)
        else:
            raise invalid_argument(f"seats[{k}]", "a seat needs a player or a bot_level")
    humans = [si.player_id for si in by_index.values() if not si.bot]
    if req.options.pass_and_play:
        if not humans or len(set(humans)) != 1:
            raise invalid_argument("seats", "pass-and-play: every human seat belongs to one player "
                                   "(the one client that plays them all)")
    elif len(set(humans)) != len(humans):
        raise invalid_argument("seats", "a player may hold only one seat (except in pass-and-play)")
    return [by_index[i] for i in range(n)]


def word_check_of(mode: int, ruleset: Ruleset) -> WordCheck | None:
    """When the table's challenge mode has words checked (None: the ruleset's own way). Instant
    works for every family; accept-or-check only where the ruleset plays it (Word Tiles)."""
    if mode == c.CHALLENGE_MODE_INSTANT:
        return WordCheck.IMMEDIATE
    if mode == c.CHALLENGE_MODE_ACCEPT_OR_CHECK:
        if ruleset.word_check is not WordCheck.DEFERRED:
            raise invalid_argument(
                "options.challenge_mode",
                f"{ruleset.name} checks every word at once; accept-or-check is Word Tiles'")
        return WordCheck.DEFERRED
    return None


def options_of(o: c.MatchOptions, ruleset: Ruleset) -> Options:
    """The match options, clocks checked against the ruleset's limits."""
    per_player = 0.0
    if o.clock.HasField("per_player"):
        per_player = o.clock.per_player.ToTimedelta().total_seconds()
        why = ruleset.clock.check_game_clock(per_player, ruleset.name)
        if why:
            raise invalid_argument("options.clock.per_player", why)
    elif ruleset.clock.default > 0:
        per_player = float(ruleset.clock.default)
    # the family's default when unset; 0 when it has no per-turn deadline (wordtiles, scrabble)
    idle_kick = float(ruleset.clock.turn_deadline)
    if o.clock.HasField("idle_kick_after"):
        idle_kick = o.clock.idle_kick_after.ToTimedelta().total_seconds()
        why = ruleset.clock.check_turn_deadline(idle_kick, ruleset.name)
        if why:
            raise invalid_argument("options.clock.idle_kick_after", why)
    no_show = 0.0
    if o.HasField("no_show_timeout"):
        no_show = o.no_show_timeout.ToTimedelta().total_seconds()
        if no_show < 0:
            raise invalid_argument("options.no_show_timeout", "the first-move deadline cannot be negative")
    return Options(challenge_mode=o.challenge_mode, per_player_seconds=per_player,
                   idle_kick_seconds=idle_kick, pass_and_play=o.pass_and_play,
                   unrated=o.unrated or o.pass_and_play, spectators_allowed=o.spectators_allowed,
                   no_show_seconds=no_show)
