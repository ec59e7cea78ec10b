"""Bearer tokens: Ed25519-signed JWTs issued by the lobby, verified by every server.

Tokens
------
A token is a compact JWT (RFC 7519) signed with EdDSA over Ed25519 (RFC 8037). Its header carries
``kid``, the id of the signing key; its claims are:

``sub``   the player id (or, for service tokens, the service's id, e.g. ``lobby`` / a server id),
``name``  the display name,
``kind``  ``"player"`` or ``"service"`` (service tokens authenticate lobby <-> match-server calls),
``iss``   ``"wordarena"``, ``aud`` ``"wordarena"``,
``iat`` / ``nbf`` / ``exp``  seconds since the epoch, ``jti`` a random token id,
``guest`` ``true`` in a guest's token (absent otherwise): the lobby refuses a guest token of a
          player who has since claimed the account.

Only the lobby holds the private key. Match servers hold the public key(s) and verify tokens
without calling the lobby.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Literal

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ISSUER = "wordarena"
AUDIENCE = "wordarena"
ALGORITHM = "EdDSA"
#: Clock skew tolerated between servers when checking ``exp`` / ``nbf``, in seconds.
DEFAULT_LEEWAY_S = 30.0
MAX_TOKEN_BYTES = 4096

TokenKind = Literal["player", "service"]
_KINDS: frozenset[str] = frozenset({"player", "service"})


class TokenError(Exception):
    """A token was refused. ``reason`` is a short machine-readable code; ``str()`` is for people."""

    reason = "TOKEN_INVALID"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TokenExpiredError(TokenError):
    """The token's signature is good but it has expired (or is not yet valid)."""

    reason = "TOKEN_EXPIRED"


class TokenInvalidError(TokenError):
    """The token is malformed, forged, signed by an unknown key, or has bad claims."""

    reason = "TOKEN_INVALID"


@dataclass(frozen=True, slots=True)
class Claims:
    """The verified content of a token."""

    player_id: str
    display_name: str
    kind: TokenKind
    issued_at: float
    expires_at: float
    token_id: str
    key_id: str
    #: A guest's token (claim ``guest``): the lobby refuses it once the guest has claimed an
    #: account (``Accounts.authorize``).
    guest: bool = False

    @property
    def is_service(self) -> bool:
        """True for service tokens (lobby <-> match server)."""
        return self.kind == "service"


def key_id(key: Ed25519PublicKey | Ed25519PrivateKey) -> str:
    """The key id (``kid``) of a key: 16 hex digits of SHA-256 over the raw public key."""
    pub = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    raw = pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


@dataclass(frozen=True)
class KeyRing:
    """Verifying keys by key id. Several keys verify at once during a rotation."""

    keys: Mapping[str, Ed25519PublicKey] = field(default_factory=dict)

    @classmethod
    def of(cls, keys: Iterable[Ed25519PublicKey | Ed25519PrivateKey]) -> KeyRing:
        """A key ring holding the public halves of ``keys``."""
        out: dict[str, Ed25519PublicKey] = {}
        for k in keys:
            pub = k.public_key() if isinstance(k, Ed25519PrivateKey) else k
            out[key_id(pub)] = pub
        return cls(out)

    def get(self, kid: str) -> Ed25519PublicKey | None:
        """The key with id ``kid``, if configured."""
        return self.keys.get(kid)

    def __len__(self) -> int:
        return len(self.keys)

    def __iter__(self) -> Iterator[Ed25519PublicKey]:
        return iter(self.keys.values())


def issue_token(
    private_key: Ed25519PrivateKey,
    player_id: str,
    display_name: str,
    ttl: timedelta | float,
    kind: TokenKind = "player",
    *,
    now: float | None = None,
    guest: bool = False,
) -> str:
    """Signs a token for ``player_id`` valid for ``ttl`` (a timedelta or seconds); ``guest``
    marks a guest's token (claim ``guest: true``)."""
    if kind not in _KINDS:
        raise ValueError(f"kind must be 'player' or 'service', not {kind!r}")
    if not player_id:
        raise ValueError("player_id is required")
    seconds = ttl.total_seconds() if isinstance(ttl, timedelta) else float(ttl)
    if seconds <= 0:
        raise ValueError("ttl must be positive")
    issued = time.time() if now is None else now
    payload = {
        "sub": player_id,
        "name": display_name,
        "kind": kind,
        "iss": ISSUER,
        "aud": AUDIENCE,
        "iat": int(issued),
        "nbf": int(issued),
        "exp": int(issued + seconds),
        "jti": base64.urlsafe_b64encode(secrets.token_bytes(12)).decode().rstrip("="),
    }
    if guest:
        payload["guest"] = True
    return jwt.encode(payload, private_key, algorithm=ALGORITHM, headers={"kid": key_id(private_key)})


def _as_keyring(
    keys: KeyRing | Ed25519PublicKey | Ed25519PrivateKey | Sequence[Ed25519PublicKey | Ed25519PrivateKey],
) -> KeyRing:
    if isinstance(keys, KeyRing):
        return keys
    if isinstance(keys, (Ed25519PublicKey, Ed25519PrivateKey)):
        return KeyRing.of([keys])
    return KeyRing.of(keys)


def verify_token(
    public_key: KeyRing | Ed25519PublicKey | Sequence[Ed25519PublicKey],
    token: str,
    *,
    kind: TokenKind | None = None,
    now: float | None = None,
    leeway: float = DEFAULT_LEEWAY_S,
) -> Claims:
    """Verifies ``token`` against one key, several keys, or a :class:`KeyRing`.

    The key is chosen by the token's ``kid``. With ``kind``, the token must be of that kind.
    Raises :class:`TokenExpiredError` for expired (or not yet valid) tokens and
    :class:`TokenInvalidError` for anything else wrong; never any other exception.
    """
    ring = _as_keyring(public_key)
    if not isinstance(token, str) or not token:
        raise TokenInvalidError("missing token")
    if len(token) > MAX_TOKEN_BYTES:
        raise TokenInvalidError("token too long")
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError as exc:
        raise TokenInvalidError(f"malformed token: {exc}") from exc
    if header.get("alg") != ALGORITHM:
        raise TokenInvalidError(f"unsupported token algorithm {header.get('alg')!r}")
    kid = header.get("kid")
    if not isinstance(kid, str):
        raise TokenInvalidError("token has no key id")
    key = ring.get(kid)
    if key is None:
        raise TokenInvalidError(f"token signed by unknown key {kid!r}")
    options = {"require": ["exp", "iat", "sub", "nbf"], "verify_exp": now is None, "verify_nbf": now is None}
    try:
        payload = jwt.decode(
            token,
            key,
            algorithms=[ALGORITHM],
            audience=AUDIENCE,
            issuer=ISSUER,
            leeway=leeway,
            options=options,  # type: ignore[arg-type]
        )
    except (jwt.ExpiredSignatureError, jwt.ImmatureSignatureError) as exc:
        raise TokenExpiredError(f"token expired or not yet valid: {exc}") from exc
    except jwt.PyJWTError as exc:
        raise TokenInvalidError(f"invalid token: {exc}") from exc
    exp = payload.get("exp")
    iat = payload.get("iat")
    if now is not None:
        if isinstance(exp, (int, float)) and now > exp + leeway:
            raise TokenExpiredError("token expired")
        nbf = payload.get("nbf", iat)
        if isinstance(nbf, (int, float)) and now < nbf - leeway:
            raise TokenExpiredError("token not yet valid")
    token_kind = payload.get("kind")
    if token_kind not in _KINDS:
        raise TokenInvalidError("token has no valid kind")
    if kind is not None and token_kind != kind:
        raise TokenInvalidError(f"expected a {kind} token, got a {token_kind} token")
    sub = payload.get("sub")
    name = payload.get("name", "")
    if not isinstance(sub, str) or not sub or not isinstance(name, str):
        raise TokenInvalidError("token has bad subject or name")
    return Claims(
        player_id=sub,
        display_name=name,
        kind=token_kind,
        issued_at=float(iat),  # type: ignore[arg-type]
        expires_at=float(exp),  # type: ignore[arg-type]
        token_id=str(payload.get("jti", "")),
        key_id=kid,
        guest=payload.get("guest") is True,
    )
