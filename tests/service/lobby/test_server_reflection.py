"""Server reflection as tools (grpcurl, Postman, grpcui) use it: both protocol versions,
``grpc.reflection.v1`` and ``grpc.reflection.v1alpha``, on both servers, spoken by a raw client
(the two versions' messages are the same on the wire; only the service name differs)."""

from __future__ import annotations

import uuid
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2 as r
from lobby_harness import LobbyEnv

from wordarena.services.common.config import Settings
from wordarena.services.match.main import start

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

VERSIONS = ("grpc.reflection.v1", "grpc.reflection.v1alpha")


async def _ask(channel: grpc.aio.Channel, version: str, *requests: r.ServerReflectionRequest) -> list:
    call = channel.stream_stream(
        f"/{version}.ServerReflection/ServerReflectionInfo",
        request_serializer=r.ServerReflectionRequest.SerializeToString,
        response_deserializer=r.ServerReflectionResponse.FromString,
    )
    return [resp async for resp in call(iter(requests))]


async def _check(channel: grpc.aio.Channel, service: str, proto_file: str) -> None:
    for version in VERSIONS:
        listed, found, own = await _ask(
            channel,
            version,
            r.ServerReflectionRequest(list_services=""),
            r.ServerReflectionRequest(file_containing_symbol=service),
            r.ServerReflectionRequest(file_containing_symbol=f"{version}.ServerReflection"),
        )
        names = {s.name for s in listed.list_services_response.service}
        assert {service, "grpc.health.v1.Health", *(f"{v}.ServerReflection" for v in VERSIONS)} <= names
        files = [descriptor_pb2.FileDescriptorProto.FromString(b)
                 for b in found.file_descriptor_response.file_descriptor_proto]
        assert proto_file in {f.name for f in files}, version
        assert not own.HasField("error_response"), (version, own.error_response)
        own_files = [descriptor_pb2.FileDescriptorProto.FromString(b)
                     for b in own.file_descriptor_response.file_descriptor_proto]
        assert any(f.package == version for f in own_files), version


async def test_the_lobby_answers_reflection_v1_and_v1alpha(env: LobbyEnv) -> None:
    await _check(env.channel, "wordarena.v1.LobbyService", "wordarena/v1/lobby.proto")


async def test_a_match_server_answers_reflection_v1_and_v1alpha(database_url: str, tmp_path: Path) -> None:
    settings = Settings(service="match", listen="127.0.0.1:0", data_dir=tmp_path,
                        database_url=database_url, service_token=uuid.uuid4().hex, server_id="reflect-1",
                        advertise_address="127.0.0.1:0", shutdown_grace=0.5)
    srv = await start(settings)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
            await _check(channel, "wordarena.v1.MatchService", "wordarena/v1/match.proto")
    finally:
        await srv.stop(0.5)
