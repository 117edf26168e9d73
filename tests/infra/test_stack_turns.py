"""Turns past API Gateway's 30 s: the orchestrator's timeout, self-invocation, the turns table, the route."""

from __future__ import annotations

from typing import Any

import pytest
from multitool.ports.tables import TURNS

from infra.stack import TURN_EVENT_MAX_AGE_SECONDS, TURN_TIMEOUT_SECONDS
from tests.infra.iam_queries import (
    actions_for_role,
    as_list,
    dynamodb_actions_by_table,
    function_id,
    resources_for_action,
    role_of_function,
    statements_for_role,
)
from tests.infra.synth import Synthesized

VARIANTS = ("harness_stack", "agent_stack", "converse_stack")


@pytest.fixture(params=VARIANTS)
def synth(request: pytest.FixtureRequest) -> Synthesized:
    stack: Synthesized = request.getfixturevalue(request.param)
    return stack


def _turns_table(synth: Synthesized) -> str:
    return synth.logical_id(synth.stack.tables[TURNS])


def test_the_orchestrator_runs_for_minutes_and_knows_the_turns_table(synth: Synthesized) -> None:
    props = synth.props(function_id(synth, "Orchestrator"))
    assert props["Timeout"] == TURN_TIMEOUT_SECONDS >= 120
    env = props["Environment"]["Variables"]
    assert env[TURNS.env_var] == {"Ref": _turns_table(synth)}


def test_the_turns_table_expires_turns_and_is_keyed_by_turn_id(synth: Synthesized) -> None:
    table = synth.props(_turns_table(synth))
    assert table["KeySchema"] == [{"AttributeName": "turnId", "KeyType": "HASH"}]
    assert table["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}
    assert table["BillingMode"] == "PAY_PER_REQUEST"


def test_the_orchestrator_may_invoke_only_itself(synth: Synthesized) -> None:
    orchestrator = function_id(synth, "Orchestrator")
    role = role_of_function(synth, orchestrator)
    assert resources_for_action(synth, role, "lambda:InvokeFunction") == [
        {"Fn::GetAtt": [orchestrator, "Arn"]}
    ]
    assert {a for a in actions_for_role(synth, role) if a.startswith("lambda:")} == {"lambda:InvokeFunction"}
    for statement in statements_for_role(synth, role):
        assert "lambda:*" not in as_list(statement["Action"])


def test_no_other_role_may_invoke_the_orchestrator(synth: Synthesized) -> None:
    orchestrator = function_id(synth, "Orchestrator")
    own = role_of_function(synth, orchestrator)
    for logical_id in synth.of_type("AWS::IAM::Role"):
        if logical_id == own:
            continue
        assert {"Fn::GetAtt": [orchestrator, "Arn"]} not in resources_for_action(
            synth, logical_id, "lambda:InvokeFunction"
        ), logical_id


def test_only_the_orchestrator_reaches_the_turns_table_with_the_calls_it_makes(synth: Synthesized) -> None:
    table = _turns_table(synth)
    orchestrator_role = role_of_function(synth, function_id(synth, "Orchestrator"))
    assert dynamodb_actions_by_table(synth, orchestrator_role)[table] == {
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:GetItem",
    }
    for logical_id in synth.of_type("AWS::IAM::Role"):
        if logical_id != orchestrator_role:
            assert table not in dynamodb_actions_by_table(synth, logical_id), logical_id


def test_a_turn_invocation_is_never_retried_and_is_dropped_when_stale(synth: Synthesized) -> None:
    orchestrator = function_id(synth, "Orchestrator")
    configs = [
        c["Properties"]
        for c in synth.of_type("AWS::Lambda::EventInvokeConfig").values()
        if c["Properties"]["FunctionName"] == {"Ref": orchestrator}
    ]
    assert len(configs) == 1
    assert configs[0]["MaximumRetryAttempts"] == 0
    assert configs[0]["MaximumEventAgeInSeconds"] == TURN_EVENT_MAX_AGE_SECONDS
    assert configs[0]["Qualifier"] == "$LATEST"


def _routes(synth: Synthesized) -> dict[str, Any]:
    routes = synth.of_type("AWS::ApiGatewayV2::Route").values()
    return {r["Properties"]["RouteKey"]: r["Properties"] for r in routes}


def test_get_turns_is_a_route_to_the_orchestrator_behind_the_jwt_authorizer(synth: Synthesized) -> None:
    routes = _routes(synth)
    turns, chat = routes["GET /turns/{id}"], routes["POST /chat"]
    assert turns["AuthorizationType"] == "JWT"
    assert turns["AuthorizerId"] == chat["AuthorizerId"]
    assert turns["Target"] == chat["Target"]  # the same Lambda integration


def test_the_page_may_send_prefer(synth: Synthesized) -> None:
    (api,) = synth.of_type("AWS::ApiGatewayV2::Api").values()
    assert "prefer" in api["Properties"]["CorsConfiguration"]["AllowHeaders"]
