"""The other deploys: RETURN_CONTROL (inference profile, guardrail, existing user pool) and Converse."""

from __future__ import annotations

import json
from typing import Any

import pytest
from multitool.ports.tables import DRAFTS

from infra.components.agent import action_groups
from tests.infra.conftest import (
    CONFIGURATION_SET,
    EXISTING_CLIENT,
    EXISTING_POOL,
    FOUNDATION_MODEL,
    GUARDRAIL,
    PROFILE_MODEL,
)
from tests.infra.iam_queries import (
    actions_for_role,
    dynamodb_actions_by_table,
    function_id,
    project_functions,
    resources_for_action,
    role_of_function,
)
from tests.infra.synth import SENDER, Synthesized
from tests.infra.test_stack_agent import CHAT_TABLE_ACTIONS, TOOL_TABLE_ACTIONS, expected_table_actions

pytestmark = pytest.mark.infra


def _joined(arn: Any) -> str:
    """An ARN built with Fn::Join over the partition, as one string with the partition as <P>."""
    if isinstance(arn, str):
        return arn
    return "".join(part if isinstance(part, str) else "<P>" for part in arn["Fn::Join"][1])


# --- RETURN_CONTROL -------------------------------------------------------------------------------


def test_return_control_hands_every_action_group_to_the_orchestrator(
    return_control_stack: Synthesized,
) -> None:
    (agent,) = return_control_stack.of_type("AWS::Bedrock::Agent").values()
    groups = agent["Properties"]["ActionGroups"]
    assert {g["ActionGroupName"] for g in groups} == {s.name for s in action_groups()}
    for group in groups:
        assert group["ActionGroupExecutor"] == {"CustomControl": "RETURN_CONTROL"}
    for spec in action_groups():
        (group,) = [g for g in groups if g["ActionGroupName"] == spec.name]
        assert json.loads(group["ApiSchema"]["Payload"]) == json.loads(
            spec.schema_path.read_text(encoding="utf-8")
        )
    # No action-group Lambdas: nothing for Bedrock to invoke.
    functions = project_functions(return_control_stack)
    assert set(functions) == {function_id(return_control_stack, c) for c in ("Orchestrator", "Review")}
    assert not [
        p for p in return_control_stack.of_type("AWS::Lambda::Permission").values()
        if p["Properties"]["Principal"] == "bedrock.amazonaws.com"
    ]  # fmt: skip


def test_return_control_orchestrator_runs_tools_but_cannot_send(return_control_stack: Synthesized) -> None:
    synth = return_control_stack
    role = role_of_function(synth, function_id(synth, "Orchestrator"))
    actions = actions_for_role(synth, role)
    drafts = {"Fn::GetAtt": [synth.logical_id(synth.stack.tables[DRAFTS]), "Arn"]}
    assert drafts in resources_for_action(synth, role, "dynamodb:PutItem")
    assert "bedrock:InvokeAgent" in actions
    assert not {a for a in actions if a.startswith("ses:")}
    _reads_only_the_jira_reading_secret(synth, role, actions)


def test_inference_profile_and_guardrail_reach_the_agent(return_control_stack: Synthesized) -> None:
    synth = return_control_stack
    (agent,) = synth.of_type("AWS::Bedrock::Agent").values()
    props = agent["Properties"]
    assert props["FoundationModel"] == PROFILE_MODEL
    assert props["GuardrailConfiguration"] == {"GuardrailIdentifier": GUARDRAIL, "GuardrailVersion": "3"}
    assert synth.stack.agent is not None
    role = synth.logical_id(synth.stack.agent.role)
    model = PROFILE_MODEL.split(".", 1)[1]
    invokable = sorted(_joined(a) for a in resources_for_action(synth, role, "bedrock:InvokeModel"))
    assert invokable == sorted(
        [
            f"arn:<P>:bedrock:us-east-1:123456789012:inference-profile/{PROFILE_MODEL}",
            f"arn:<P>:bedrock:us-*::foundation-model/{model}",
        ]
    )
    guardrails = [_joined(a) for a in resources_for_action(synth, role, "bedrock:ApplyGuardrail")]
    assert guardrails == [f"arn:<P>:bedrock:us-east-1:123456789012:guardrail/{GUARDRAIL}"]


def test_existing_user_pool_is_used_instead_of_a_new_one(return_control_stack: Synthesized) -> None:
    synth = return_control_stack
    assert synth.of_type("AWS::Cognito::UserPool") == {}
    (authorizer,) = synth.of_type("AWS::ApiGatewayV2::Authorizer").values()
    jwt = authorizer["Properties"]["JwtConfiguration"]
    assert jwt["Audience"] == [EXISTING_CLIENT]
    assert _joined(jwt["Issuer"]) == f"https://cognito-idp.eu-west-1.amazonaws.com/{EXISTING_POOL}"
    outputs = synth.data["Outputs"]
    assert outputs["UserPoolId"]["Value"] == EXISTING_POOL
    assert outputs["UserPoolClientId"]["Value"] == EXISTING_CLIENT
    (api,) = synth.of_type("AWS::ApiGatewayV2::Api").values()
    assert api["Properties"]["CorsConfiguration"]["AllowOrigins"][1:] == ["https://chat.example.com"]


def test_ses_configuration_set_reaches_the_review_function_and_its_grant(
    return_control_stack: Synthesized,
) -> None:
    synth = return_control_stack
    fn = function_id(synth, "Review")
    assert synth.props(fn)["Environment"]["Variables"]["SES_CONFIGURATION_SET"] == CONFIGURATION_SET
    sendable = [_joined(a) for a in resources_for_action(synth, role_of_function(synth, fn), "ses:SendEmail")]
    assert f"arn:<P>:ses:us-east-1:123456789012:configuration-set/{CONFIGURATION_SET}" in sendable
    assert len(sendable) == 2  # the sender identity and the configuration set, nothing else


# --- Converse -------------------------------------------------------------------------------------


def test_converse_deploys_no_bedrock_agent(converse_stack: Synthesized) -> None:
    assert converse_stack.of_type("AWS::Bedrock::Agent") == {}
    assert converse_stack.of_type("AWS::Bedrock::AgentAlias") == {}
    outputs = set(converse_stack.data["Outputs"])
    assert {"ApiUrl", "UserPoolId", "UserPoolClientId"} <= outputs
    assert not outputs & {"AgentId", "AgentAliasId"}
    functions = project_functions(converse_stack)
    assert set(functions) == {function_id(converse_stack, c) for c in ("Orchestrator", "Review")}


def test_converse_orchestrator_invokes_only_the_context_model(converse_stack: Synthesized) -> None:
    synth = converse_stack
    fn = function_id(synth, "Orchestrator")
    env = synth.props(fn)["Environment"]["Variables"]
    model = FOUNDATION_MODEL
    assert env["RUNTIME"] == "converse"
    assert env["MODEL_ID"] == model
    assert "AGENT_ID" not in env
    role = role_of_function(synth, fn)
    actions = actions_for_role(synth, role)
    bedrock = {a for a in actions if a.startswith("bedrock:")}
    # The Converse loop calls Converse (bedrock:InvokeModel), never ConverseStream, with its guardrail.
    assert bedrock == {"bedrock:InvokeModel", "bedrock:ApplyGuardrail"}
    (arn,) = resources_for_action(synth, role, "bedrock:InvokeModel")
    assert _joined(arn) == f"arn:<P>:bedrock:us-east-1::foundation-model/{model}"
    (guardrail,) = resources_for_action(synth, role, "bedrock:ApplyGuardrail")
    assert _joined(guardrail) == f"arn:<P>:bedrock:us-east-1:123456789012:guardrail/{GUARDRAIL}"
    assert (env["GUARDRAIL_ID"], env["GUARDRAIL_VERSION"]) == (GUARDRAIL, "2")
    assert not {a for a in actions if a.startswith("ses:")}
    _reads_only_the_jira_reading_secret(synth, role, actions)
    drafts = {"Fn::GetAtt": [synth.logical_id(synth.stack.tables[DRAFTS]), "Arn"]}
    assert drafts in resources_for_action(synth, role, "dynamodb:PutItem")


@pytest.mark.parametrize("variant", ["return_control_stack", "converse_stack"])
def test_an_orchestrator_that_runs_tools_gets_the_chat_and_tool_table_actions_only(
    variant: str, request: pytest.FixtureRequest
) -> None:
    synth: Synthesized = request.getfixturevalue(variant)
    role = role_of_function(synth, function_id(synth, "Orchestrator"))
    expected = expected_table_actions(synth, {**CHAT_TABLE_ACTIONS, **TOOL_TABLE_ACTIONS})
    assert dynamodb_actions_by_table(synth, role) == expected


def test_an_already_verified_sender_is_not_created_again_but_still_sends(
    return_control_stack: Synthesized,
) -> None:
    # CreateEmailIdentity fails on an identity that exists: createSenderIdentity=false creates none
    synth = return_control_stack
    assert synth.of_type("AWS::SES::EmailIdentity") == {}
    fn = function_id(synth, "Review")
    assert synth.props(fn)["Environment"]["Variables"]["SENDER_EMAIL"] == SENDER
    sendable = [_joined(a) for a in resources_for_action(synth, role_of_function(synth, fn), "ses:SendEmail")]
    assert "arn:<P>:ses:us-east-1:123456789012:identity/*" in sendable


def _reads_only_the_jira_reading_secret(synth: Synthesized, role: str, actions: set[str]) -> None:
    """Where the tools run in the orchestrator, it reads the issues a card names with the Jira reading
    account (browse only), and no other secret: never the review's, which writes."""
    assert {a for a in actions if a.startswith("secretsmanager:")} <= {
        "secretsmanager:GetSecretValue",
        "secretsmanager:DescribeSecret",
    }
    assert synth.stack.jira_reader is not None
    reader = {"Ref": synth.logical_id(synth.stack.jira_reader.secret.node.default_child)}
    for action in ("secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"):
        assert all(r == reader for r in resources_for_action(synth, role, action))
