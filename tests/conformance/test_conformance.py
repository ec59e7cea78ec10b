"""The contract's promises are the test list: every RPC of every service in
protos/wordarena/v1 has its promises (status codes, details, idempotency, what is shown to whom)
in ``PROMISES`` (``match_promises``, ``lobby_promises``, ``control_promises``), each checked
over real gRPC against a real lobby and match server. An RPC added without promises fails
``test_every_rpc_of_the_contract_has_promises``."""

from __future__ import annotations

import control_promises  # noqa: F401  (registers its promises)
import lobby_promises  # noqa: F401
import match_promises  # noqa: F401
import match_refusals  # noqa: F401
import pytest
from world import PROMISES, World

from wordarena.v1 import control_pb2, lobby_pb2, match_pb2

CASES = [(rpc, text) for rpc, checks in sorted(PROMISES.items()) for text in checks]


def contract_rpcs() -> set[str]:
    """"Service.Rpc" for every RPC the .proto files declare."""
    return {f"{svc.name}.{method.name}" for mod in (lobby_pb2, match_pb2, control_pb2)
            for svc in mod.DESCRIPTOR.services_by_name.values() for method in svc.methods}


def test_every_rpc_of_the_contract_has_promises() -> None:
    missing = contract_rpcs() - PROMISES.keys()
    assert not missing, f"RPCs without conformance promises: {sorted(missing)}"
    unknown = PROMISES.keys() - contract_rpcs()
    assert not unknown, f"promises for RPCs the contract does not declare: {sorted(unknown)}"


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(("rpc", "text"), CASES, ids=[f"{rpc}: {text[:60]}" for rpc, text in CASES])
async def test_the_contract_keeps_its_promise(world: World, rpc: str, text: str) -> None:
    await PROMISES[rpc][text](world)
