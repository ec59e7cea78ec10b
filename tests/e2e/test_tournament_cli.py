"""Tournaments through the CLI against a real ``wordarena serve``: a round robin of two humans
and six bots to its end, and ``wordarena play --tournament`` in a pseudo-terminal."""

from __future__ import annotations

import json
import sys
import time
import zipfile
from pathlib import Path

import pexpect
import pytest
from e2e_helpers import ROOT, Served, cli, cli_json

pytestmark = pytest.mark.slow


def test_an_eight_player_round_robin_with_two_humans_is_run_from_the_cli(
    served: Served, tmp_path: Path
) -> None:
    """Six bots and two humans, seven rounds. The bots' games are played on the match server;
    each human resigns every game from the CLI (`wordarena resign MATCH`): the results come back
    through the match server's result path, into the standings and the humans' records."""
    dora, hal, ivy = tmp_path / "dora.json", tmp_path / "hal.json", tmp_path / "ivy.json"
    for cfg, name in ((dora, "Dora"), (hal, "Hal"), (ivy, "Ivy")):
        cli(served, cfg, "login", "--name", name)
    create = ["tournament", "create", "--name", "Club night", "--rounds", "7", "--method", "round-robin"]
    tid = cli_json(served, dora, *create)["tournament_id"]
    config_of = {}
    for cfg in (hal, ivy):
        e = cli_json(served, cfg, "tournament", "join", tid)
        assert e["division"] == "Open"
        config_of[e["entrant_id"]] = cfg
    for _ in range(6):
        cli(served, dora, "tournament", "bot", tid, "--level", "1")
    refused = cli(served, hal, "tournament", "start", tid, check=False)
    assert refused.returncode == 1 and "director" in (refused.stdout + refused.stderr)
    assert "running" in cli(served, dora, "tournament", "start", tid).stdout
    left = cli(served, ivy, "tournament", "leave", tid, check=False)
    assert left.returncode == 1  # registration is over

    resigned: set[str] = set()
    deadline = time.monotonic() + 600
    while True:
        st = cli_json(served, hal, "tournament", "show", tid)
        if st["tournament"]["status"] == "TOURNAMENT_STATUS_FINISHED":
            break
        assert time.monotonic() < deadline, st
        for g in st.get("games", []):
            human = next(
                (e for e in (g["first_entrant_id"], g.get("second_entrant_id")) if e in config_of), None
            )
            if (
                human is None
                or g.get("status") != "TOURNAMENT_GAME_STATUS_PLAYING"
                or g["match_id"] in resigned
            ):
                continue
            cli(served, config_of[human], "resign", g["match_id"], "--yes")
            resigned.add(g["match_id"])
        time.sleep(0.5)
    assert len(resigned) == 13  # each human's seven games, one of them against the other
    games = st["games"]
    assert len(games) == 28 and all(g["status"] == "TOURNAMENT_GAME_STATUS_DONE" for g in games)
    pairs = {frozenset((g["first_entrant_id"], g["second_entrant_id"])) for g in games}
    assert len(pairs) == 28  # everyone met everyone once
    lines = {s["entrant_id"]: s for s in st["standings"][0]["standings"]}
    assert sum(lines[e].get("losses", 0) for e in config_of) == 13
    assert sum(lines[e].get("wins", 0) for e in config_of) == 1  # the one who did not resign first
    for cfg in (hal, ivy):  # every tournament game is in the player's record
        (rec,) = cli_json(served, cfg, "player-record", "--ruleset", "classic")["records"]
        assert rec["games"] == 7
    # a director corrects a bot game's result; the log keeps the reason
    bot_game = next(g for g in games if not {g["first_entrant_id"], g["second_entrant_id"]} & set(config_of))
    cli(
        served,
        dora,
        "tournament",
        "result",
        tid,
        "--round",
        str(bot_game["round"]),
        "--pairing",
        str(bot_game.get("pairing", 0)),
        "--score",
        "400-300",
        "--reason",
        "scoresheet",
    )
    st = cli_json(served, hal, "tournament", "show", tid)
    last = st["log"][-1]
    assert last["action"] == "set_result" and last["detail"].endswith("scoresheet")
    standings = cli(served, hal, "tournament", "standings", tid).stdout.splitlines()
    assert len(standings) == 8 and standings[0].startswith("#1 ")
    csv = cli(served, hal, "tournament", "export", tid).stdout.splitlines()
    assert csv[0].startswith("division,rank,entrant_id,name,wins") and len(csv) == 9
    # the games' records, downloaded in pieces (ExportGamesStream) and checked
    got = cli_json(served, hal, "tournament", "games", tid, "--out", str(tmp_path / "games.zip"))
    with zipfile.ZipFile(tmp_path / "games.zip") as z:
        gcgs = [n for n in z.namelist() if n.endswith(".gcg")]
        assert "standings.csv" in z.namelist() and len(gcgs) == got["games"] >= 6
        assert z.read("standings.csv").decode().splitlines()[0] == csv[0]
    assert got["bytes"] == (tmp_path / "games.zip").stat().st_size
    watched = cli(served, ivy, "tournament", "watch", tid, "--json").stdout.splitlines()
    assert json.loads(watched[-1])["state"]["tournament"]["status"] == "TOURNAMENT_STATUS_FINISHED"


def test_play_tournament_waits_for_the_players_game_and_its_result_counts(
    served: Served, tmp_path: Path
) -> None:
    dora, tess = tmp_path / "dora.json", tmp_path / "tess.json"
    cli(served, dora, "login", "--name", "Dina")
    tid = cli_json(served, dora, "tournament", "create", "--name", "Duel", "--rounds", "1")["tournament_id"]
    cli(served, tess, "login", "--name", "Tara")
    me = cli_json(served, tess, "tournament", "join", tid)["entrant_id"]
    cli(served, dora, "tournament", "bot", tid, "--level", "1")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "wordarena.clients.cli.main", "play", "--tournament", tid],
        cwd=str(ROOT),
        env=served.env(tess),
        encoding="utf-8",
        timeout=60,
        dimensions=(60, 110),
    )
    try:
        child.expect("Waiting for your game", timeout=60)
        cli(served, dora, "tournament", "start", tid)
        child.expect(r"Match (m_\w+)", timeout=60)
        match_id = child.match.group(1)
        child.expect("your move > |waiting", timeout=60)
        st = cli_json(served, dora, "tournament", "show", tid)
        (game,) = st["games"]
        assert game["match_id"] == match_id and me in (game["first_entrant_id"], game["second_entrant_id"])
        child.sendline("resign")
        child.sendline("yes")  # the screen asks to confirm
        deadline = time.monotonic() + 60
        while st["tournament"]["status"] != "TOURNAMENT_STATUS_FINISHED":
            assert time.monotonic() < deadline, st
            time.sleep(0.5)
            st = cli_json(served, dora, "tournament", "show", tid)
        standings = {s["entrant_id"]: s for s in st["standings"][0]["standings"]}
        assert standings[me].get("losses") == 1 and not standings[me].get("wins")
        assert standings[me]["rating_change"] < 0  # a rated loss
    finally:
        child.close(force=True)


def test_a_director_invites_a_player_who_accepts_from_the_cli(served: Served, tmp_path: Path) -> None:
    """`tournament invite` enters nobody: the player sees the invitation (`list --invited`) and
    plays only after `join`; the director's view names the invitation."""
    dora, hal = tmp_path / "vera.json", tmp_path / "ivo.json"
    for cfg, name in ((dora, "Vera"), (hal, "Ivo")):
        cli(served, cfg, "login", "--name", name)
    hal_id = cli_json(served, hal, "whoami")["player"]["player_id"]
    create = ["tournament", "create", "--name", "Invitational", "--rounds", "1"]
    tid = cli_json(served, dora, *create)["tournament_id"]
    invited = cli(served, dora, "tournament", "invite", tid, hal_id).stdout
    assert "Ivo invited" in invited and f"wordarena tournament join {tid}" in invited
    assert "invited (not yet accepted)" in cli(served, dora, "tournament", "show", tid).stdout
    assert tid in cli(served, hal, "tournament", "list", "--invited").stdout
    cli(served, dora, "tournament", "bot", tid, "--level", "1")
    refused = cli(served, dora, "tournament", "start", tid, check=False)
    assert refused.returncode == 1 and "fewer than 2 entrants" in (refused.stdout + refused.stderr)
    joined = cli_json(served, hal, "tournament", "join", tid)
    assert joined.get("invited", False) is False and joined["player"]["player_id"] == hal_id
    assert "No invitations" in cli(served, hal, "tournament", "list", "--invited").stdout
    assert "running" in cli(served, dora, "tournament", "start", tid).stdout
