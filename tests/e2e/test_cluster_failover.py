"""Fail-over across hosts: a lobby and three match servers, each on its own "host" (a network
namespace with its own address), on one PostgreSQL database; players on a fourth host who know
only the lobby's address.

While the players (``cluster_players.py``: pairs of scripted guests, and guests against bots)
play at least 60 classic matches, the test kills one match server with SIGKILL (and later starts
it again under the same server id), cuts another host's link for longer than a lease, and stops
the third with SIGSTOP for longer than a lease (then SIGCONT). Then:

- every turn a client saw acknowledged is in the match's event log exactly once (the server's
  first answer to its request id is stored with the same seq, and the log holds as many turns of
  the scripted seats as the clients had acknowledged);
- every match finished, and the lobby lists each one once, with an outcome, for each of its
  players, and counts each rated one once in their record;
- the clients followed their matches to the new owners (``MatchMoved`` / ``LocateMatch``), and for
  every failure the time from the failure to the first acknowledged turn on another server is
  printed (target: lease + 2 s) with the refusals the clients saw.

The figures are printed (run with ``-s`` to see them); docs/operations.md ("Failure modes")
quotes them. Needs root (network namespaces) and PostgreSQL.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cluster import Cluster, netns_available
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from e2e_helpers import ROOT
from sqlalchemy.engine import make_url

from wordarena.clients.cli.client import Client, Config
from wordarena.v1 import lobby_pb2

# alone: the fail-over times are asserted (scripts/test runs it after the parallel part)
pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.alone, pytest.mark.timeout(600)]

LEASE = 3.0  # seconds: the match servers' --lease-seconds
LOBBY_PORT, MATCH_PORT, METRICS_PORT, PG_PORT = 50051, 50052, 9100, 15432
MATCHES = 60
FINISHED = lobby_pb2.MATCH_LIST_STATE_FINISHED


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    why = netns_available()
    if why is not None:
        pytest.skip(why)
    c = Cluster()
    try:
        c.up(["lobby", "m1", "m2", "m3", "clients"])
        yield c
    finally:
        c.close()


def _keys(work: Path) -> tuple[Path, Path]:
    key = Ed25519PrivateKey.generate()
    private, public = work / "token.pem", work / "token.pub.pem"
    private.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    public.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return private, public


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WORDARENA_")}
    env["WORDARENA_SERVICE_TOKEN"] = "cluster-test-service-token"
    return env


def _scrape(address: str) -> dict[str, float]:
    """A /metrics page as {series: value}."""
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


def _wait(check: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            got = check()
        except OSError:
            got = None
        if got:
            return got
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


class Deployment:
    """The processes of the test's cluster and where their logs go."""

    def __init__(self, cluster: Cluster, database_url: str, work: Path) -> None:
        self.cluster, self.work = cluster, work
        url = make_url(database_url)
        self.db_url = url.set(host=cluster.gateway, port=PG_PORT).render_as_string(hide_password=False)
        cluster.forward(PG_PORT, (url.host or "127.0.0.1", url.port or 5432))
        self.private, self.public = _keys(work)
        self.lobby = f"{cluster.hosts['lobby'].address}:{LOBBY_PORT}"
        self.match: dict[str, subprocess.Popen[str]] = {}

    def start_lobby(self) -> None:
        log = (self.work / "lobby.log").open("a")
        self.cluster.spawn(
            "lobby",
            [
                sys.executable,
                "-m",
                "wordarena.services.lobby.main",
                "--listen",
                f"0.0.0.0:{LOBBY_PORT}",
                "--metrics-listen",
                f"0.0.0.0:{METRICS_PORT}",
                "--database-url",
                self.db_url,
                "--data-dir",
                str(self.work / "lobby"),
                "--token-private-key",
                str(self.private),
                "--token-public-key",
                str(self.public),
                "--server-ttl",
                "6",
                "--log-format",
                "json",
                "--server-id",
                "lobby",
            ],
            env=_env(),
            cwd=ROOT,
            stdout=log,
            stderr=log,
        )

    def start_match(self, name: str) -> None:
        host = self.cluster.hosts[name]
        log = (self.work / f"{name}.log").open("a")
        proc = self.cluster.spawn(
            name,
            [
                sys.executable,
                "-m",
                "wordarena.services.match.main",
                "--listen",
                f"0.0.0.0:{MATCH_PORT}",
                "--advertise-address",
                f"{host.address}:{MATCH_PORT}",
                "--metrics-listen",
                f"0.0.0.0:{METRICS_PORT}",
                "--database-url",
                self.db_url,
                "--data-dir",
                str(self.work / name),
                "--token-public-key",
                str(self.public),
                "--server-id",
                name,
                "--lobby",
                self.lobby,
                "--lease-seconds",
                str(LEASE),
                "--log-format",
                "json",
            ],
            env=_env(),
            cwd=ROOT,
            stderr=log,
        )
        self.match[name] = proc

    def address(self, name: str) -> str:
        return f"{self.cluster.hosts[name].address}:{MATCH_PORT}"

    def lobby_metrics(self) -> dict[str, float]:
        return _scrape(f"{self.cluster.hosts['lobby'].address}:{METRICS_PORT}")

    def healthy(self, n: int) -> bool:
        return self.lobby_metrics().get('wordarena_match_servers{state="healthy"}') == n


def _records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def test_matches_survive_a_crash_a_partition_and_a_pause(
    cluster: Cluster, postgres_database: str, tmp_path: Path
) -> None:
    dep = Deployment(cluster, postgres_database, tmp_path)
    dep.start_lobby()
    for name in ("m1", "m2", "m3"):
        dep.start_match(name)
    _wait(lambda: dep.healthy(3), 120, "three healthy match servers")

    out, stop = tmp_path / "players.jsonl", tmp_path / "stop"
    (tmp_path / "players").mkdir()
    players = cluster.spawn(
        "clients",
        [
            sys.executable,
            str(ROOT / "tests/e2e/cluster_players.py"),
            dep.lobby,
            str(out),
            str(tmp_path / "players"),
            "--pairs",
            "6",
            "--bots",
            "2",
            "--stop-file",
            str(stop),
        ],
        env=_env(),
        cwd=ROOT,
        stdout=(tmp_path / "players.out").open("w"),
        stderr=subprocess.STDOUT,
    )

    def started() -> int:
        return sum(r["kind"] == "match" for r in _records(out))

    def finished() -> int:
        assert players.poll() is None, (tmp_path / "players.out").read_text()[-3000:] + str(
            [r for r in _records(out) if r["kind"] == "error"]
        )
        return sum(r["kind"] == "finished" for r in _records(out))

    failures: list[tuple[str, str, float]] = []  # (what, server, time)
    _wait(lambda: started() >= 8 and finished() >= 2, 120, "matches under way")

    def busy(name: str) -> None:  # the failure must hit matches in play
        _wait(
            lambda: len(_held(_records(out), dep.address(name), time.time())) >= 2, 60, f"matches on {name}"
        )

    # 1. m1 dies (SIGKILL: no lease released); later it comes back under the same id.
    busy("m1")
    failures.append(("kill -9", "m1", time.time()))
    dep.match["m1"].send_signal(signal.SIGKILL)
    dep.match["m1"].wait(10)
    time.sleep(LEASE + 4)
    dep.start_match("m1")
    _wait(lambda: dep.healthy(3), 60, "m1 back")
    time.sleep(2)

    # 2. m2's host loses its link for longer than a lease.
    busy("m2")
    failures.append(("link cut", "m2", time.time()))
    cluster.cut("m2")
    time.sleep(LEASE + 3)
    cluster.restore("m2")
    time.sleep(3)

    # 3. m3 is paused (SIGSTOP) for longer than a lease, then continues.
    busy("m3")
    failures.append(("SIGSTOP", "m3", time.time()))
    dep.match["m3"].send_signal(signal.SIGSTOP)
    time.sleep(LEASE + 3)
    dep.match["m3"].send_signal(signal.SIGCONT)

    _wait(lambda: finished() >= MATCHES, 240, f"{MATCHES} matches finished")
    stop.touch()
    assert players.wait(120) == 0, (tmp_path / "players.out").read_text()[-3000:]
    records = _records(out)
    assert not [r for r in records if r["kind"] == "error"]

    _check_every_match_finished_and_reached_the_lobby(dep, records, tmp_path)
    _check_acknowledged_turns_logged_once(postgres_database, records)
    dsn = postgres_database.replace("postgresql+psycopg://", "postgresql://", 1)
    with psycopg.connect(dsn) as conn:
        ended = dict(conn.execute("SELECT id, ended_at FROM matches WHERE ended_at IS NOT NULL").fetchall())
    report = _failover_report(dep, records, failures, ended) + "\n" + _operator_view(dep)
    print("\n" + report)
    (tmp_path / "report.txt").write_text(report)


def _check_every_match_finished_and_reached_the_lobby(
    dep: Deployment, records: list[dict[str, Any]], tmp_path: Path
) -> None:
    matches = {r["match"]: r for r in records if r["kind"] == "match"}
    assert len(matches) >= MATCHES
    assert {r["match"] for r in records if r["kind"] == "finished"} == set(matches)
    by_player: dict[str, set[str]] = defaultdict(set)
    for mid, r in matches.items():
        for pid in r["seats"]:
            by_player[pid].add(mid)
    configs = sorted((tmp_path / "players").glob("*.json"))
    assert len(configs) == len(by_player)
    clients = [Client(dep.lobby, config=Config.load(path)) for path in configs]

    def lobby_has_every_result() -> bool:  # the last results are still being reported meanwhile
        return all(
            sorted(s.assignment.match_id for s in c.my_matches(FINISHED, 100))
            == sorted(by_player[c.profile.player_id])
            for c in clients
        )

    try:
        try:
            _wait(lobby_has_every_result, 60, "every result in the lobby")
        except AssertionError:
            missing = {
                c.profile.player_id: sorted(
                    set(by_player[c.profile.player_id])
                    - {s.assignment.match_id for s in c.my_matches(FINISHED, 100)}
                )
                for c in clients
            }
            raise AssertionError(f"results the lobby does not list: {missing}") from None
        for client in clients:
            pid = client.profile.player_id
            done = client.my_matches(FINISHED, page_size=100)
            assert Counter(s.assignment.match_id for s in done) == Counter(by_player[pid])
            assert all(s.outcome != 0 for s in done), f"{pid}: a finished match without an outcome"
            games = sum(r.games for r in client.player_record(pid, "classic").records)
            played = len(by_player[pid])
            assert games == played, f"{pid}: record counts {games} games of {played}"
    finally:
        for client in clients:
            client.close()


def _check_acknowledged_turns_logged_once(database_url: str, records: list[dict[str, Any]]) -> None:
    acks = [r for r in records if r["kind"] == "ack"]
    dsn = database_url.replace("postgresql+psycopg://", "postgresql://", 1)
    with psycopg.connect(dsn) as conn:
        answered = {
            (m, p, rid): seq
            for m, p, rid, seq in conn.execute(
                "SELECT match_id, player_id, request_id, last_seq FROM match_requests "
                "WHERE method = 'SubmitTurn'"
            )
        }
        events = conn.execute("SELECT match_id, seq, kind, payload FROM match_events").fetchall()
    for a in acks:
        key = (a["match"], a["player"], a["request_id"])
        assert answered.get(key) == a["last_seq"], f"acknowledged turn {key} at {a['last_seq']} not stored"
    assert len({(a["match"], a["request_id"]) for a in acks}) == len(acks), "a turn acknowledged twice"
    # The scripted players only pass and resign; the bots (seat 1 of a bot match) only play.
    scripted = {r["match"]: set(r["seats"].values()) for r in records if r["kind"] == "match"}
    logged: Counter[str] = Counter()
    for mid, _seq, _kind, payload in events:
        first = json.loads(payload)["engine"][0]
        if mid in scripted and first["type"] in ("passed", "resigned") and first["seat"] in scripted[mid]:
            logged[mid] += 1
    assert logged == Counter(a["match"] for a in acks), "turns in the logs differ from the acknowledged ones"


def _held(records: list[dict[str, Any]], address: str, t0: float) -> list[str]:
    """The matches in progress at ``t0`` that were last served (or allocated) at ``address``."""
    ended = {r["match"]: r["t"] for r in records if r["kind"] == "finished"}
    where = {
        r["match"]: r["address"]
        for r in records
        if r["kind"] == "match" and r["t"] < t0 and ended.get(r["match"], t0 + 1) > t0
    }
    for a in records:
        if a["kind"] == "ack" and a["t"] < t0 and a["match"] in where:
            where[a["match"]] = a["address"]
    return [mid for mid, at in where.items() if at == address]


def _failover_report(
    dep: Deployment,
    records: list[dict[str, Any]],
    failures: list[tuple[str, str, float]],
    ended: dict[str, float],
) -> str:
    """Per failure: the matches the failed server held (started, not finished for their clients,
    last served there), each of which must go on elsewhere, and the time from the failure to its
    first turn there. A match whose last turn the server committed just before it failed (the
    answer lost; ``ended``: when the log says it ended) is over: nobody takes it over, and its
    client's retry is answered by the server when it is back (counted, not timed)."""
    acks = sorted((r for r in records if r["kind"] == "ack"), key=lambda r: r["t"])
    refused = [r for r in records if r["kind"] == "refused"]
    moved = [r for r in records if r["kind"] == "moved"]
    started = {r["match"]: r for r in records if r["kind"] == "match"}
    lines = [
        f"matches: {len(started)}, acknowledged turns: {len(acks)}, refused attempts: {len(refused)} "
        f"{dict(Counter(r['code'] for r in refused))}, "
        f"moves followed: {dict(Counter(r['via'] for r in moved))}"
    ]
    for what, server, t0 in failures:
        address = dep.address(server)
        held = _held(records, address, t0)
        over = [mid for mid in held if ended.get(mid, t0 + 1) <= t0]
        gaps, stayed = [], []
        for mid in set(held) - set(over):
            after = next((a for a in acks if a["match"] == mid and a["t"] >= t0), None)
            if after is None:  # its last turn came just before the failure (seen finished after it)
                continue
            followed = [r for r in moved if r["match"] == mid and t0 <= r["t"] <= after["t"]]
            if after["address"] == address and not followed:
                # Nobody asked for this match while its lease was out (its clients were waiting
                # on the bot, or their answer was in flight as the failure began), so no other
                # server claimed it and its owner renewed the lease: legitimate, and counted.
                stayed.append(mid)
                continue
            assert after["address"] != address, f"{mid} went back to {server} after a client followed it away"
            assert followed, f"{mid}: went on elsewhere but no client followed it"
            gaps.append(after["t"] - t0)
        gaps.sort()
        window = [r for r in refused if t0 <= r["t"] < t0 + 3 * LEASE + 10]
        lines.append(
            f"{what} {server}: {len(held)} matches held ({len(over)} ended by a turn whose answer was lost), "
            f"{len(gaps)} played on elsewhere, {len(stayed)} kept by their owner (nobody claimed them); "
            "failure to first turn on the new owner: "
            f"median {gaps[len(gaps) // 2] if gaps else 0:.1f} s, max {max(gaps, default=0):.1f} s "
            f"(lease {LEASE:.0f} s, target {LEASE + 2:.0f} s); refused attempts meanwhile: "
            f"{dict(Counter(r['code'] for r in window))}"
        )
        assert gaps, f"no match of {server} was played on after the {what}: {lines[-1]}"
        assert max(gaps) <= 2 * LEASE + 4, lines[-1]
    assert moved, "no client followed a match to another server"
    return "\n".join(lines)


def _logged(path: Path, level: str) -> Counter[str]:
    """The events a server logged at ``level`` (JSON lines)."""
    lines = (json.loads(line) for line in path.read_text().splitlines() if line.startswith("{"))
    return Counter(str(r.get("event")).splitlines()[0] for r in lines if r.get("level") == level)


def _operator_view(dep: Deployment) -> str:
    """What the operator sees afterwards: take-overs and location reports per match server, and the
    warnings each server logged. Failures the cluster rides out log warnings, never errors."""
    lines = []
    for name in ("m1", "m2", "m3", "lobby"):
        got = _scrape(f"{dep.cluster.hosts[name].address}:{METRICS_PORT}")
        picked = {
            k: v
            for k, v in got.items()
            if k.startswith(
                (
                    "wordarena_recoveries_total",
                    "wordarena_locations_reported_total",
                    "wordarena_allocations_total",
                    "wordarena_results_reported_total",
                )
            )
        }
        log = dep.work / f"{name}.log"
        lines.append(f"{name}: {picked}; warnings logged: {dict(_logged(log, 'warning'))}")
        assert not _logged(log, "error"), f"{name} logged errors: {dict(_logged(log, 'error'))}"
    return "\n".join(lines)
