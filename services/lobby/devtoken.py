"""``wordarena-lobby dev-token``: issue a bearer token from the lobby's signing key, for testing a
match server without a lobby.

It lives with the lobby because signing is the lobby's job: the client CLI holds no private key
and imports no server module. The key is the one the servers use
(``services.common.auth.load_token_keys``): ``--private-key``, else ``WORDARENA_TOKEN_PRIVATE_KEY``,
else the development key pair in the data directory (``--data-dir`` / ``WORDARENA_DATA_DIR``,
created there when absent — a match server started with the same data directory then verifies
the token). ``--service`` issues a service token instead, accepted by ``MatchControlService``
(e.g. to create matches with ``grpcurl``).

    export TOKEN=$(wordarena-lobby dev-token alice)
    grpcurl -plaintext -H "authorization: Bearer $TOKEN" ... wordarena.v1.MatchService/GetMatch
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Sequence

from wordarena.services.common import auth
from wordarena.services.common.config import default_data_dir

__all__ = ["build_parser", "main"]

PLAYER_ID = re.compile(r"^[A-Za-z0-9_:.-]{1,64}$")


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``wordarena-lobby dev-token``."""
    p = argparse.ArgumentParser(
        prog="wordarena-lobby dev-token",
        description="Prints a signed bearer token for PLAYER_ID. Use it as 'authorization: Bearer "
        "<token>' against a match server that verifies with the same key.",
        epilog="Exit codes: 0 ok, 2 usage error or no signing key.")
    p.add_argument("player_id", metavar="PLAYER_ID", help="the player id the token is for (1..64 of "
                   "[A-Za-z0-9_:.-]); for --service, the service's name")
    p.add_argument("--name", default="", help="display name in the token (default: the player id)")
    p.add_argument("--ttl", type=float, default=24 * 3600.0, help="lifetime in seconds (default 1 day)")
    p.add_argument("--service", action="store_true", help="a service token (MatchControl) instead")
    p.add_argument("--private-key", default=None,
                   help="Ed25519 private key, PEM text or path (env WORDARENA_TOKEN_PRIVATE_KEY)")
    p.add_argument("--data-dir", default=os.environ.get("WORDARENA_DATA_DIR"),
                   help="where the development key pair lives (env WORDARENA_DATA_DIR; "
                   "default ~/.local/share/wordarena)")
    p.add_argument("--json", action="store_true", help="print {token, player_id, expires} as JSON")
    return p


def main(argv: Sequence[str]) -> int:
    """Prints the token; returns the exit code (0 ok, 2 usage error or no signing key)."""
    args = build_parser().parse_args(argv)
    if not PLAYER_ID.match(args.player_id):
        print("dev-token: PLAYER_ID must be 1..64 characters of [A-Za-z0-9_:.-]", file=sys.stderr)
        return 2
    if not 0 < args.ttl <= 366 * 86400:
        print("dev-token: --ttl must be 1 second .. 366 days", file=sys.stderr)
        return 2
    kind: auth.TokenKind = "service" if args.service else "player"
    try:
        keys = auth.load_token_keys(args.data_dir or default_data_dir(), private_key=args.private_key)
        token = keys.issue(args.player_id, args.name or args.player_id, args.ttl, kind=kind)
    except (ValueError, OSError) as exc:
        print(f"dev-token: no signing key: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"token": token, "player_id": args.player_id, "kind": kind,
                          "expires": int(time.time() + args.ttl)}))
    else:
        print(token)
    return 0
