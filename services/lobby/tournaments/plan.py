"""What a division does next, pure: pair the next round (by its method), add the next game of a
best-of-N pairing, tell when a round or the division is over.

A pairing plays ``games_per_pairing`` games, one after the other, the first mover swapped each
game. In an ELIMINATION round the pairing stops as soon as one side has won more than half of
them; its winner has the most wins, then the better spread over the pairing, then the better seed.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import replace

from wordarena.services.lobby.tournaments import pairing as pm
from wordarena.services.lobby.tournaments.config import Method, TournamentConfig
from wordarena.services.lobby.tournaments.entities import Entrant, Game, GameStatus
from wordarena.services.lobby.tournaments.ranking import Side, Standing, rank_entrants

__all__ = [
    "division_standings",
    "games_for",
    "next_games",
    "pair_round",
    "pairing_winner",
    "round_over",
]


def division_standings(
    cfg: TournamentConfig, entrants: Sequence[Entrant], games: Sequence[Game], division: str
) -> list[Standing]:
    """The division's standings (every entrant ever in it, withdrawn ones included; an
    invitation never accepted is no entrant)."""
    mine = [(e.entrant_id, e.seed_rating) for e in entrants if e.division == division and not e.invited]
    results = [r for g in games if g.division == division and (r := g.result()) is not None]
    return rank_entrants(mine, results, cfg.bye_spread)


def _seeded(entrants: Sequence[Entrant]) -> list[Entrant]:
    return sorted(entrants, key=lambda e: (-e.seed_rating, e.registered_at, e.entrant_id))


def _wins(games: Sequence[Game], who: str) -> tuple[int, int]:
    """(wins, spread) of ``who`` over a pairing's finished games."""
    wins = spread = 0
    for g in games:
        if (r := g.result()) is None:
            continue
        for eid, _, side, d in r.sides(0):
            if eid == who:
                wins += side == Side.WIN
                spread += d
    return wins, spread


def pairing_winner(games: Sequence[Game], seeds: dict[str, float]) -> str:
    """The winner of a pairing's games: most wins, then spread, then the better seed."""
    first, second = games[0].first, games[0].second
    if second is None:
        return first
    a, b = _wins(games, first), _wins(games, second)
    if a != b:
        return first if a > b else second
    return first if seeds.get(first, 0.0) >= seeds.get(second, 0.0) else second


def _decided(cfg: TournamentConfig, method: Method, games: Sequence[Game]) -> bool:
    """True when a pairing needs no more games."""
    if games[0].bye:
        return True
    if any(g.status != GameStatus.DONE for g in games):
        return False
    if len(games) >= cfg.games_per_pairing:
        return True
    if method != Method.ELIMINATION:
        return False
    need = cfg.games_per_pairing // 2 + 1
    return any(_wins(games, e)[0] >= need for e in (games[0].first, games[0].second or ""))


def _by_pairing(games: Sequence[Game]) -> dict[int, list[Game]]:
    out: dict[int, list[Game]] = {}
    for g in sorted(games, key=lambda g: (g.pairing, g.game)):
        out.setdefault(g.pairing, []).append(g)
    return out


def next_games(cfg: TournamentConfig, round_games: Sequence[Game]) -> list[Game]:
    """The next game of each pairing of a round whose last game is over and that is not decided
    (the first mover swapped)."""
    if not round_games:
        return []
    method = cfg.method(round_games[0].round)
    out: list[Game] = []
    for gs in _by_pairing(round_games).values():
        last = gs[-1]
        if last.status == GameStatus.DONE and not _decided(cfg, method, gs):
            out.append(
                Game(last.division, last.round, last.pairing, last.game + 1, last.second or "", last.first)
            )
    return out


def round_over(cfg: TournamentConfig, round_games: Sequence[Game]) -> bool:
    """True when every pairing of the round is decided."""
    if not round_games:
        return False
    method = cfg.method(round_games[0].round)
    return all(_decided(cfg, method, gs) for gs in _by_pairing(round_games).values())


def _eliminated(cfg: TournamentConfig, entrants: Sequence[Entrant], games: Sequence[Game]) -> set[str]:
    seeds = {e.entrant_id: e.seed_rating for e in entrants}
    out = {e.entrant_id for e in entrants if not e.active}
    rounds = {g.round for g in games if cfg.method(g.round) == Method.ELIMINATION}
    for r in rounds:
        for gs in _by_pairing([g for g in games if g.round == r]).values():
            if gs[0].second is not None:
                w = pairing_winner(gs, seeds)
                out.add(gs[0].second if w == gs[0].first else gs[0].first)
    return out


def _round_robin_round(
    cfg: TournamentConfig, mine: Sequence[Entrant], games: Sequence[Game], round_no: int, method: Method
) -> list[pm.Pairing]:
    """A round of a (double) round robin on a fixed schedule: the circle over the entrants who
    played its first round (in seed order), fixed for the whole event. A withdrawn entrant keeps
    its place in the circle, so no pair is ever scheduled twice (twice in a double round robin):
    its opponent of the round gets a bye, and a pair of withdrawn entrants plays nothing. An
    entrant added after the first round is not in the schedule and sits its rounds out."""
    earlier = [r for r in range(1, round_no) if cfg.method(r) == method]
    if earlier:
        played = {e for g in games if g.round == earlier[0] for e in (g.first, g.second) if e is not None}
        roster = [e for e in _seeded(mine) if e.entrant_id in played]
    else:
        roster = [e for e in _seeded(mine) if e.active]
    gone = {e.entrant_id for e in roster if e.withdrawn}
    double = method == Method.DOUBLE_ROUND_ROBIN
    out: list[pm.Pairing] = []
    for p in pm.round_robin([e.entrant_id for e in roster], len(earlier), double=double):
        here = [x for x in p.entrants if x not in gone]
        if len(here) == 2:
            out.append(p)
        elif here:
            out.append(pm.Pairing(here[0]))
    return out


def pair_round(
    cfg: TournamentConfig,
    tournament_id: str,
    entrants: Sequence[Entrant],
    games: Sequence[Game],
    division: str,
    round_no: int,
) -> list[pm.Pairing] | None:
    """The pairings of round ``round_no`` (1-based) of a division by its method, from its
    standings and history; None for a MANUAL round (a director pairs it)."""
    mine = [e for e in entrants if e.division == division]
    games = [g for g in games if g.division == division]
    active = [e for e in _seeded(mine) if e.active]
    ids = [e.entrant_id for e in active]
    method = cfg.method(round_no)
    if method == Method.MANUAL:
        return None
    if method in (Method.ROUND_ROBIN, Method.DOUBLE_ROUND_ROBIN):
        return _round_robin_round(cfg, mine, games, round_no, method)
    if method == Method.ELIMINATION:
        earlier = len({g.round for g in games if cfg.method(g.round) == Method.ELIMINATION})
        seeded = [e.entrant_id for e in _seeded(mine)]
        return pm.elimination(seeded, _eliminated(cfg, mine, games), earlier)
    if method == Method.RANDOM:
        return pm.random_pairs(ids, zlib.crc32(f"{tournament_id}/{division}/{round_no}".encode()))
    standing = [s.entrant_id for s in division_standings(cfg, mine, games, division)]
    ranked = [eid for eid in standing if eid in set(ids)]
    if method == Method.KING_OF_THE_HILL:
        return pm.king_of_the_hill(ranked)
    met = {pm.pair_key(g.first, g.second) for g in games if g.second is not None}
    had_bye = {g.first for g in games if g.second is None}
    return pm.swiss(ranked, met, had_bye)


def games_for(division: str, round_no: int, pairings: Sequence[pm.Pairing]) -> list[Game]:
    """The first game of each pairing; byes are DONE (a win) at once."""
    out: list[Game] = []
    for i, p in enumerate(pairings):
        g = Game(division, round_no, i, 0, p.first, p.second)
        if p.bye:
            g = replace(g, status=GameStatus.DONE, first_result=Side.WIN)
        out.append(g)
    return out
