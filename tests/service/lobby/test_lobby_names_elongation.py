"""A kashida only stretches the join between two letters: an Arabic tatweel (U+0640) or an N'Ko
lajanyalan (U+07FA) added to a name in use does not make a new name (issue 38 item 12: "Name"
plus a tatweel was accepted as a new name) — over gRPC, as a client signs in or claims an
account; and an account whose name was keyed with its tatweel still signs in by name after the
lobby's upgrade."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
import pytest
from grpc_helpers import refused
from lobby_harness import LobbyEnv, start_lobby, stop_lobby
from sqlmodel import Session

from wordarena.services.common.db import Database, run_migrations
from wordarena.services.common.errors import detail
from wordarena.services.lobby import store
from wordarena.services.lobby.models import PlayerRow
from wordarena.services.lobby.passwords import Passwords
from wordarena.v1 import errors_pb2, lobby_pb2

TATWEEL, LAJANYALAN = "\u0640", "\u07fa"


async def _refused_as_taken(call: object) -> None:
    err = await refused(call)  # type: ignore[arg-type]
    assert err.code() == grpc.StatusCode.ALREADY_EXISTS, err.details()
    assert detail(err, errors_pb2.LobbyViolation).code == errors_pb2.LOBBY_CODE_NAME_TAKEN


def _guest(env: LobbyEnv, name: str) -> object:
    return env.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name=name))


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize(("taken", "stretched"), [
    ("Name", f"Name{TATWEEL}"),
    ("Name", f"Name{TATWEEL}{TATWEEL}{TATWEEL}"),
    ("\u0645\u062d\u0645\u062f", f"\u0645\u062d{TATWEEL}\u0645\u062f"),  # محمد, محـمد
    (f"\u0645\u062d{TATWEEL}\u0645\u062f", "\u0645\u062d\u0645\u062f"),  # the other way round
    ("\u07db\u07cc\u07e1\u07ca", f"\u07db\u07cc{LAJANYALAN}\u07e1\u07ca"),  # N'Ko
])
async def test_a_stretched_name_is_the_name_it_stretches(env: LobbyEnv, taken: str, stretched: str) -> None:
    await _guest(env, taken)
    await _refused_as_taken(_guest(env, stretched))


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_guest_cannot_claim_a_stretched_name_in_use(env: LobbyEnv) -> None:
    await _guest(env, "Name")
    other = await _guest(env, "Other")
    md = [("authorization", f"Bearer {other.token.token}")]
    await _refused_as_taken(env.stub.ClaimAccount(
        lobby_pb2.ClaimAccountRequest(name=f"Name{TATWEEL}", password="password1"), metadata=md))


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
async def test_an_account_keyed_with_its_tatweel_signs_in_after_the_upgrade(
    database_url: str, tmp_path: Path
) -> None:
    stored = f"\u0645\u062d{TATWEEL}\u0645\u062f"
    db = Database(database_url)
    run_migrations(db.engine, store.MIGRATIONS, store.VERSION_TABLE, revision="l0007")
    now = time.time()
    with Session(db.engine) as s:
        s.add(PlayerRow(id="p_old", display_name=stored, name_key=stored, guest=False,  # as keyed then
                        password_hash=Passwords(1, 1024).hash("correct-horse"), created_at=now,
                        last_seen=now))
        s.commit()
    db.close()
    env = await start_lobby(database_url, tmp_path)  # migrates to head
    try:
        ok = await env.stub.SignIn(lobby_pb2.SignInRequest(name=stored, password="correct-horse"))
        assert ok.player.player_id == "p_old"
        await _refused_as_taken(_guest(env, "\u0645\u062d\u0645\u062f"))
    finally:
        await stop_lobby(env)
