"""Tournaments of bots played to their end on a real match server (lobby and match server
in-process on loopback gRPC): the lobby creates each round's matches, the match server plays them
(bot against bot) and reports the results through the result path, and the lobby pairs the next
round when the last game of a round ends."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from tournament_servers import servers

from wordarena.services.lobby import store
from wordarena.v1 import common_pb2, lobby_pb2
from wordarena.v1 import tournament_pb2 as tp

OUTCOME = {
    common_pb2.OUTCOME_WIN: tp.GAME_SIDE_WIN,
    common_pb2.OUTCOME_LOSS: tp.GAME_SIDE_LOSS,
    common_pb2.OUTCOME_TIE: tp.GAME_SIDE_TIE,
}


async def _play(
    database_url: str, tmp_path: Path, levels: list[int], rounds: int
) -> tuple[Any, dict[str, Any]]:
    """Runs a Swiss of bots of ``levels`` to its end; returns the final state (the watch stream's
    last message) and the lobby's recorded seats of each game's match."""
    async with servers(database_url, tmp_path) as env:
        stub, md = env.stub, env.md
        game = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic", language="en"))
        settings_ = tp.TournamentSettings(name="Bots", game=game, rounds=rounds)
        tid = (
            await stub.CreateTournament(tp.CreateTournamentRequest(settings=settings_), metadata=md)
        ).tournament.tournament_id
        for level in levels:
            await stub.AddEntrant(tp.AddEntrantRequest(tournament_id=tid, bot_level=level), metadata=md)
        await stub.StartTournament(tp.StartTournamentRequest(tournament_id=tid), metadata=md)
        state = await env.watch_to_end(tid)
        seats = {
            g.match_id: await env.db.run(store.match_seats, g.match_id) for g in state.games if g.match_id
        }
        return state, seats


def _check(state: Any, seats: dict[str, Any]) -> None:
    """Every game done, its result the match's recorded result, no pair twice, and standings
    (wins, spread) added up from the games."""
    assert state.tournament.status == tp.TOURNAMENT_STATUS_FINISHED
    ids = [e.entrant_id for e in state.entrants]
    wins = dict.fromkeys(ids, 0)
    spread = dict.fromkeys(ids, 0)
    pairs = [frozenset((g.first_entrant_id, g.second_entrant_id)) for g in state.games if g.second_entrant_id]
    assert len(pairs) == len(set(pairs))
    for g in state.games:
        assert g.status == tp.TOURNAMENT_GAME_STATUS_DONE
        s = seats[g.match_id]
        assert (s[0].score, s[1].score) == (g.first_score, g.second_score)
        assert g.first_result == OUTCOME[s[0].outcome]
        wins[g.first_entrant_id] += g.first_result == tp.GAME_SIDE_WIN
        wins[g.second_entrant_id] += g.first_result == tp.GAME_SIDE_LOSS
        spread[g.first_entrant_id] += g.first_score - g.second_score
        spread[g.second_entrant_id] += g.second_score - g.first_score
    (div,) = state.standings
    assert {s.entrant_id: (s.wins, s.spread) for s in div.standings} == {e: (wins[e], spread[e]) for e in ids}
    assert [s.points for s in div.standings] == sorted((s.points for s in div.standings), reverse=True)


async def test_a_four_bot_swiss_of_three_rounds_runs_to_its_end_with_standings_from_the_played_games(
    database_url: str, tmp_path: Path
) -> None:
    state, seats = await _play(database_url, tmp_path, [1, 1, 2, 2], 3)
    _check(state, seats)
    assert len(state.games) == 6  # three rounds of four: everyone met everyone exactly once
    met = sorted(tuple(sorted((g.first_entrant_id, g.second_entrant_id))) for g in state.games)
    assert met == sorted(
        tuple(sorted(p)) for p in itertools.combinations([e.entrant_id for e in state.entrants], 2)
    )


@pytest.mark.slow
async def test_a_sixteen_bot_swiss_of_five_rounds_on_postgresql_runs_to_its_end(
    postgres_database: str, tmp_path: Path
) -> None:
    state, seats = await _play(postgres_database, tmp_path, [1, 2, 3, 4] * 4, 5)
    _check(state, seats)
    assert sorted({g.round for g in state.games}) == [1, 2, 3, 4, 5] and len(state.games) == 40
