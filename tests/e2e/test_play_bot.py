"""A person plays a bot on the terminal: ``wordarena play --bot 1`` in a pseudo-terminal, real
moves typed at the prompt (found with the engine's generator from ``wordarena state --json``),
to the end of the game; the final screen shows the result."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pexpect
import pytest
from e2e_helpers import ROOT, Served, best_move, cli_json, read_raw

pytestmark = pytest.mark.slow

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def pump(child: pexpect.spawn, seconds: float = 0.2) -> str:
    """Read what the screen printed (keeps the pty from filling up)."""
    return ANSI.sub("", read_raw(child, seconds))


def test_play_a_bot_to_the_end(served: Served, tmp_path: Path) -> None:
    config = tmp_path / "player.json"
    child = pexpect.spawn(sys.executable,
                          ["-m", "wordarena.clients.cli.main", "play", "--bot", "1", "--name", "Tess"],
                          cwd=str(ROOT), env=served.env(config), encoding="utf-8", timeout=60,
                          dimensions=(60, 110))
    screen = ""
    try:
        child.expect(r"Match (m_\w+)", timeout=60)
        match_id = child.match.group(1)
        child.expect("your move > |waiting", timeout=60)
        screen = pump(child, 0.5)
        # A refused move is explained in plain words, and the game goes on.
        child.sendline("8A QQQQQ")
        child.expect("rule: ", timeout=30)
        child.sendline("help")
        child.expect("hindsight", timeout=30)
        played = 0
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            screen += pump(child)
            view = cli_json(served, config, "state", match_id)
            if view.get("status") == "MATCH_STATUS_FINISHED" or view.get("result"):
                break
            if view.get("to_move_seat") not in view.get("controlled_seats", []):
                continue
            move = best_move(view)
            child.sendline(move or "pass")
            seq = int(view.get("last_seq", 0))
            waited = time.monotonic()
            while time.monotonic() - waited < 30:
                screen += pump(child)
                now = cli_json(served, config, "state", match_id)
                if int(now.get("last_seq", 0)) > seq:
                    break
            else:
                pytest.fail(f"the move {move!r} was not taken:\n{screen[-3000:]}")
            played += 1
            if played == 1:  # the simulated judgement of that move, from the screen's prompt
                child.sendline("hindsight sim")
                child.expect("By simulation", timeout=60)
                child.expect(r"keeps [+-]\d+\.\d ± \d+\.\d  win \d+%|the only choice", timeout=30)
        else:
            pytest.fail("the game did not end in time")
        assert played >= 3
        for _ in range(50):
            screen += pump(child, 0.3)
            if "GAME OVER" in screen:
                break
        final = screen[screen.rfind("GAME OVER"):]
        assert final.startswith("GAME OVER"), screen[-3000:]
        assert "Tess" in final and "Bot 1" in final
        assert re.search(r"Tess -?\d+ (WIN|LOSS|TIE)", final), final
        child.sendline("quit")
        child.expect(pexpect.EOF, timeout=30)
    except (pexpect.TIMEOUT, pexpect.EOF) as exc:
        seen = screen + ANSI.sub("", child.before or "")
        pytest.fail(f"{type(exc).__name__}; screen so far:\n{seen[-4000:]}")
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
