"""Migration l0005: accounts made before names were keyed by Unicode TR39 skeletons still sign
in by name, and their names still collide with look-alikes, once the lobby has upgraded its
database (their stored keys were made by the old hand-made table: "Marjorie" was "marjorie",
TR39 makes it "rnarjorie")."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
import pytest
from lobby_harness import start_lobby, stop_lobby
from sqlmodel import Session

from wordarena.services.common.db import Database, run_migrations
from wordarena.services.lobby import store
from wordarena.services.lobby.models import PlayerRow
from wordarena.services.lobby.passwords import Passwords
from wordarena.v1 import lobby_pb2

# the store is what this proves: on SQLite and PostgreSQL (tests/conftest.py)
pytestmark = pytest.mark.database


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
async def test_an_account_keyed_before_tr39_signs_in_after_the_upgrade(
    database_url: str, tmp_path: Path
) -> None:
    db = Database(database_url)
    run_migrations(db.engine, store.MIGRATIONS, store.VERSION_TABLE, revision="l0004")
    now = time.time()
    with Session(db.engine) as s:
        s.add(
            PlayerRow(
                id="p_old",
                display_name="Marjorie",
                name_key="marjorie",
                guest=False,
                password_hash=Passwords(1, 1024).hash("correct-horse"),
                created_at=now,
                last_seen=now,
            )
        )
        s.commit()
    db.close()
    env = await start_lobby(database_url, tmp_path)  # migrates to head
    try:
        ok = await env.stub.SignIn(lobby_pb2.SignInRequest(name="Marjorie", password="correct-horse"))
        assert ok.player.player_id == "p_old"
        with pytest.raises(grpc.aio.AioRpcError) as ei:
            await env.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name="\u13b7arjorie"))
        assert ei.value.code() == grpc.StatusCode.ALREADY_EXISTS
    finally:
        await stop_lobby(env)
