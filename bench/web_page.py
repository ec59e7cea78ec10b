"""The web client's figures (issue 39): the lobby page's first render, the gzipped JavaScript, and
how long a play clicked in one browser takes to reach the other player's board.

    .venv/bin/python bench/web_page.py                  # 10 page loads, 50 moves
    .venv/bin/python bench/web_page.py --loads 20 --moves 100

A real ``wordarena serve`` on loopback (its web port serves clients/web/dist) and Debian's Chromium
(/usr/bin/chromium) driven by Playwright, headless, as in tests/browser.

* First render: a signed-in player opens the page (a new tab each time, the token in
  localStorage): milliseconds from the start of navigation (performance.now() = 0) to the lobby's
  table form in the DOM ("first render"), and to the live table list (WatchTables' first
  answer: "Live."). Median and worst over ``--loads`` loads.
* Gzipped JavaScript: dist/app.js at gzip -9 (the server sends it as is: its size is printed too).
* Play latency: two browser contexts play classic games against each other (the engine's best
  play for each rack, from the player's own view over native gRPC, typed into the page and
  previewed); each move is sent by a click on Play (or Pass), timed with Date.now() in the mover's
  page just before the click; the other page notes Date.now() when the move's line enters its
  move list (a MutationObserver): the page adds the line and redraws the board in the same task
  (game.ts onEvent), and only a received event adds a line (a board redraw may also come from the
  view refreshed after an earlier event). Both pages run in one browser on one machine: one
  clock. p50 / p95 / max over ``--moves`` moves (games are started until there are enough).
A figure script, not a timed test.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from playwright.sync_api import expect, sync_playwright  # noqa: E402
from web_helpers import best_play, create_table, match_id, sign_in, view_of  # noqa: E402

from wordarena.v1 import match_pb2 as m  # noqa: E402

WATCH = """
window.__moves = [];
window.__marks = {};
new MutationObserver((records) => {
  const now = Date.now();
  if (records.some((r) => r.target.id === "moves")) window.__moves.push(now);
  if (!window.__marks.form && document.getElementById("create-table")) {
    window.__marks.form = performance.now();
  }
  const state = document.getElementById("tables-state");
  if (!window.__marks.live && state && state.textContent === "Live.") {
    window.__marks.live = performance.now();
  }
}).observe(document, { childList: true, subtree: true, characterData: true });
"""


CLICK = "(id) => { const t = Date.now(); document.getElementById(id).click(); return t; }"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(data: Path) -> tuple[subprocess.Popen, str, str]:
    lobby, match = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    out = data / "serve.out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "wordarena.clients.cli.main", "serve", "--data-dir", str(data),
         "--lobby-listen", lobby, "--match-listen", match, "--bot-delay", "0"],
        cwd=ROOT, stdout=out.open("w"), stderr=subprocess.STDOUT,
        env={**os.environ, "WORDARENA_GUEST_SIGN_IN_BURST": "10000"})
    deadline = time.monotonic() + 180
    while "READY" not in out.read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"wordarena serve did not start: {out.read_text()}")
        time.sleep(0.2)
    (url,) = re.findall(r"^web\s+(\S+)", out.read_text(), re.M)
    return proc, url, match


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def first_render(browser, url: str, loads: int) -> tuple[list[float], list[float]]:
    ctx = browser.new_context()
    ctx.add_init_script(WATCH)
    page = ctx.new_page()
    page.goto(url)
    sign_in(page, f"Bench{uuid.uuid4().hex[:6]}")
    page.close()
    form, live = [], []
    for _ in range(loads):
        page = ctx.new_page()
        page.goto(url)
        expect(page.locator("#tables-state")).to_have_text("Live.")
        marks = page.evaluate("window.__marks")
        form.append(marks["form"])
        live.append(marks["live"])
        page.close()
    ctx.close()
    return form, live


def play_latency(browser, url: str, match_address: str, moves: int) -> list[float]:
    pages = []
    for prefix in ("Ana", "Ben"):
        ctx = browser.new_context()
        ctx.add_init_script(WATCH)
        page = ctx.new_page()
        page.goto(url)
        sign_in(page, f"{prefix}{uuid.uuid4().hex[:6]}")
        pages.append(page)
    a, b = pages
    times: list[float] = []
    while len(times) < moves:
        a.goto(url + "#/")
        b.goto(url + "#/")
        expect(b.locator("#tables-state")).to_have_text("Live.")
        create_table(a, "classic")
        b.locator("li.table").filter(has_text=a.locator("#me").inner_text()).locator("button.join").click()
        assert match_id(a) == match_id(b)
        seats = {view_of(p, match_address).viewer_seat: p for p in (a, b)}
        while len(times) < moves:
            view = view_of(a, match_address)
            if view.status == m.MATCH_STATUS_FINISHED:
                break
            mover = seats[view.to_move_seat]
            other = b if mover is a else a
            expect(mover.locator("#status")).to_have_attribute("data-turn", "mine")
            count = other.locator("#moves li").count()
            play = best_play(view_of(mover, match_address))
            if play is None:
                button = "pass"
            else:
                button = "play"
                mover.fill("#typed", play[1])
                expect(mover.locator("#preview")).to_contain_text(f"{play[0].score} points")
            sent = mover.evaluate(CLICK, button)
            expect(other.locator("#moves li").nth(count)).to_be_attached()
            drawn = min(t for t in other.evaluate("window.__moves") if t >= sent)
            times.append(drawn - sent)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=10)
    parser.add_argument("--moves", type=int, default=50)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()

    js = (ROOT / "clients" / "web" / "dist" / "app.js").read_bytes()
    print(f"JavaScript: {len(js) / 1024:.1f} KB, gzipped (-9) {len(gzip.compress(js, 9)) / 1024:.1f} KB")
    with tempfile.TemporaryDirectory() as tmp:
        proc, url, match_address = serve(Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=args.chromium, headless=True, args=[
                    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run"])
                form, live = first_render(browser, url, args.loads)
                print(f"lobby first render ({args.loads} loads): median {statistics.median(form):.0f} ms, "
                      f"worst {max(form):.0f} ms; live table list: median {statistics.median(live):.0f} ms, "
                      f"worst {max(live):.0f} ms")
                times = play_latency(browser, url, match_address, args.moves)
                print(f"play clicked -> other board ({len(times)} moves): p50 {pct(times, 0.5):.0f} ms, "
                      f"p95 {pct(times, 0.95):.0f} ms, max {max(times):.0f} ms")
                browser.close()
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(30)
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
