"""Tokens: issue, verify, forged / expired / wrong-kind refusal, key loading and rotation."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import jwt
import pytest

from wordarena.services.common import auth


def test_round_trip_player_token() -> None:
    key = auth.generate_key_pair()
    token = auth.issue_token(key, "p-1", "Alice", timedelta(minutes=5))
    claims = auth.verify_token(key.public_key(), token)
    assert claims.player_id == "p-1"
    assert claims.display_name == "Alice"
    assert claims.kind == "player"
    assert not claims.is_service
    assert claims.key_id == auth.key_id(key)
    assert claims.expires_at - claims.issued_at == 300


def test_service_token_kind_enforced() -> None:
    key = auth.generate_key_pair()
    token = auth.issue_token(key, "lobby", "lobby", 60, kind="service")
    assert auth.verify_token(key.public_key(), token, kind="service").is_service
    with pytest.raises(auth.TokenInvalidError, match="expected a player token"):
        auth.verify_token(key.public_key(), token, kind="player")


def test_forged_token_refused() -> None:
    key, other = auth.generate_key_pair(), auth.generate_key_pair()
    token = auth.issue_token(other, "p-1", "Mallory", 60)
    with pytest.raises(auth.TokenInvalidError, match="unknown key"):
        auth.verify_token(key.public_key(), token)
    # Same kid header, but signed by another key: the signature check fails.
    forged = jwt.encode(
        {
            "sub": "p-1",
            "name": "x",
            "kind": "player",
            "iss": auth.ISSUER,
            "aud": auth.AUDIENCE,
            "iat": int(time.time()),
            "nbf": int(time.time()),
            "exp": int(time.time()) + 60,
        },
        other,
        algorithm="EdDSA",
        headers={"kid": auth.key_id(key)},
    )
    with pytest.raises(auth.TokenInvalidError):
        auth.verify_token(key.public_key(), forged)
    # Tampered payload.
    good = auth.issue_token(key, "p-1", "Alice", 60)
    head, body, sig = good.split(".")
    with pytest.raises(auth.TokenInvalidError):
        auth.verify_token(key.public_key(), f"{head}.{body[:-2]}AA.{sig}")


@pytest.mark.parametrize("garbage", ["", "abc", "a.b.c", "x" * 5000, "Bearer x"])
def test_garbage_refused(garbage: str) -> None:
    key = auth.generate_key_pair()
    with pytest.raises(auth.TokenInvalidError):
        auth.verify_token(key.public_key(), garbage)


def test_hs256_and_none_algorithms_refused() -> None:
    key = auth.generate_key_pair()
    claims = {
        "sub": "p",
        "kind": "player",
        "iss": auth.ISSUER,
        "aud": auth.AUDIENCE,
        "iat": 1,
        "nbf": 1,
        "exp": 2**40,
    }
    hs = jwt.encode(claims, "s" * 40, algorithm="HS256", headers={"kid": auth.key_id(key)})
    with pytest.raises(auth.TokenInvalidError, match="algorithm"):
        auth.verify_token(key.public_key(), hs)
    none = jwt.encode(claims, None, algorithm="none", headers={"kid": auth.key_id(key)})
    with pytest.raises(auth.TokenInvalidError):
        auth.verify_token(key.public_key(), none)


def test_expired_token() -> None:
    key = auth.generate_key_pair()
    token = auth.issue_token(key, "p-1", "A", 10, now=time.time() - 1000)
    with pytest.raises(auth.TokenExpiredError):
        auth.verify_token(key.public_key(), token)
    fresh = auth.issue_token(key, "p-1", "A", 10, now=1000.0)
    assert auth.verify_token(key.public_key(), fresh, now=1005.0).player_id == "p-1"
    with pytest.raises(auth.TokenExpiredError):
        auth.verify_token(key.public_key(), fresh, now=1000.0 + 10 + auth.DEFAULT_LEEWAY_S + 1)


def test_rotation_keyring_verifies_old_and_new() -> None:
    old, new = auth.generate_key_pair(), auth.generate_key_pair()
    ring = auth.KeyRing.of([old.public_key(), new.public_key()])
    assert len(ring) == 2
    for k in (old, new):
        assert auth.verify_token(ring, auth.issue_token(k, "p", "P", 60)).key_id == auth.key_id(k)
    # after removal of the old key
    with pytest.raises(auth.TokenInvalidError):
        auth.verify_token(auth.KeyRing.of([new]), auth.issue_token(old, "p", "P", 60))


def test_load_from_env_inline_and_paths(tmp_path: Path) -> None:
    old, new = auth.generate_key_pair(), auth.generate_key_pair()
    (tmp_path / "old.pub.pem").write_bytes(auth.public_key_pem(old))
    (tmp_path / "new.pem").write_bytes(auth.private_key_pem(new))
    env = {
        auth.ENV_PRIVATE_KEY: str(tmp_path / "new.pem"),
        auth.ENV_PUBLIC_KEY: str(tmp_path / "old.pub.pem"),
    }
    keys = auth.load_token_keys(environ=env)
    assert keys.signing_key_id == auth.key_id(new)
    assert keys.verify(auth.issue_token(old, "p", "P", 60)).player_id == "p"
    assert keys.verify(keys.issue("q", "Q", 60)).player_id == "q"
    # verify-only (a match server): inline concatenated PEMs
    inline = (auth.public_key_pem(old) + auth.public_key_pem(new)).decode()
    verify_only = auth.load_token_keys(environ={auth.ENV_PUBLIC_KEY: inline})
    assert verify_only.signing_key is None
    assert len(verify_only.verifying) == 2
    with pytest.raises(ValueError, match="no token signing key"):
        verify_only.issue("p", "P", 60)


def test_dev_keys_generated_once(tmp_path: Path) -> None:
    a = auth.load_token_keys(tmp_path, environ={})
    b = auth.load_token_keys(tmp_path, environ={})
    assert a.signing_key_id == b.signing_key_id
    priv = tmp_path / auth.DEV_PRIVATE_KEY_FILE
    assert (priv.stat().st_mode & 0o777) == 0o600
    assert (tmp_path / auth.DEV_PUBLIC_KEY_FILE).exists()
    # a match server pointed at the public file verifies lobby tokens
    m = auth.load_token_keys(environ={auth.ENV_PUBLIC_KEY: str(tmp_path / auth.DEV_PUBLIC_KEY_FILE)})
    assert m.verify(a.issue("p", "P", 60)).player_id == "p"


def test_bad_key_material(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        auth.load_private_key("-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n")
    with pytest.raises(ValueError, match="cannot read"):
        auth.load_public_keys(str(tmp_path / "missing.pem"))
    with pytest.raises(ValueError):
        auth.load_token_keys(None, environ={})


def test_bearer_metadata() -> None:
    assert auth.bearer_token_from_metadata([("authorization", "Bearer abc")]) == "abc"
    assert auth.bearer_token_from_metadata([("Authorization", "bearer  abc ")]) == "abc"
    assert auth.bearer_token_from_metadata([("authorization", "Basic abc")]) is None
    assert auth.bearer_token_from_metadata([("x", "y")]) is None
    assert auth.bearer_token_from_metadata(None) is None


def test_issue_rejects_bad_arguments() -> None:
    key = auth.generate_key_pair()
    with pytest.raises(ValueError):
        auth.issue_token(key, "", "x", 60)
    with pytest.raises(ValueError):
        auth.issue_token(key, "p", "x", 0)
    with pytest.raises(ValueError):
        auth.issue_token(key, "p", "x", 60, kind="admin")  # type: ignore[arg-type]
