"""``wordarena_players_online`` counts the players seen in the last ``ONLINE_WINDOW_S``; the
players it no longer counts leave the lobby's memory as others call, whether or not anything
scrapes the metric (``--metrics-listen`` is off by default)."""

from __future__ import annotations

from lobby_harness import LobbyEnv

from wordarena.services.lobby.options import ONLINE_WINDOW_S


async def test_players_gone_quiet_leave_memory_without_a_scrape(env: LobbyEnv) -> None:
    early = [(await env.guest(f"Early {n}"))[0] for n in range(5)]
    online = env.lobby.accounts.online
    assert set(early) <= set(online)
    for pid in online:  # as if they had last called longer ago than the window
        online[pid] -= ONLINE_WINDOW_S + 1
    newcomer, _ = await env.guest("Newcomer")
    assert list(online) == [newcomer]  # the quiet ones went, with no scrape of the gauge
    assert env.lobby.accounts.online_count() == 1
