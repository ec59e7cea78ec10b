"""The hidden-information tests of the match server, run over gRPC-Web (issue 39: every limit and
hidden-information rule holds on the browser path exactly as on native gRPC): the War of Words
cloud tests of ``tests/service/match/test_match_clouds.py``, unchanged, with every player's
MatchService calls (GetMatch, StreamMatch, SubmitTurn, PreviewPlay, WordStrength, Hindsight,
TileBag, ListLog) sent through the server's web port."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from test_match_clouds import test_clouds_hide_what_lies_under_them_in_every_message as every_message
from test_match_clouds import test_no_answer_of_any_rpc_spells_what_lies_under_a_cloud as every_answer
from web_stub import WebHarness


@pytest.fixture
async def web_harness(database_url: str, tmp_path: Path) -> AsyncIterator[WebHarness]:
    h = WebHarness(database_url, tmp_path)
    try:
        yield h
    finally:
        await h.close()


def _over_the_web(h: WebHarness, *methods: str) -> None:
    sent = {path.rsplit("/", 1)[-1] for path in h.calls}
    assert set(methods) <= sent, sorted(sent)


async def test_clouds_hide_everything_in_every_message_over_grpc_web(web_harness: WebHarness) -> None:
    await every_message(web_harness)
    _over_the_web(web_harness, "GetMatch", "StreamMatch", "SubmitTurn", "PreviewPlay", "TileBag", "ListLog")


async def test_no_answer_spells_what_lies_under_a_cloud_over_grpc_web(web_harness: WebHarness) -> None:
    await every_answer(web_harness)
    _over_the_web(web_harness, "GetMatch", "SubmitTurn", "WordStrength", "Hindsight")
