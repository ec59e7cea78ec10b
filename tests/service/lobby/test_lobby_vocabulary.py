"""The lobby speaks the contract's one ruleset vocabulary (common.proto, RulesetRef): ruleset ids
are family ids, language codes are accepted in any case and answered in lower case, and
DescribeRuleset's documented NOT_FOUND holds for an unknown ruleset, language or board."""

from __future__ import annotations

import uuid

import grpc
import pytest
from lobby_harness import LobbyEnv

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import lobby_pb2

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


async def test_listed_languages_are_lower_case_and_either_case_is_accepted(env: LobbyEnv) -> None:
    listed = (await env.stub.ListRulesets(lobby_pb2.ListRulesetsRequest())).rulesets
    for s in listed:
        assert s.languages[0] == "en"
        assert all(lang == lang.lower() for lang in s.languages), s
    classic = next(s for s in listed if s.ruleset_id == "classic")
    assert "en-gb" in classic.languages
    answers = [
        (await env.stub.DescribeRuleset(lobby_pb2.DescribeRulesetRequest(
            ruleset=c.RulesetRef(ruleset_id="classic", language=lang)))).ruleset
        for lang in ("en-GB", "en-gb", "EN-gb")
    ]
    assert answers[0] == answers[1] == answers[2]

    _, md = await env.guest()
    settings = lobby_pb2.TableSettings(ruleset=c.RulesetRef(ruleset_id="classic", language="en-GB"), seats=2)
    create = lobby_pb2.CreateTableRequest(settings=settings, request_id=uuid.uuid4().hex)
    t = (await env.stub.CreateTable(create, metadata=md)).table
    ref = t.settings.ruleset
    assert (ref.ruleset_id, ref.family, ref.language, ref.board_id) == ("classic", c.FAMILY_CLASSIC, "en-gb",
                                                                         "classic")
    for lang in ("en-GB", "en-gb"):
        found = await env.stub.ListTables(lobby_pb2.ListTablesRequest(
            filter=lobby_pb2.TableFilter(ruleset_id="classic", language=lang)), metadata=md)
        assert [x.table_id for x in found.tables] == [t.table_id], lang


@pytest.mark.parametrize("ref", [
    c.RulesetRef(ruleset_id="chess"),
    c.RulesetRef(ruleset_id="classic/en/classic"),  # the engine's internal id is not a ruleset id
    c.RulesetRef(ruleset_id="classic", language="xx"),
    c.RulesetRef(ruleset_id="classic", board_id="warofwords-delta"),
    c.RulesetRef(ruleset_id="warofwords", board_id="river_delta"),
])
async def test_describe_ruleset_answers_not_found_for_what_the_catalogue_lacks(env: LobbyEnv,
                                                                               ref: c.RulesetRef) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await env.stub.DescribeRuleset(lobby_pb2.DescribeRulesetRequest(ruleset=ref))
    assert ei.value.code() == grpc.StatusCode.NOT_FOUND, ei.value.details()
