"""``KeyedLocks``: one lock a key while it is held or awaited, nothing kept after."""

from __future__ import annotations

import asyncio

from wordarena.services.common.tasks import KeyedLocks


async def test_holders_of_one_key_take_turns_and_the_key_goes_with_the_last() -> None:
    locks = KeyedLocks()
    inside: list[str] = []
    most = 0

    async def hold(key: str) -> None:
        nonlocal most
        async with locks.hold(key):
            inside.append(key)
            most = max(most, inside.count("a"))
            await asyncio.sleep(0.01)
            inside.remove(key)

    await asyncio.gather(hold("a"), hold("a"), hold("a"), hold("b"))
    assert most == 1  # never two holders of "a" at once
    assert len(locks) == 0


async def test_a_holder_that_fails_leaves_nothing_behind() -> None:
    locks = KeyedLocks()
    try:
        async with locks.hold("x"):
            assert len(locks) == 1
            raise LookupError("no such match")
    except LookupError:
        pass
    assert len(locks) == 0
