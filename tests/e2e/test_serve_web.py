"""``wordarena serve`` for browsers: it prints the page's URL before READY; the page answers at
``/``; ``/config.json`` gives the web URL of the match server it printed, and that URL answers
gRPC-Web calls from the page's origin; the lobby's RPCs answer at the page's own origin."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from e2e_helpers import ROOT, WORDARENA, free_port
from grpc_health.v1 import health_pb2

sys.path.insert(0, str(ROOT / "tests" / "service" / "web"))
from grpcweb import unary

from wordarena.v1 import lobby_pb2

pytestmark = pytest.mark.slow


def test_serve_prints_the_page_url_and_serves_the_page_and_both_web_ports(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [*WORDARENA, "serve", "--data-dir", str(tmp_path / "data"), "--lobby-listen",
         f"127.0.0.1:{free_port()}", "--match-listen", "127.0.0.1:0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ))
    assert proc.stdout is not None
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 180
        while not lines or not lines[-1].startswith("READY"):
            line = proc.stdout.readline()
            assert line, f"serve exited: {''.join(lines)}"
            assert time.monotonic() < deadline, "serve did not become ready"
            lines.append(line)
        (page,) = [ln.split()[1] for ln in lines if ln.startswith("web ")]
        (match,) = [ln.split()[1] for ln in lines if ln.startswith("match ")]
        assert page.startswith("http://127.0.0.1:") and page.endswith("/")
        origin = page.rstrip("/")

        with httpx.Client(timeout=30) as http:
            r = http.get(page)
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
            assert "<title>wordarena</title>" in r.text and 'src="app.js?v=' in r.text
            config = http.get(page + "config.json").json()
            match_web = config["match_servers"][match]

        async def calls() -> None:
            async with httpx.AsyncClient(timeout=30) as client:
                rulesets = await unary(client, origin, "/wordarena.v1.LobbyService/ListRulesets",
                                       lobby_pb2.ListRulesetsRequest(), lobby_pb2.ListRulesetsResponse,
                                       origin=origin)
                assert {r.ruleset_id for r in rulesets.rulesets} >= {"classic", "wordtiles"}
                health = await unary(client, match_web, "/grpc.health.v1.Health/Check",
                                     health_pb2.HealthCheckRequest(service="wordarena.v1.MatchService"),
                                     health_pb2.HealthCheckResponse, origin=origin)
                assert health.status == health_pb2.HealthCheckResponse.SERVING
                r = await client.options(match_web + "/wordarena.v1.MatchService/GetMatch", headers={
                    "origin": origin, "access-control-request-method": "POST"})
                assert r.status_code == 204 and r.headers["access-control-allow-origin"] == origin

        asyncio.run(calls())
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
