"""Tournament settings, validated, and their JSON form (stored in the tournament's row)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum

from wordarena.services.lobby.errors import LobbyError
from wordarena.services.lobby.settings import MAX_WAIT_S, MIN_NO_SHOW_S, TableConfig
from wordarena.services.lobby.tournaments.ranking import BYE_SPREAD

__all__ = [
    "DEFAULT_DIVISION",
    "MAX_ENTRANTS",
    "DivisionBand",
    "Method",
    "TournamentConfig",
    "config_from_json",
    "config_to_json",
    "validate_config",
]

DEFAULT_DIVISION = "Open"
MAX_ENTRANTS = 256
MAX_ROUNDS = 50
MAX_DIVISIONS = 8
#: The final scores a director may set (SetResult): wider than any game of the four families
#: has scored (end-of-game and time penalties can leave a score below zero), narrow enough that
#: a division's summed spread always fits the contract's int32.
MIN_RESULT_SCORE = -1000
MAX_RESULT_SCORE = 10_000
#: Bounds of the no-show time and of the round interval (seconds).


class Method(StrEnum):
    """Pairing methods (mirrors ``wordarena.v1.PairingMethod``)."""

    SWISS = "swiss"
    ROUND_ROBIN = "round_robin"
    DOUBLE_ROUND_ROBIN = "double_round_robin"
    KING_OF_THE_HILL = "king_of_the_hill"
    ELIMINATION = "elimination"
    RANDOM = "random"
    MANUAL = "manual"


@dataclass(frozen=True)
class DivisionBand:
    """A division: ratings in [min_rating, max_rating] (0 = no bound)."""

    name: str
    min_rating: int = 0
    max_rating: int = 0

    def admits(self, rating: float) -> bool:
        """True when ``rating`` lies in the band."""
        return (not self.min_rating or rating >= self.min_rating) and (
            not self.max_rating or rating <= self.max_rating
        )


@dataclass(frozen=True)
class TournamentConfig:
    """Validated tournament settings."""

    name: str
    game: TableConfig
    divisions: tuple[DivisionBand, ...] = (DivisionBand(DEFAULT_DIVISION),)
    rounds: int = 1
    methods: tuple[Method, ...] = (Method.SWISS,)
    games_per_pairing: int = 1
    bye_spread: int = BYE_SPREAD
    start_time: float | None = None
    check_in_window_s: float = 0.0
    max_entrants: int = MAX_ENTRANTS
    no_show_s: float = 0.0
    round_interval_s: float = 0.0
    extra: dict[str, str] = field(default_factory=dict, compare=False)

    def round_due(self, round_no: int, first_paired_at: float) -> float:
        """The earliest time round ``round_no`` (1-based) may be paired, given when round 1 of its
        division was paired: ``first_paired_at + (round_no - 1) * round_interval``."""
        return first_paired_at + (round_no - 1) * self.round_interval_s

    def method(self, round_no: int) -> Method:
        """The pairing method of round ``round_no`` (1-based)."""
        return self.methods[min(round_no, len(self.methods)) - 1]

    def division(self, name: str) -> DivisionBand:
        """The division called ``name`` (empty: the first); NOT_FOUND otherwise."""
        if not name:
            return self.divisions[0]
        for d in self.divisions:
            if d.name == name:
                return d
        raise LobbyError.not_found(f"no division {name!r}", "division")


def validate_config(c: TournamentConfig) -> TournamentConfig:
    """Checks the settings (raises LobbyError naming the field); returns them."""
    if not 1 <= len(c.name.strip()) <= 64:
        raise LobbyError.invalid("name must be 1..64 characters", "settings.name")
    if c.game.seats != 2:
        raise LobbyError.settings("tournament games have 2 seats", "settings.game.seats")
    if c.game.bots or c.game.private or c.game.host_starts or c.game.pass_and_play:
        raise LobbyError.settings(
            "bots, visibility, start policy and pass-and-play are not tournament settings", "settings.game"
        )
    if len(c.divisions) > MAX_DIVISIONS:
        raise LobbyError.invalid(f"at most {MAX_DIVISIONS} divisions", "settings.divisions")
    names: set[str] = set()
    for i, d in enumerate(c.divisions):
        if not 1 <= len(d.name) <= 32 or d.name in names:
            raise LobbyError.invalid(
                "division names are 1..32 characters, each once", f"settings.divisions[{i}].name"
            )
        if d.min_rating < 0 or d.max_rating < 0 or (d.max_rating and d.max_rating < d.min_rating):
            raise LobbyError.invalid(
                "a rating band needs 0 <= min_rating <= max_rating", f"settings.divisions[{i}]"
            )
        names.add(d.name)
    if not 1 <= c.rounds <= MAX_ROUNDS:
        raise LobbyError.invalid(f"rounds must be 1..{MAX_ROUNDS}", "settings.rounds")
    if not 1 <= c.games_per_pairing <= 9:
        raise LobbyError.invalid("games_per_pairing must be 1..9", "settings.games_per_pairing")
    if not 0 <= c.bye_spread <= 500:
        raise LobbyError.invalid("bye_spread must be 0..500", "settings.bye_spread")
    if c.check_in_window_s < 0 or (c.check_in_window_s and c.start_time is None):
        raise LobbyError.invalid("a check-in window needs a start_time", "settings.check_in_window")
    if c.no_show_s and not MIN_NO_SHOW_S <= c.no_show_s <= MAX_WAIT_S:
        raise LobbyError.invalid("no_show_timeout must be 0 or 5 s .. 7 days", "settings.no_show_timeout")
    if c.round_interval_s and not 1 <= c.round_interval_s <= MAX_WAIT_S:
        raise LobbyError.invalid("round_interval must be 0 or 1 second .. 7 days", "settings.round_interval")
    if not 2 <= c.max_entrants <= MAX_ENTRANTS:
        raise LobbyError.invalid(f"max_entrants must be 2..{MAX_ENTRANTS}", "settings.max_entrants")
    return c


def config_to_json(c: TournamentConfig, directors: list[str]) -> str:
    """The JSON form of the settings and the directors."""
    d = asdict(c)
    d.pop("extra", None)
    d["game"].pop("extra", None)
    return json.dumps({"config": d, "directors": directors}, separators=(",", ":"))


def config_from_json(data: str) -> tuple[TournamentConfig, list[str]]:
    """Settings and directors from their JSON form."""
    d = json.loads(data)
    c = d["config"]
    g = c["game"]
    g["bots"] = tuple(tuple(b) for b in g["bots"])
    cfg = TournamentConfig(
        name=c["name"],
        game=TableConfig(**g),
        divisions=tuple(DivisionBand(**x) for x in c["divisions"]),
        rounds=c["rounds"],
        methods=tuple(Method(m) for m in c["methods"]),
        games_per_pairing=c["games_per_pairing"],
        bye_spread=c["bye_spread"],
        start_time=c["start_time"],
        check_in_window_s=c["check_in_window_s"],
        max_entrants=c["max_entrants"],
        no_show_s=c.get("no_show_s", 0.0),
        round_interval_s=c.get("round_interval_s", 0.0),
    )
    return cfg, list(d["directors"])
