"""``wordarena serve`` keeps its servers running: a match server killed with SIGKILL is started
again, with the same server id, and the game in progress carries on with the same client. The
killed server's bot worker processes do not outlive it."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from e2e_helpers import Served, alive, cli, cli_json, descendants, match_server_pid, niceness

pytestmark = pytest.mark.slow



def test_a_killed_match_server_is_restarted_and_the_game_goes_on(served: Served, tmp_path: Path) -> None:
    me = tmp_path / "rita.json"
    cli(served, me, "login", "--name", "Rita")
    match_id = cli_json(served, me, "table", "create", "--ruleset", "classic", "--bot", "1",
                        "--wait")["match"]["match_id"]
    before = _after_a_bot_move(served, me, match_id)
    old = match_server_pid(served)
    workers = descendants(old)  # the bot has thought: its worker processes and their forkserver
    # the workers think at a lower priority than the server (nice +5); their forkserver does not
    assert {niceness(p) - niceness(old) for p in workers} == {0, 5}
    os.kill(old, signal.SIGKILL)
    killed = time.monotonic()
    while alive(workers):
        assert time.monotonic() < killed + 10, f"bot workers outlived their server: {alive(workers)}"
        time.sleep(0.2)
    deadline = killed + 60
    while True:
        assert time.monotonic() < deadline, "the match server was not started again"
        assert served.proc.poll() is None, "serve stopped when its match server died"
        state = cli(served, me, "state", match_id, "--json", check=False)
        if state.returncode == 0:
            break
        time.sleep(0.5)
    # Well inside the 30 s lease: the restarted server is the same owner and takes the match
    # back at once, instead of sending the client away until the lease runs out.
    assert time.monotonic() - killed < 15
    assert match_server_pid(served) != old
    after = cli_json(served, me, "state", match_id)
    assert after["last_seq"] >= before["last_seq"]
    assert after["board"] == before["board"] or int(after["last_seq"]) > int(before["last_seq"])
    # Still playable: the player (or the bot, then the player) can pass.
    deadline = time.monotonic() + 30
    while after.get("to_move_seat") not in after["controlled_seats"]:
        assert time.monotonic() < deadline, "the bot did not move after the restart"
        time.sleep(0.3)
        after = cli_json(served, me, "state", match_id)
    passed = cli_json(served, me, "pass", match_id)
    assert int(passed["last_seq"]) > int(after["last_seq"])


def _after_a_bot_move(served: Served, me: Path, match_id: str) -> dict:
    """The player's view once the bot has moved at least once (the player passes first when it
    is their turn)."""
    view = cli_json(served, me, "state", match_id)
    if view.get("to_move_seat") in view["controlled_seats"]:
        cli_json(served, me, "pass", match_id)
    deadline = time.monotonic() + 30
    while True:
        view = cli_json(served, me, "state", match_id)
        if view.get("to_move_seat") in view["controlled_seats"] or view.get("status") != "in-progress":
            return view
        assert time.monotonic() < deadline, "the bot did not move"
        time.sleep(0.3)
