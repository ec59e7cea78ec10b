"""Secrets as files (docs/operations.md, "Security model"): ``--service-token-file`` gives the
lobby its shared service secret without putting it on the command line, and
``--database-password-file`` puts the database password into a URL that does not hold it. The
secret read from the file is the one the lobby then accepts over gRPC."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from sqlalchemy.engine import make_url

from wordarena.services.lobby.main import build_lobby, parse
from wordarena.v1 import control_pb2, control_pb2_grpc


async def test_the_service_secret_comes_from_its_file(tmp_path: Path) -> None:
    secret = tmp_path / "service-token"
    secret.write_text("s3cret-from-a-file\n")
    settings = parse(
        ["--listen", "127.0.0.1:0", "--data-dir", str(tmp_path), "--service-token-file", str(secret)]
    )
    assert settings.service_token == "s3cret-from-a-file"
    server, lobby, db = await build_lobby(settings)
    await lobby.start()
    port = await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as ch:
            registry = control_pb2_grpc.MatchRegistryServiceStub(ch)
            req = control_pb2.RegisterMatchServerRequest(
                server_id="ms-file", address="127.0.0.1:1", load=control_pb2.ServerLoad(capacity=1)
            )
            ok = await registry.RegisterMatchServer(
                req, metadata=(("authorization", "Bearer s3cret-from-a-file"),)
            )
            assert ok is not None
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                await registry.RegisterMatchServer(
                    req, metadata=(("authorization", "Bearer s3cret-from-a-fil"),)
                )
            assert ei.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        await lobby.stop()
        await server.stop(0.5)
        db.close()


def test_the_database_password_comes_from_its_file(tmp_path: Path) -> None:
    pw = tmp_path / "db-password"
    pw.write_text("p@ss:w/rd\n")
    settings = parse(
        [
            "--database-url",
            "postgresql+psycopg://wordarena@db:5432/wordarena",
            "--database-password-file",
            str(pw),
        ]
    )
    url = make_url(settings.database_url)
    assert (url.username, url.password, url.host, url.database) == (
        "wordarena",
        "p@ss:w/rd",
        "db",
        "wordarena",
    )


def test_a_secret_file_that_cannot_be_read_stops_the_server_naming_the_flag(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="--service-token-file: cannot read"):
        parse(["--service-token-file", str(tmp_path / "missing")])
    both = tmp_path / "t"
    both.write_text("x")
    with pytest.raises(SystemExit, match="give one of them"):
        parse(["--service-token", "y", "--service-token-file", str(both)])
