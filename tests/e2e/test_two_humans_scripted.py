"""Two humans play each other through the scripting commands, each as separate processes with its
own config file; a third process follows the stream; exit codes and JSON are checked on the way."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from e2e_helpers import ROOT, WORDARENA, Served, best_move, cli, cli_json

pytestmark = pytest.mark.slow


def test_two_guests_play_a_game_by_script(served: Served, tmp_path: Path) -> None:
    alice, bob = tmp_path / "alice.json", tmp_path / "bob.json"
    assert cli_json(served, alice, "login", "--name", "Alice")["player"]["display_name"] == "Alice"
    cli(served, bob, "login", "--name", "Bob")
    # The same name again is refused by the lobby's rules, in plain words.
    taken = cli(served, tmp_path / "other.json", "login", "--name", "Alice", check=False)
    assert taken.returncode == 1 and "rule:" in taken.stderr

    table = cli_json(served, alice, "table", "create", "--ruleset", "classic")
    table_id = table["table_id"]
    listed = cli_json(served, bob, "table", "list")
    assert table_id in [t["table_id"] for t in listed["tables"]]
    joined = cli_json(served, bob, "table", "join", table_id, "--wait")
    match_id = joined["match"]["match_id"]
    assert joined["your_seat"] == 1

    follower = subprocess.Popen([*WORDARENA, "stream", match_id, "--after", "0", "--json"], cwd=ROOT,
                                env=served.env(bob), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
    players = {0: alice, 1: bob}
    # Usage errors exit 2, rule violations exit 1, with the rule named.
    assert cli(served, alice, "move", match_id, "8Z WORD", check=False).returncode == 2
    view = cli_json(served, alice, "state", match_id)
    mover = players[view["to_move_seat"]]
    refused = cli(served, mover, "move", match_id, "8A QQ", "--json", check=False)
    assert refused.returncode == 1
    assert json.loads(refused.stdout)["rule"] in ("TILES_NOT_ON_RACK", "FIRST_MOVE_OFF_START")
    # Not your turn.
    other = players[1 - view["to_move_seat"]]
    assert cli(served, other, "pass", match_id, check=False).returncode == 1

    turns = 0
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        view = cli_json(served, alice, "state", match_id)
        if view.get("status") == "MATCH_STATUS_FINISHED":
            break
        seat = view["to_move_seat"]
        me = players[seat]
        mine = cli_json(served, me, "state", match_id)
        move = best_move(mine)
        if move is None:
            res = cli_json(served, me, "pass", match_id)
        else:
            preview = cli_json(served, me, "preview", match_id, move)
            assert preview["legal"], (move, preview)
            res = cli_json(served, me, "move", match_id, move, "--expected-seq", str(mine["last_seq"]))
        assert int(res["last_seq"]) > int(mine["last_seq"])
        turns += 1
        if turns == 2:
            # Replaying an old seq is refused as stale (exit 1, the current seq in the details).
            stale = cli(served, players[view["to_move_seat"] ^ 1], "pass", match_id, "--expected-seq", "1",
                        "--json", check=False)
            assert stale.returncode == 1 and json.loads(stale.stdout).get("current_seq")
            for tool, key in (("hindsight", "legal_play_count"), ("bag", "unseen_count")):
                res = cli(served, me, tool, match_id, "--json", check=False)
                data = json.loads(res.stdout)
                # The analysis tools answer, or say plainly that the server lacks them (exit 1).
                assert (res.returncode == 0 and data[key] > 0) or (
                    res.returncode == 1 and data["rule"] == "FEATURE_UNAVAILABLE"), res
            cli_json(served, me, "chat", match_id, "good", "game")
    else:
        pytest.fail("the game did not end in time")

    final = cli_json(served, bob, "state", match_id)
    assert final["result"]["final_scores"]
    out, err = follower.communicate(timeout=60)
    assert follower.returncode == 0, err
    events = [json.loads(line) for line in out.splitlines() if line.strip()]
    seqs = [int(e["seq"]) for e in events]
    assert seqs == sorted(set(seqs)) and seqs[0] == 1
    assert "game_over" in events[-1]
    assert any("chat" in e for e in events)
    # Resuming from the middle gives exactly the rest.
    middle = seqs[len(seqs) // 2]
    rest = cli(served, bob, "stream", match_id, "--after", str(middle), "--json").stdout.splitlines()
    assert [int(json.loads(line)["seq"]) for line in rest] == [s for s in seqs if s > middle]
    board = cli_json(served, alice, "leaderboard", "--ruleset", "classic")
    assert "entries" in board or board == {} or "total_size" in board
