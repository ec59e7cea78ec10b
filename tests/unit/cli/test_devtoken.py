"""``wordarena dev-token``: tokens from the configured key that a match server verifies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from wordarena.clients.cli.main import main
from wordarena.services.common import auth


def test_dev_token_is_verified_with_the_same_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dev-token", "alice", "--name", "Alice", "--data-dir", str(tmp_path)]) == 0
    token = capsys.readouterr().out.strip()
    claims = auth.load_token_keys(tmp_path, generate=False).verify(token)
    assert (claims.player_id, claims.display_name, claims.is_service) == ("alice", "Alice", False)

    assert main(["dev-token", "lobby", "--service", "--json", "--data-dir", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "service"
    assert auth.load_token_keys(tmp_path, generate=False).verify(out["token"]).is_service


def test_dev_token_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dev-token", "no spaces", "--data-dir", str(tmp_path)]) == 2
    assert main(["dev-token", "bob", "--ttl", "0", "--data-dir", str(tmp_path)]) == 2
    assert main(["dev-token", "bob", "--private-key", str(tmp_path / "missing.pem")]) == 2
    assert "dev-token:" in capsys.readouterr().err
