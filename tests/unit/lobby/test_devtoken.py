"""``wordarena-lobby dev-token``: tokens from the lobby's key that a match server verifies,
run as a user runs it (the console script, in a subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from wordarena.services.common import auth

LOBBY = str(Path(sys.executable).with_name("wordarena-lobby"))
CLI = str(Path(sys.executable).with_name("wordarena"))


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WORDARENA_")}
    return subprocess.run([LOBBY, "dev-token", *args], capture_output=True, text=True, env=env,
                          timeout=60, check=False)


def test_dev_token_is_verified_with_the_same_key(tmp_path: Path) -> None:
    done = _run("alice", "--name", "Alice", "--data-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    claims = auth.load_token_keys(tmp_path, generate=False).verify(done.stdout.strip())
    assert (claims.player_id, claims.display_name, claims.is_service) == ("alice", "Alice", False)

    done = _run("lobby", "--service", "--json", "--data-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["kind"] == "service"
    assert auth.load_token_keys(tmp_path, generate=False).verify(out["token"]).is_service


def test_dev_token_refuses_bad_input(tmp_path: Path) -> None:
    for args in (("no spaces", "--data-dir", str(tmp_path)),
                 ("bob", "--ttl", "0", "--data-dir", str(tmp_path)),
                 ("bob", "--private-key", str(tmp_path / "missing.pem"))):
        done = _run(*args)
        assert done.returncode == 2, args
        assert "dev-token:" in done.stderr


def test_the_client_cli_has_no_dev_token_and_imports_no_server_module() -> None:
    """Signing is the lobby's: the client CLI offers no dev-token, and building its parser (every
    sub-command's module) imports nothing from ``wordarena.services`` but the serve launcher's
    needs, which it imports only when run."""
    done = subprocess.run([CLI, "dev-token", "alice"], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 2 and "invalid choice" in done.stderr
    probe = ("import sys; from wordarena.clients.cli.main import build_parser; build_parser(); "
             "print(sorted(m for m in sys.modules if m.startswith('wordarena.services')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                          check=True)
    assert done.stdout.strip() == "[]"
