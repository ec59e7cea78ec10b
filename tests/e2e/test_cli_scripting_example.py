"""docs/cli.md's scripting example, run as documented against a real ``wordarena serve``, twice
with the same config files (``login --name`` again reuses the sign-in); scripting commands
without ``login`` fail clearly instead of signing a stranger in; ``record MATCH`` writes the
match's GCG and ``player-record`` took over a player's record; a watcher's ``chat`` goes to
the observers' channel."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_helpers import ROOT, Served, cli, cli_json

from wordarena.clients.cli.config import Config
from wordarena.engine.interchange import parse_gcg

pytestmark = pytest.mark.slow

DOC = ROOT / "docs" / "cli.md"


def documented_example() -> str:
    """The shell block after "A game between two guests from a shell" in docs/cli.md."""
    text = DOC.read_text(encoding="utf-8")
    after = text[text.index("A game between two guests from a shell"):]
    found = re.search(r"```sh\n(.*?)```", after, re.S)
    assert found, "docs/cli.md: no sh block after the scripting example's heading"
    return found.group(1)


def run_example(served: Served, folder: Path) -> subprocess.CompletedProcess[str]:
    script = documented_example().replace("127.0.0.1:50051", served.lobby).replace("/tmp/", f"{folder}/")
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env.pop("WORDARENA_CONFIG", None)
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_documented_scripting_example_runs_twice(served: Served, tmp_path: Path) -> None:
    ids = []
    for run in (1, 2):
        done = run_example(served, tmp_path)
        assert done.returncode == 0, f"run {run}: {done.stdout}\n{done.stderr}"
        said = "Already signed in as Alice" if run == 2 else "Signed in as Alice"
        assert said in done.stdout, done.stdout
        record = parse_gcg((tmp_path / "game.gcg").read_text(encoding="utf-8"))
        assert [p.nick for p in record.players] == ["Alice", "Bob"]
        assert record.moves and record.moves[-1].kind.name == "LEFT"  # Bob resigned
        ids.append(record.id)
    assert ids[0] != ids[1]  # two games, played by the same two players
    for who in ("alice", "bob"):
        me = cli_json(served, tmp_path / f"{who}.json", "whoami")
        assert me["player"]["display_name"] == who.title()


def test_scripting_commands_without_login_fail_clearly_and_sign_nobody_in(
        served: Served, tmp_path: Path) -> None:
    config = tmp_path / "nobody.json"
    done = cli(served, config, "table", "create", "--json", check=False)
    assert done.returncode == 1
    assert "Not signed in" in done.stderr and "wordarena login" in done.stderr
    assert json.loads(done.stdout)["exit_code"] == 1
    assert cli(served, config, "whoami", check=False).returncode == 1  # still nobody
    assert cli(served, config, "player-record", check=False).returncode == 1
    # `login --name N` prints {"player": …, "lobby": …, "config": …, "reused": …}; again, the same.
    first = cli_json(served, config, "login", "--name", "Nia")
    again = cli_json(served, config, "login", "--name", "Nia")
    assert first["reused"] is False and again["reused"] is True
    assert again["player"] == first["player"] and again["lobby"] == served.lobby
    assert again["config"] == str(config)
    # A token the lobby did not issue (or an expired one): exit 1, in the same words.
    forged = Config(tmp_path / "forged.json")
    forged.profile(served.lobby).token = "not-a-token"
    forged.save()
    done = cli(served, tmp_path / "forged.json", "table", "list", check=False)
    assert done.returncode == 1 and "wordarena login" in done.stderr


def test_record_writes_a_match_gcg_and_player_record_answers_for_players(
        served: Served, tmp_path: Path) -> None:
    me = tmp_path / "rita.json"
    cli(served, me, "login", "--name", "Rita")
    ted = tmp_path / "ted.json"
    cli(served, ted, "login", "--name", "Ted")
    table = cli_json(served, me, "table", "create")
    match_id = cli_json(served, ted, "table", "join", table["table_id"], "--wait")["match"]["match_id"]
    running = cli_json(served, me, "record", match_id)
    assert running["status"] == "MATCH_STATUS_IN_PROGRESS" and "racks_shown" not in running
    assert parse_gcg(running["gcg"]).players[0].nick == "Rita"
    # A watcher's chat goes to the observers' channel: not in the player's chat log while the
    # match runs, in the watchers' at once, in everyone's once it is over.
    watcher = tmp_path / "wes.json"
    cli(served, watcher, "login", "--name", "Wes")
    sent = cli_json(served, watcher, "chat", match_id, "she", "should", "swap")
    assert sent["event"]["chat"]["observers"] is True
    assert "(observers)" in cli(served, watcher, "log", match_id, "--chat").stdout
    assert "events" not in cli_json(served, me, "log", match_id, "--chat")
    cli(served, ted, "resign", match_id, "--yes")
    after = cli_json(served, me, "log", match_id, "--chat")
    assert [e["chat"]["text"] for e in after["events"]] == ["she should swap"]
    out = tmp_path / "out.gcg"
    wrote = cli_json(served, me, "record", match_id, "-o", str(out))
    assert wrote["file"] == str(out) and wrote["racks_shown"] is True and "gcg" not in wrote
    assert cli(served, me, "gcg", "check", str(out)).returncode == 0
    printed = cli(served, me, "record", match_id).stdout
    assert printed == out.read_text(encoding="utf-8")
    # `record` took a player id before: now it names where a player's record went.
    who = cli_json(served, me, "whoami")["player"]["player_id"]
    wrong = cli(served, me, "record", who, check=False)
    assert wrong.returncode == 1 and "player-record" in wrong.stderr
    assert cli_json(served, me, "player-record")["player"]["display_name"] == "Rita"


def test_the_json_each_command_prints_is_as_documented(served: Served, tmp_path: Path) -> None:
    """docs/cli.md, *What --json prints*: the response messages with the .proto field names,
    enums by name, seqs as strings, defaults left out; the CLI's own keys where it adds some."""
    ann, ben = tmp_path / "ann.json", tmp_path / "ben.json"
    cli(served, ann, "login", "--name", "Ann")
    cli(served, ben, "login", "--name", "Ben")
    assert cli_json(served, ann, "whoami")["player"]["display_name"] == "Ann"
    table = cli_json(served, ann, "table", "create", "--host-start")
    assert {"table_id", "settings", "seats"} <= table.keys() and "match" not in table
    joined = cli_json(served, ben, "table", "join", table["table_id"])
    assert joined["your_seat"] == 1 and joined["table_id"] == table["table_id"]
    assert table["table_id"] in [t["table_id"] for t in cli_json(served, ben, "table", "list")["tables"]]
    started = cli_json(served, ann, "table", "start", table["table_id"])
    assert started["table"]["status"] == "TABLE_STATUS_STARTED"
    match_id = started["assignment"]["match_id"]
    assert started["assignment"]["seat"] == 0  # an `optional` field that is set: printed at 0 too
    view = cli_json(served, ann, "state", match_id)
    assert view["status"] == "MATCH_STATUS_IN_PROGRESS" and view["last_seq"] == "1"
    passed = cli_json(served, ann, "pass", match_id)
    assert passed["last_seq"] == "2" and "turn_passed" in passed["events"][0] and passed["rack"]["tiles"]
    assert [m["assignment"]["match_id"] for m in cli_json(served, ann, "matches")["matches"]] == [match_id]
    refused = cli(served, ann, "pass", match_id, "--json", check=False)
    assert json.loads(refused.stdout) | {"error": ""} == {
        "error": "", "exit_code": 1, "status": "FAILED_PRECONDITION", "rule": "NOT_YOUR_TURN"}
    lines = cli(served, ben, "stream", match_id, "--count", "2", "--json").stdout.splitlines()
    assert [json.loads(line)["seq"] for line in lines] == ["1", "2"]
