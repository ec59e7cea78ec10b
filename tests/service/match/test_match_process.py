"""The ``wordarena-match`` process: SIGTERM drains gracefully; kill -9 loses no acknowledged turn."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from protos.wordarena.v1 import common_pb2 as c
from protos.wordarena.v1 import control_pb2 as ctl
from protos.wordarena.v1 import control_pb2_grpc, match_pb2_grpc
from protos.wordarena.v1 import match_pb2 as m
from services.common import auth

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "proc-secret"


def spawn(tmp: Path, db: str) -> tuple[subprocess.Popen[str], int]:
    env = os.environ | {"WORDARENA_SERVICE_TOKEN": TOKEN, "WORDARENA_DATABASE_URL": db,
                        "WORDARENA_DATA_DIR": str(tmp), "WORDARENA_LISTEN": "127.0.0.1:0",
                        "WORDARENA_SERVER_ID": "proc-1", "WORDARENA_SHUTDOWN_GRACE": "2",
                        "WORDARENA_LOG_FORMAT": "json"}
    proc = subprocess.Popen([sys.executable, "-m", "services.match.main"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("LISTENING"), line
    return proc, int(line.split()[1])


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
