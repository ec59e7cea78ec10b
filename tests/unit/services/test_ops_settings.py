"""Production switches in the common settings: booleans from flags / environment, required token
keys, and the flags each service takes."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from wordarena.services.common import auth
from wordarena.services.common.config import build_parser, env_bool, settings_from_args


def test_env_bool() -> None:
    for raw in ("1", "true", "YES", " on "):
        assert env_bool(raw) is True
    for raw in ("0", "false", "No", "off", ""):
        assert env_bool(raw) is False
    with pytest.raises(argparse.ArgumentTypeError):
        env_bool("maybe")


def test_switches_from_flags_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORDARENA_REQUIRE_KEYS", "1")
    monkeypatch.delenv("WORDARENA_NO_MIGRATE", raising=False)
    s = settings_from_args("lobby", build_parser("lobby").parse_args(["--no-migrate"]))
    assert (s.require_keys, s.no_migrate, s.migrate_only) == (True, True, False)
    s = settings_from_args("lobby", build_parser("lobby").parse_args(["--require-keys", "0"]))
    assert s.require_keys is False
    monkeypatch.setenv("WORDARENA_NO_MIGRATE", "perhaps")
    with pytest.raises(SystemExit):
        build_parser("lobby")


def test_only_the_match_server_advertises_an_address() -> None:
    from wordarena.services.match.main import parser

    lobby_flags = {o for a in build_parser("lobby")._actions for o in a.option_strings}
    match_flags = {o for a in parser()._actions for o in a.option_strings}
    assert "--advertise-address" not in lobby_flags and "--server-id" in lobby_flags
    assert "--advertise-address" in match_flags


def test_required_keys_refuse_the_development_key_pair(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="WORDARENA_REQUIRE_KEYS"):
        auth.load_token_keys(tmp_path, environ={}, require=True)
    assert not (tmp_path / auth.DEV_PRIVATE_KEY_FILE).exists()
    # Configured keys are fine; without the switch the development pair is still made.
    pem = auth.public_key_pem(auth.generate_key_pair()).decode()
    keys = auth.load_token_keys(tmp_path, environ={auth.ENV_PUBLIC_KEY: pem}, require=True)
    assert keys.source == "configured" and keys.signing_key is None
    assert auth.load_token_keys(tmp_path, environ={}).source.startswith("dev:")


def test_key_config_error_exits_2_with_the_reason() -> None:
    err = auth.KeyConfigError("wordarena-match: no keys")
    assert isinstance(err, SystemExit) and err.code == 2 and str(err) == "wordarena-match: no keys"
