"""The ``wordarena-match`` process: SIGTERM drains gracefully; kill -9 loses no acknowledged turn."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from wordarena.services.common import auth
from wordarena.services.match.main import parse_ready_line
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import control_pb2_grpc, match_pb2_grpc
from wordarena.v1 import match_pb2 as m

# the store is what this proves: on SQLite and PostgreSQL (tests/conftest.py)
pytestmark = pytest.mark.database

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "proc-secret"


def spawn(tmp: Path, db: str, server_id: str = "proc-1",
          extra: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], int]:
    """A ``wordarena-match`` process (``extra``: more of its environment)."""
    tmp.mkdir(parents=True, exist_ok=True)
    env = os.environ | {"WORDARENA_SERVICE_TOKEN": TOKEN, "WORDARENA_DATABASE_URL": db,
                        "WORDARENA_DATA_DIR": str(tmp), "WORDARENA_LISTEN": "127.0.0.1:0",
                        "WORDARENA_SERVER_ID": server_id, "WORDARENA_SHUTDOWN_GRACE": "2",
                        "WORDARENA_LOG_FORMAT": "json"} | (extra or {})
    proc = subprocess.Popen([sys.executable, "-m", "wordarena.services.match.main"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    ready = parse_ready_line(line)
    assert ready is not None, line
    return proc, ready[0]


def test_kill9_then_sigterm(tmp_path: Path, database_url: str) -> None:
    proc, port = spawn(tmp_path, database_url)
    keys = auth.load_token_keys(tmp_path)
    md = {p: [("authorization", f"Bearer {keys.issue(p, p, 600)}")] for p in ("alice", "bob")}
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            control_pb2_grpc.MatchControlServiceStub(ch).CreateMatch(ctl.CreateMatchRequest(
                match_id="p1", ruleset=c.RulesetRef(ruleset_id="classic"), seed=5, seats=[
                    ctl.SeatAssignment(index=0, player=c.Player(player_id="alice", display_name="A")),
                    ctl.SeatAssignment(index=1, player=c.Player(player_id="bob", display_name="B"))]),
                metadata=[("authorization", f"Bearer {TOKEN}")])
            stub = match_pb2_grpc.MatchServiceStub(ch)
            seq = 1
            for k in range(3):
                who = ("alice", "bob")[k % 2]
                req = m.SubmitTurnRequest(match_id="p1", expected_seq=seq, request_id=f"t{k}",
                                          move=c.Move(pass_turn=c.PassMove()))
                r = stub.SubmitTurn(req, metadata=md[who])
                seq = r.last_seq
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        proc, port = spawn(tmp_path, database_url)  # same server id: takes its matches back at once
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            stub = match_pb2_grpc.MatchServiceStub(ch)
            view = stub.GetMatch(m.GetMatchRequest(match_id="p1"), metadata=md["bob"]).match
            assert view.last_seq == seq and view.to_move_seat == 1
            stream = stub.StreamMatch(m.StreamMatchRequest(match_id="p1", after_seq=seq), metadata=md["bob"])
            time.sleep(0.2)
            proc.send_signal(signal.SIGTERM)
            with pytest.raises(grpc.RpcError) as exc:
                for _ in stream:
                    pass
            assert exc.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)
        assert proc.wait(15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _json_lines(text: str, where: str) -> list[dict[str, object]]:
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            raise AssertionError(f"{where}: not a JSON line: {line!r}") from None
        assert isinstance(obj, dict), f"{where}: {line!r}"
        out.append(obj)
    return out


def test_json_logs_every_line_is_json(tmp_path: Path) -> None:
    """Lobby + match server with ``--log-format json`` at info level (Alembic's start-up lines
    included): every line either writes on stdout or stderr is a JSON object, and every log line
    names the service and its server id."""
    lobby_port = _free_port()
    base = os.environ | {"WORDARENA_SERVICE_TOKEN": TOKEN, "WORDARENA_DATA_DIR": str(tmp_path),
                         "WORDARENA_LOG_FORMAT": "json", "WORDARENA_LOG_LEVEL": "info",
                         "WORDARENA_SHUTDOWN_GRACE": "1", "PYTHONWARNINGS": "default"}
    for k in ("WORDARENA_TOKEN_PUBLIC_KEY", "WORDARENA_TOKEN_PRIVATE_KEY", "WORDARENA_REQUIRE_KEYS"):
        base.pop(k, None)
    lobby = subprocess.Popen(
        [sys.executable, "-c", "from wordarena.services.lobby.main import main; main()"], cwd=ROOT,
        env=base | {"WORDARENA_LISTEN": f"127.0.0.1:{lobby_port}", "WORDARENA_SERVER_ID": "lobby-j",
                    "WORDARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'lobby.db'}"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    match = None
    try:
        with grpc.insecure_channel(f"127.0.0.1:{lobby_port}") as ch:
            grpc.channel_ready_future(ch).result(timeout=30)
        match = subprocess.Popen(
            [sys.executable, "-m", "wordarena.services.match.main", "--lobby", f"127.0.0.1:{lobby_port}"],
            cwd=ROOT,
            env=base | {"WORDARENA_LISTEN": "127.0.0.1:0", "WORDARENA_SERVER_ID": "match-j",
                        "WORDARENA_METRICS_LISTEN": "127.0.0.1:0",
                        "WORDARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'match.db'}"},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert match.stdout is not None
        ready = parse_ready_line(match.stdout.readline())
        assert ready is not None and ready[1] > 0
        time.sleep(0.5)  # a heartbeat or so
    finally:
        for p in (match, lobby):
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGTERM)
        outs = {}
        for name, p in (("match", match), ("lobby", lobby)):
            if p is not None:
                out, err = p.communicate(timeout=20)
                outs[name] = (out, err, p.returncode)
    for name, (out, err, code) in outs.items():
        assert code == 0, (name, code, err[-2000:])
        _json_lines(out, f"{name} stdout")
        logs = _json_lines(err, f"{name} stderr")
        assert logs, name
        for entry in logs:
            assert entry.get("service") == name and entry.get("server_id") == f"{name}-j", entry
            assert {"event", "level", "timestamp"} <= entry.keys(), entry
    events = {(name, e["event"]) for name, (_, err, _) in outs.items() for e in _json_lines(err, name)}
    assert any(n == "match" and str(ev).startswith("Context impl") for n, ev in events), events  # Alembic
    assert ("match", "matches recovered") in events and ("match", "serving") in events
    warned = [e for e in _json_lines(outs["match"][1], "match") if str(e["event"]).startswith("token keys:")]
    assert warned and warned[0]["level"] == "warning"  # --lobby without a public key


@pytest.mark.parametrize("service", ["match", "lobby"])
def test_require_keys_refuses_to_start_without_keys(tmp_path: Path, service: str) -> None:
    env = os.environ | {"WORDARENA_DATA_DIR": str(tmp_path), "WORDARENA_LOG_FORMAT": "json",
                        "WORDARENA_REQUIRE_KEYS": "1", "WORDARENA_LISTEN": "127.0.0.1:0",
                        "WORDARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}"}
    for k in ("WORDARENA_TOKEN_PUBLIC_KEY", "WORDARENA_TOKEN_PRIVATE_KEY"):
        env.pop(k, None)
    proc = subprocess.run([sys.executable, "-m", f"wordarena.services.{service}.main"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    (entry,) = [e for e in _json_lines(proc.stderr, service) if e["level"] == "error"]
    assert entry["event"] == "cannot start: token keys"
    error = str(entry["error"])
    assert "WORDARENA_TOKEN_PUBLIC_KEY" in error and "WORDARENA_REQUIRE_KEYS" in error
    assert not (tmp_path / auth.DEV_PRIVATE_KEY_FILE).exists()  # no development key pair made
    assert not (tmp_path / "x.db").exists()  # refused before touching the database


def test_a_resumed_server_that_lost_its_lease_answers_match_moved_not_stale_data(
    tmp_path: Path, database_url: str
) -> None:
    """Issue 38, finding 8: a match server stopped (SIGSTOP) past its lease while another took
    the match over and played on answered, once continued, GetMatch with its stale copy (last_seq
    1 while the log had 2) and a turn carrying the current seq with INVALID_ARGUMENT. A server
    that may have lost its lease checks it before it answers: UNAVAILABLE with MatchMoved naming
    the new owner, or the current state."""
    import concurrent.futures

    from wordarena.services.common.errors import detail
    from wordarena.v1 import errors_pb2 as e

    key = auth.generate_key_pair()
    shared = {"WORDARENA_LEASE_SECONDS": "2",
              "WORDARENA_TOKEN_PRIVATE_KEY": auth.private_key_pem(key).decode(),
              "WORDARENA_TOKEN_PUBLIC_KEY": auth.public_key_pem(key.public_key()).decode()}
    a, port_a = spawn(tmp_path / "a", database_url, "proc-a", shared)
    b, port_b = spawn(tmp_path / "b", database_url, "proc-b", shared)
    keys = auth.load_token_keys(tmp_path / "a", environ=shared)
    md = {p: [("authorization", f"Bearer {keys.issue(p, p, 600)}")] for p in ("alice", "bob")}
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port_a}") as ca, \
                grpc.insecure_channel(f"127.0.0.1:{port_b}") as cb:
            control_pb2_grpc.MatchControlServiceStub(ca).CreateMatch(ctl.CreateMatchRequest(
                match_id="moved1", ruleset=c.RulesetRef(ruleset_id="classic"), seed=5, seats=[
                    ctl.SeatAssignment(index=0, player=c.Player(player_id="alice", display_name="A")),
                    ctl.SeatAssignment(index=1, player=c.Player(player_id="bob", display_name="B"))]),
                metadata=[("authorization", f"Bearer {TOKEN}")])
            sa, sb = match_pb2_grpc.MatchServiceStub(ca), match_pb2_grpc.MatchServiceStub(cb)
            assert sa.GetMatch(m.GetMatchRequest(match_id="moved1"), metadata=md["bob"]).match.last_seq == 1
            a.send_signal(signal.SIGSTOP)
            deadline = time.monotonic() + 30
            while True:  # B takes the match over once A's lease has lapsed
                try:
                    view = sb.GetMatch(m.GetMatchRequest(match_id="moved1"), metadata=md["alice"]).match
                    break
                except grpc.RpcError as err:
                    assert err.code() == grpc.StatusCode.UNAVAILABLE and time.monotonic() < deadline, err
                    time.sleep(0.2)
            got = sb.SubmitTurn(m.SubmitTurnRequest(match_id="moved1", expected_seq=view.last_seq,
                                                    request_id="on-b", move=c.Move(pass_turn=c.PassMove())),
                                metadata=md["alice"])
            assert got.last_seq == 2
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                # asked while A is stopped: the questions wait in its socket for it to continue
                read = pool.submit(sa.GetMatch, m.GetMatchRequest(match_id="moved1"), metadata=md["bob"],
                                   timeout=20)
                write = pool.submit(sa.SubmitTurn, m.SubmitTurnRequest(
                    match_id="moved1", expected_seq=2, request_id="on-a",
                    move=c.Move(pass_turn=c.PassMove())), metadata=md["bob"], timeout=20)
                time.sleep(0.3)  # lets both calls reach A's socket (not a proof: A is stopped)
                a.send_signal(signal.SIGCONT)
                for call in (read, write):
                    try:
                        answer = call.result()
                    except grpc.RpcError as err:
                        assert err.code() == grpc.StatusCode.UNAVAILABLE, err
                        moved = detail(err, e.MatchMoved)
                        assert moved is not None and moved.new_address.endswith(f":{port_b}"), err
                    else:
                        assert answer.match.last_seq == 2 if hasattr(answer, "match") else True, answer
                        assert not hasattr(answer, "events"), "A played a turn on a match it lost"
    finally:
        for proc in (a, b):
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.kill()
