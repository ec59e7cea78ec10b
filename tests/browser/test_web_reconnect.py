"""A dropped connection: the match server behind the page is killed (SIGKILL) while a player's
page follows the game; ``wordarena serve`` starts it again; the page says it lost the connection,
then that it reconnected, resumed after the last event it had, and the game goes on from it.
The module kills the session's match server: it runs last of tests/browser (file name order) and
the restarted server serves the same address."""

from __future__ import annotations

import os
import re
import signal
import subprocess

import pytest
from web_helpers import Pages, best_play, create_table, expect, match_id, sign_in, unique, view_of

pytestmark = pytest.mark.slow


def _match_server_pid(serve_pid: int) -> int:
    out = subprocess.run(["pgrep", "-P", str(serve_pid), "-f", "wordarena.services.match.main"],
                         capture_output=True, text=True).stdout.split()
    assert len(out) == 1, out
    return int(out[0])


def _play_best(page: object, address: str) -> str:
    view = view_of(page, address)
    play = best_play(view)
    typed = play[1] if play else "pass"
    page.fill("#typed", typed)  # type: ignore[attr-defined]
    page.press("#typed", "Enter")  # type: ignore[attr-defined]
    return typed


def test_a_dropped_connection_is_resumed_and_said(pages: Pages) -> None:
    site = pages.site
    a = pages.open()
    name = unique("Rae")
    sign_in(a, name)
    create_table(a, "classic", bots=1)
    match_id(a)
    expect(a.locator("#status")).to_have_attribute("data-turn", "mine", timeout=60_000)
    _play_best(a, site.match)
    expect(a.locator("#moves li")).to_have_count(2, timeout=60_000)  # the play and the bot's answer
    expect(a.locator("#status")).to_have_attribute("data-turn", "mine")
    seen = view_of(a, site.match).last_seq

    os.kill(_match_server_pid(site.serve_pid), signal.SIGKILL)
    expect(a.locator("#notice")).to_contain_text("Connection lost", timeout=30_000)
    expect(a.locator("#notice")).to_have_text(f"Reconnected: resumed after event {seen}.", timeout=120_000)
    expect(a.locator("#moves li")).to_have_count(2)

    _play_best(a, site.match)
    expect(a.locator("#moves li")).to_have_count(4, timeout=60_000)
    # the outage's own failed requests are the only console errors allowed here
    # (the stream cut: INCOMPLETE_CHUNKED_ENCODING; the calls while the server was down: REFUSED)
    outage = re.compile(r"Failed to load resource: "
                        r"net::ERR_(CONNECTION_REFUSED|INCOMPLETE_CHUNKED_ENCODING)$")
    pages.errors[:] = [e for e in pages.errors if not outage.search(e)]
