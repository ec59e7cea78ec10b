#!/usr/bin/env python3
"""Health check of a wordarena server in its container (the image's HEALTHCHECK).

    wordarena-healthcheck [HOST:PORT]

Asks the standard gRPC health service (``grpc.health.v1.Health/Check``, overall service ``""``),
as Kubernetes' ``grpc`` probes do, and exits 0 when the answer is SERVING, 1 otherwise (NOT_SERVING:
a draining server, or a match server still taking over its matches; no answer within 3 s). The
address defaults to ``WORDARENA_LISTEN``, the one the server in the same container listens on; a
wildcard host (``0.0.0.0``, ``[::]`` or none) is asked on loopback. Needs ``wordarena[server]``
(grpcio-health-checking).
"""

from __future__ import annotations

import os
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

DEFAULT_LISTEN = "127.0.0.1:50051"  # the servers' own default of --listen / WORDARENA_LISTEN
WILDCARDS = ("", "0.0.0.0", "[::]", "::")
TIMEOUT_S = 3.0


def target(listen: str) -> str:
    """The address to ask for a server listening on ``listen``."""
    host, _, port = listen.rpartition(":")
    if not port.isdigit() or port == "0":
        raise ValueError(f"cannot tell the server's port from {listen!r}")
    return f"{'127.0.0.1' if host in WILDCARDS else host}:{port}"


def check(address: str) -> str:
    """The overall status the server at ``address`` reports (``SERVING``, ``NOT_SERVING`` …)."""
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=TIMEOUT_S)
    return health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)


def main(argv: list[str]) -> int:
    try:
        address = target(argv[0] if argv else os.environ.get("WORDARENA_LISTEN") or DEFAULT_LISTEN)
        status = check(address)
    except ValueError as exc:
        print(f"wordarena-healthcheck: {exc}", file=sys.stderr)
        return 1
    except grpc.RpcError as exc:
        print(f"wordarena-healthcheck: {exc.code().name}: {exc.details()}", file=sys.stderr)
        return 1
    print(f"{address} {status}")
    return 0 if status == "SERVING" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
