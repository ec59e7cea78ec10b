"""Tournaments through the CLI against a real ``wordarena serve``: a director creates a round
robin, two humans join, two bots are added; the bots' games are played on the match server, the
director enters the humans' results; the tournament ends with standings, CSV and a watch."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pexpect
import pytest
from e2e_helpers import ROOT, Served, cli, cli_json

pytestmark = pytest.mark.slow


def test_a_round_robin_of_two_humans_and_two_bots_is_run_from_the_cli(served: Served, tmp_path: Path) -> None:
    dora, hal, ivy = tmp_path / "dora.json", tmp_path / "hal.json", tmp_path / "ivy.json"
    for cfg, name in ((dora, "Dora"), (hal, "Hal"), (ivy, "Ivy")):
        cli(served, cfg, "login", "--name", name)
    t = cli_json(
        served,
        dora,
        "tournament",
        "create",
        "--name",
        "Club night",
        "--rounds",
        "3",
        "--method",
        "round-robin",
    )
    tid = t["tournament_id"]
    for cfg in (hal, ivy):
        assert cli_json(served, cfg, "tournament", "join", tid)["division"] == "Open"
    for _ in range(2):
        cli(served, dora, "tournament", "bot", tid, "--level", "1")
    refused = cli(served, hal, "tournament", "start", tid, check=False)
    assert refused.returncode == 1 and "director" in (refused.stdout + refused.stderr)
    assert "running" in cli(served, dora, "tournament", "start", tid).stdout
    left = cli(served, ivy, "tournament", "leave", tid, check=False)
    assert left.returncode == 1  # registration is over

    humans = {
        e["entrant_id"]
        for e in cli_json(served, dora, "tournament", "show", tid)["entrants"]
        if not e["player"].get("bot")
    }
    entered: set[tuple[int, int]] = set()
    deadline = time.monotonic() + 240
    while True:
        st = cli_json(served, dora, "tournament", "show", tid)
        if st["tournament"]["status"] == "TOURNAMENT_STATUS_FINISHED":
            break
        assert time.monotonic() < deadline, st
        for g in st.get("games", []):
            key = (g["round"], g.get("pairing", 0))
            sides = {g["first_entrant_id"], g.get("second_entrant_id", "")}
            if key in entered or not sides & humans or g.get("status") != "TOURNAMENT_GAME_STATUS_PLAYING":
                continue
            cli(
                served,
                dora,
                "tournament",
                "result",
                tid,
                "--round",
                str(g["round"]),
                "--pairing",
                str(g.get("pairing", 0)),
                "--score",
                "400-300",
                "--reason",
                "scoresheet",
            )
            entered.add(key)
        time.sleep(0.5)
    assert len(entered) == 5  # every game but bot v bot involves a human
    games = st["games"]
    assert len(games) == 6 and all(g["status"] == "TOURNAMENT_GAME_STATUS_DONE" for g in games)
    assert sorted(e["action"] for e in st["log"]).count("set_result") == 5
    standings = cli(served, hal, "tournament", "standings", tid).stdout.splitlines()
    assert len(standings) == 4 and standings[0].startswith("#1 ")
    csv = cli(served, hal, "tournament", "export", tid).stdout.splitlines()
    assert csv[0].startswith("division,rank,entrant_id,name,wins") and len(csv) == 5
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
