"""Token keys: the lobby's Ed25519 signing key, every server's verifying keys, and the bearer
token of a call. The tokens themselves (claims, issue, verify): :mod:`wordarena.services.common.tokens`,
whose names are re-exported here.

Key configuration
-----------------
``WORDARENA_TOKEN_PRIVATE_KEY``  the signing key: a PKCS#8 PEM (``-----BEGIN PRIVATE KEY-----``),
    given inline or as the path of a file holding it. Only the lobby needs it.
``WORDARENA_TOKEN_PUBLIC_KEY``   the verifying key(s): one or more SubjectPublicKeyInfo PEMs
    (``-----BEGIN PUBLIC KEY-----``), inline (concatenated) or as file paths separated by ``,``
    or the platform's path separator. Every server needs them. When the private key is configured,
    its own public key is always accepted as well.

When neither is configured (development, the all-in-one launcher ``wordarena serve``),
:func:`load_token_keys` generates a key pair once into the data directory (``token-ed25519.pem`` and
``token-ed25519.pub.pem``, private file mode 0600) and reuses it, so every process started with the
same data directory agrees on the keys. In production set ``--require-keys`` /
``WORDARENA_REQUIRE_KEYS=1``: a server without configured keys then refuses to start instead of
using a development key pair that no other server shares.

Key ids
-------
The ``kid`` of a key is derived from the key itself: the first 16 hex digits of the SHA-256 of its
raw 32-byte public key (:func:`key_id`). No registry of ids is needed; the verifier computes the id
of each configured public key and picks the one named by the token's header.

Key rotation
------------
1. Generate a new key pair (``openssl genpkey -algorithm ed25519 -out new.pem`` and
   ``openssl pkey -in new.pem -pubout -out new.pub.pem``, or :func:`generate_key_pair`).
2. Add ``new.pub.pem`` to ``WORDARENA_TOKEN_PUBLIC_KEY`` of every match server and lobby
   (keeping the old public key) and restart them: both keys now verify.
3. Switch the lobby's ``WORDARENA_TOKEN_PRIVATE_KEY`` to ``new.pem`` and restart the lobby(s):
   new tokens are signed with the new key, old tokens still verify.
4. After the longest token lifetime (the lobby's token TTL) has passed, remove the old public key
   everywhere. Tokens signed with it are then refused with UNAUTHENTICATED.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from wordarena.services.common.tokens import (
    AUDIENCE,
    DEFAULT_LEEWAY_S,
    ISSUER,
    Claims,
    KeyRing,
    TokenError,
    TokenExpiredError,
    TokenInvalidError,
    TokenKind,
    issue_token,
    key_id,
    verify_token,
)

if TYPE_CHECKING:
    from wordarena.services.common.config import Settings

__all__ = [
    "AUDIENCE",
    "DEV_PRIVATE_KEY_FILE",
    "DEV_PUBLIC_KEY_FILE",
    "ENV_PRIVATE_KEY",
    "ENV_PUBLIC_KEY",
    "ISSUER",
    "Claims",
    "KeyConfigError",
    "KeyRing",
    "TokenError",
    "TokenExpiredError",
    "TokenInvalidError",
    "TokenKeys",
    "TokenKind",
    "bearer_token_from_metadata",
    "generate_key_pair",
    "issue_token",
    "key_id",
    "keys_from_settings",
    "load_private_key",
    "load_public_keys",
    "load_token_keys",
    "private_key_pem",
    "public_key_pem",
    "verify_token",
]

ENV_PRIVATE_KEY = "WORDARENA_TOKEN_PRIVATE_KEY"
ENV_PUBLIC_KEY = "WORDARENA_TOKEN_PUBLIC_KEY"
DEV_PRIVATE_KEY_FILE = "token-ed25519.pem"
DEV_PUBLIC_KEY_FILE = "token-ed25519.pub.pem"


class KeyConfigError(SystemExit):
    """A server's token keys are missing or unusable: it cannot start (exit status 2). The reason
    is logged by the server, so that only log lines reach stderr; ``str()`` gives it too."""

    def __init__(self, message: str) -> None:
        super().__init__(2)
        self.message = message

    def __str__(self) -> str:
        return self.message


# --------------------------------------------------------------------------------------------
# Keys


def generate_key_pair() -> Ed25519PrivateKey:
    """A fresh Ed25519 private key (its public key is ``.public_key()``)."""
    return Ed25519PrivateKey.generate()


def private_key_pem(key: Ed25519PrivateKey) -> bytes:
    """PKCS#8 PEM of a private key (unencrypted)."""
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def public_key_pem(key: Ed25519PublicKey | Ed25519PrivateKey) -> bytes:
    """SubjectPublicKeyInfo PEM of a public key."""
    pub = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return pub.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def _pem_text(spec: str | bytes) -> bytes:
    """Inline PEM text as bytes, or the contents of the file ``spec`` names."""
    data = spec.encode() if isinstance(spec, str) else spec
    if b"-----BEGIN" in data:
        return data
    path = Path(data.decode().strip()).expanduser()
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read key file {path}: {exc.strerror or exc}") from exc


def load_private_key(spec: str | bytes) -> Ed25519PrivateKey:
    """Loads an Ed25519 private key from PEM text or a PEM file path.

    Raises ValueError with a readable message if it is not an unencrypted Ed25519 PKCS#8 PEM.
    """
    data = _pem_text(spec)
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"not a readable unencrypted PEM private key: {exc}") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError(f"token signing key must be Ed25519, got {type(key).__name__}")
    return key


def _split_pems(data: bytes) -> list[bytes]:
    marker = b"-----BEGIN"
    parts = data.split(marker)
    return [marker + p for p in parts[1:] if p.strip()]


def load_public_keys(spec: str | bytes) -> list[Ed25519PublicKey]:
    """Loads one or more Ed25519 public keys.

    ``spec`` is concatenated PEM text, or file paths separated by ``,`` or ``os.pathsep`` (each
    file may itself hold several PEMs). Raises ValueError if nothing usable is found.
    """
    raw = spec.encode() if isinstance(spec, str) else spec
    chunks: list[bytes] = []
    if b"-----BEGIN" in raw:
        chunks.append(raw)
    else:
        text = raw.decode()
        for sep in {",", os.pathsep}:
            text = text.replace(sep, "\n")
        chunks.extend(_pem_text(p) for p in text.splitlines() if p.strip())
    keys: list[Ed25519PublicKey] = []
    for chunk in chunks:
        for pem in _split_pems(chunk):
            if b"PRIVATE KEY" in pem.split(b"\n", 1)[0]:
                keys.append(load_private_key(pem).public_key())
                continue
            try:
                key = serialization.load_pem_public_key(pem)
            except (ValueError, TypeError) as exc:
                raise ValueError(f"not a readable PEM public key: {exc}") from exc
            if not isinstance(key, Ed25519PublicKey):
                raise ValueError(f"token verifying key must be Ed25519, got {type(key).__name__}")
            keys.append(key)
    if not keys:
        raise ValueError("no public key found")
    return keys


#: Verified tokens remembered per ``TokenKeys`` (a server sees the same bearer token on every call).
VERIFY_CACHE_SIZE = 65536


@dataclass(frozen=True)
class TokenKeys:
    """A server's token keys: the signing key (lobby only) and the verifying key ring.

    ``verify`` remembers the claims of tokens it has verified (the keys of an instance never
    change), so a client's repeated calls cost a dictionary look-up and an expiry check instead
    of an Ed25519 verification."""

    signing_key: Ed25519PrivateKey | None
    verifying: KeyRing
    source: str = "configured"
    _verified: dict[tuple[str, str | None], Claims] = field(
        default_factory=dict, compare=False, repr=False)

    @property
    def signing_key_id(self) -> str | None:
        """The ``kid`` new tokens are signed with."""
        return key_id(self.signing_key) if self.signing_key is not None else None

    def issue(
        self,
        player_id: str,
        display_name: str,
        ttl: timedelta | float,
        kind: TokenKind = "player",
        *,
        guest: bool = False,
    ) -> str:
        """Issues a token with the signing key (ValueError if there is none)."""
        if self.signing_key is None:
            raise ValueError(f"no token signing key configured (set {ENV_PRIVATE_KEY})")
        return issue_token(self.signing_key, player_id, display_name, ttl, kind=kind, guest=guest)

    def verify(self, token: str, *, kind: TokenKind | None = None) -> Claims:
        """Verifies a token against the key ring (see :func:`verify_token`)."""
        key = (token, kind)
        claims = self._verified.get(key)
        if claims is not None:
            if time.time() <= claims.expires_at + DEFAULT_LEEWAY_S:
                return claims
            del self._verified[key]  # expired since: verify again, which says why
        claims = verify_token(self.verifying, token, kind=kind)
        if len(self._verified) >= VERIFY_CACHE_SIZE:
            self._verified.clear()
        self._verified[key] = claims
        return claims


def _write_dev_keys(directory: Path) -> Ed25519PrivateKey:
    directory.mkdir(parents=True, exist_ok=True)
    priv_path = directory / DEV_PRIVATE_KEY_FILE
    pub_path = directory / DEV_PUBLIC_KEY_FILE
    key = generate_key_pair()
    tmp = priv_path.with_suffix(f".tmp{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(private_key_pem(key))
    try:
        # Atomic "create if absent": if another process won the race, use its key.
        os.link(tmp, priv_path)
    except FileExistsError:
        os.unlink(tmp)
        return load_private_key(str(priv_path))
    os.unlink(tmp)
    pub_path.write_bytes(public_key_pem(key))
    return key


def keys_from_settings(settings: Settings) -> TokenKeys:
    """``load_token_keys`` with a service's settings (flags / ``WORDARENA_*``): the one way both
    servers find their keys."""
    return load_token_keys(
        settings.data_dir,
        private_key=settings.token_private_key or None,
        public_keys=settings.token_public_key or None,
        require=settings.require_keys,
    )


def load_token_keys(
    data_dir: str | os.PathLike[str] | None = None,
    *,
    private_key: str | bytes | None = None,
    public_keys: str | bytes | None = None,
    environ: Mapping[str, str] | None = None,
    generate: bool = True,
    require: bool = False,
) -> TokenKeys:
    """Loads the token keys from arguments, else the environment, else the data directory.

    Precedence for each key: the argument, then ``WORDARENA_TOKEN_PRIVATE_KEY`` /
    ``WORDARENA_TOKEN_PUBLIC_KEY``. If neither key is configured, the development key pair in
    ``data_dir`` is used, generated there first when absent and ``generate`` is true. Raises
    ValueError when no verifying key can be found, and, with ``require`` (the production switch
    ``--require-keys`` / ``WORDARENA_REQUIRE_KEYS``), when no key is configured at all (no
    development key pair is used or generated then).
    """
    env = os.environ if environ is None else environ
    priv_spec = private_key if private_key is not None else env.get(ENV_PRIVATE_KEY) or None
    pub_spec = public_keys if public_keys is not None else env.get(ENV_PUBLIC_KEY) or None
    signing: Ed25519PrivateKey | None = None
    verifying: list[Ed25519PublicKey] = []
    source = "configured"
    if priv_spec:
        signing = load_private_key(priv_spec)
        verifying.append(signing.public_key())
    if pub_spec:
        verifying.extend(load_public_keys(pub_spec))
    if signing is None and not verifying:
        if require:
            raise ValueError(
                f"no token keys configured and keys are required (--require-keys / WORDARENA_REQUIRE_KEYS): "
                f"set {ENV_PRIVATE_KEY} (the lobby's signing key) or {ENV_PUBLIC_KEY} (the lobby's public "
                "key, on match servers); see docs/operations.md, \"Token keys\"")
        if data_dir is None:
            raise ValueError(f"no token keys configured: set {ENV_PRIVATE_KEY} / {ENV_PUBLIC_KEY}")
        directory = Path(data_dir).expanduser()
        priv_path = directory / DEV_PRIVATE_KEY_FILE
        if priv_path.exists():
            signing = load_private_key(str(priv_path))
        elif generate:
            signing = _write_dev_keys(directory)
        else:
            raise ValueError(f"no token keys configured and none in {directory}")
        verifying.append(signing.public_key())
        source = f"dev:{priv_path}"
    return TokenKeys(signing, KeyRing.of(verifying), source)


def bearer_token_from_metadata(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The token of an ``authorization: Bearer <token>`` gRPC metadata entry, or None."""
    if not metadata:
        return None
    for k, v in metadata:
        if k.lower() != "authorization":
            continue
        value = v.decode(errors="replace") if isinstance(v, bytes) else v
        scheme, _, rest = value.strip().partition(" ")
        if scheme.lower() == "bearer" and rest.strip():
            return rest.strip()
        return None
    return None
