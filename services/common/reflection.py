"""Server reflection in both protocol versions: ``grpc.reflection.v1`` (what current grpcurl,
Postman and grpcui ask first) and ``grpc.reflection.v1alpha`` (older tools).

grpcio-reflection ships only v1alpha. The two versions' messages are identical field for field
(v1 is v1alpha renamed), so the library's servicer answers both, registered under both service
names with the same (de)serialisers; v1's file descriptor (v1alpha's with the package renamed) is
added to the descriptor pool so that reflection can describe itself in both versions.
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2

__all__ = ["SERVICE_NAMES", "V1ALPHA_SERVICE_NAME", "V1_SERVICE_NAME", "enable_reflection"]

V1ALPHA_SERVICE_NAME = reflection.SERVICE_NAME
V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"
SERVICE_NAMES = (V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME)
_V1ALPHA, _V1 = "grpc.reflection.v1alpha", "grpc.reflection.v1"


def _add_v1_descriptor(pool: descriptor_pool.DescriptorPool) -> None:
    """Adds ``grpc/reflection/v1/reflection.proto`` (built from v1alpha's) to ``pool``, once."""
    name = "grpc/reflection/v1/reflection.proto"
    try:
        pool.FindFileByName(name)
        return
    except KeyError:
        pass
    fdp = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(fdp)
    fdp.name, fdp.package = name, _V1
    fdp.ClearField("options")
    old, new = f".{_V1ALPHA}.", f".{_V1}."
    for msg in fdp.message_type:
        for f in msg.field:
            if f.HasField("type_name"):
                f.type_name = f.type_name.replace(old, new)
    for svc in fdp.service:
        for m in svc.method:
            m.input_type = m.input_type.replace(old, new)
            m.output_type = m.output_type.replace(old, new)
    pool.AddSerializedFile(fdp.SerializeToString())


def enable_reflection(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Serves reflection (v1 and v1alpha) on ``server`` for ``service_names`` and itself."""
    pool = descriptor_pool.Default()
    _add_v1_descriptor(pool)
    servicer = reflection.aio.ReflectionServicer([*service_names, *SERVICE_NAMES], pool=pool)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    methods = {"ServerReflectionInfo": handler}
    handlers = [grpc.method_handlers_generic_handler(svc, methods) for svc in SERVICE_NAMES]
    server.add_generic_rpc_handlers(handlers)
