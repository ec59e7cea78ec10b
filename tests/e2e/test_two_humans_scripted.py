"""Two humans play each other through the scripting commands, each as separate processes with its
own config file; a third process follows the stream; exit codes and JSON are checked on the way."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from e2e_helpers import ROOT, WORDARENA, Served, cli, cli_json, legal_plays

pytestmark = pytest.mark.slow

TILES_IN_CLASSIC = 104  # Words With Friends classic: 102 letters and 2 blanks (reference/)


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
    seat = view["to_move_seat"]
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        # The player whose turn it is reads the match (one process a turn, not two: in a
        # two-player classic game without a pending play the turn alternates).
        me = players[seat]
        mine = cli_json(served, me, "state", match_id)
        if mine.get("status") == "MATCH_STATUS_FINISHED":
            break
        assert mine["to_move_seat"] == seat, mine["to_move_seat"]
        plays = legal_plays(mine)
        if not plays:
            res = cli_json(served, me, "pass", match_id)
        else:
            score, move = plays[0]
            preview = cli_json(served, me, "preview", match_id, move)
            assert preview["legal"] and preview["breakdown"]["total"] == score, (move, preview)
            res = cli_json(served, me, "move", match_id, move, "--expected-seq", str(mine["last_seq"]))
        assert int(res["last_seq"]) > int(mine["last_seq"])
        turns += 1
        if turns == 2:
            # Replaying an old seq is refused as stale (exit 1, the current seq in the details).
            stale = cli(served, players[seat ^ 1], "pass", match_id, "--expected-seq", "1",
                        "--json", check=False)
            assert stale.returncode == 1 and json.loads(stale.stdout).get("current_seq")
            # Classic has Hindsight and the Tile Bag. Hindsight ranks the play just made among
            # every play the player had; the bag counts the tiles the player has not seen.
            assert plays, "the second turn of this seeded game is a play"
            hindsight = cli_json(served, me, "hindsight", match_id)
            assert int(hindsight["legal_play_count"]) == len(plays)
            assert int(hindsight["played_rank"]) == 1
            assert int(hindsight["played"]["breakdown"]["total"]) == plays[0][0]
            # --sim: the same turn's best plays ranked by simulation as well
            sim = cli_json(served, me, "hindsight", match_id, "--sim", "--limit", "2")
            assert sim["best"] == hindsight["best"][:2] and len(sim["simulated"]) >= 2
            assert all(int(s["iterations"]) >= 1 for s in sim["simulated"])
            now = cli_json(served, me, "state", match_id)
            bag = cli_json(served, me, "bag", match_id)
            on_board = sum(1 for sq in now["board"]["squares"] if sq.get("tile"))
            assert int(bag["unseen_count"]) == TILES_IN_CLASSIC - on_board - len(now["rack"]["tiles"])
            assert int(bag["opponent_rack_count"]) == 7
            cli_json(served, me, "chat", match_id, "good", "game")
        seat ^= 1
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
    # The result reaches the lobby: both players are on the classic leaderboard, one game each.
    deadline = time.monotonic() + 30
    while True:
        board = cli_json(served, alice, "leaderboard", "--ruleset", "classic")
        names = sorted(e["player"]["display_name"] for e in board.get("entries", []))
        if names or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert names == ["Alice", "Bob"], board
    assert all(int(e["record"]["games"]) == 1 for e in board["entries"]), board
