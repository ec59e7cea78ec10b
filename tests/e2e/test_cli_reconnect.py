"""A person playing in the terminal when the match server dies: ``wordarena serve`` starts it again
(same server id and address), the game screen says the connection was lost, resumes the stream
where it was, and the game goes on — the person's next play and the bot's answer both reach the
screen through the resumed stream. (Own module: it kills this module's match server.)"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from e2e_helpers import Served, best_or_pass, match_server_pid
from terminal import Terminal, wait_turn

pytestmark = pytest.mark.slow



def test_the_game_screen_resumes_after_the_match_server_restarts(served: Served, tmp_path: Path) -> None:
    me = tmp_path / "rex.json"
    term = Terminal(served.env(me), "play", "--bot", "1", "--ruleset", "classic", "--name", "Rex")
    try:
        match_id = term.wait_for(r"Match (m_\w+)").group(1)
        view = wait_turn(served, me, match_id)
        term.wait_for(r"your move > ")
        since = term.mark()
        os.kill(match_server_pid(served), signal.SIGKILL)
        term.wait_for(r"Connection lost \(.*\); reconnecting from event \d+", since=since)
        term.wait_for(r"Reconnected; the game resumes where it was", since=since, timeout=90)
        # The game goes on, on the screen: the play typed there is taken, and the bot's answer
        # arrives through the resumed stream.
        view = wait_turn(served, me, match_id)
        move, shown = best_or_pass(view, "Rex")
        since = term.mark()
        term.type(move)
        term.wait_for(shown, since=since)
        term.wait_for(r"Bot 1(: .+ for \d+| passed| swapped \d+ tiles)", since=since)
    finally:
        assert term.close() == 0
