"""protos/README.md says which error details each RPC can attach and how clients in Go, Java,
Node and Python get the google/rpc protos that decode them: every RPC of the public services is
listed once, every detail type named is a real message, and every language is covered."""

from __future__ import annotations

import re
from pathlib import Path

from google.protobuf import symbol_database
from google.rpc import error_details_pb2  # noqa: F401  (registers google.rpc.* in the symbol database)

from wordarena.v1 import errors_pb2, lobby_pb2, match_pb2  # noqa: F401

README = Path(__file__).resolve().parents[3] / "protos" / "README.md"
ROW = re.compile(r"^\| `(?P<rpc>(?:LobbyService|MatchService)\.\w+)` \| (?P<details>.*) \|$", re.M)
TYPE = re.compile(r"`((?:wordarena\.v1|google\.rpc)\.\w+)`")


def documented_details() -> dict[str, set[str]]:
    """``{"LobbyService.SignIn": {"google.rpc.RetryInfo", ...}}`` as protos/README.md says."""
    text = README.read_text(encoding="utf-8")
    out: dict[str, set[str]] = {}
    for m in ROW.finditer(text):
        assert m["rpc"] not in out, f"{m['rpc']} listed twice"
        out[m["rpc"]] = set(TYPE.findall(m["details"]))
    return out


def test_every_public_rpc_is_listed_once_with_real_detail_types() -> None:
    listed = documented_details()
    expected = {f"{svc.name}.{m.name}" for mod in (lobby_pb2, match_pb2)
                for svc in mod.DESCRIPTOR.services_by_name.values() for m in svc.methods}
    assert set(listed) == expected
    db = symbol_database.Default()
    for t in set().union(*listed.values()):
        db.GetSymbol(t)  # raises KeyError for a made-up type
    used = set().union(*listed.values())
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| detail | when |") : text.index("Which details each RPC")]
    assert used <= set(TYPE.findall(table)), "every detail type used is explained"
    assert {"wordarena.v1.LobbyViolation", "google.rpc.BadRequest", "google.rpc.RetryInfo"} <= used


def test_every_client_language_is_told_where_the_google_rpc_protos_come_from() -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Getting the `google/rpc` protos") :]
    for needle in ("googleapis-common-protos", "grpcio-status",  # Python
                   "google.golang.org/genproto/googleapis/rpc",  # Go
                   "com.google.api.grpc:proto-google-common-protos",  # Java
                   "google-proto-files",  # Node
                   "grpc-status-details-bin", "buf.build/googleapis/googleapis"):
        assert needle in section, needle
