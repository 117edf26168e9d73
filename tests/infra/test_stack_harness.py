"""The default deploy (`runtime=agentcore`): an AgentCore managed harness, from the synthesized template."""

from __future__ import annotations

import re
from typing import Any

import botocore.session
import msgspec
import pytest
from botocore.validate import validate_parameters
from multitool.chat.service import API_SECONDS
from multitool.models import default_max_tokens
from multitool.runtimes.converse import default_tool_specs, tool_specs_from_registry
from multitool.runtimes.prompts import AGENT_INSTRUCTION
from multitool.settings.chat import ChatSettings

from infra.components.harness import (
    BEARER_TOKEN,
    DESCRIBE_LOG_GROUPS,
    ECR_PUBLIC_TOKEN,
    INVOKE_ACTIONS,
    LOG_ACTIONS,
    MAX_ITERATIONS,
    METRICS_ACTION,
    TIMEOUT_SECONDS,
    WORKLOAD_TOKEN_ACTIONS,
    XRAY_ACTIONS,
    harness_model,
)
from tests.infra.conftest import DEFAULT_MODEL, PROFILE_MODEL
from tests.infra.iam_queries import (
    actions_for_role,
    as_list,
    dynamodb_actions_by_table,
    function_id,
    project_functions,
    resources_for_action,
    role_of_function,
    statements_for_role,
)
from tests.infra.synth import Synthesized
from tests.infra.test_stack_agent import CHAT_TABLE_ACTIONS, TOOL_TABLE_ACTIONS, expected_table_actions

pytestmark = pytest.mark.infra

MODEL = DEFAULT_MODEL.split(".", 1)[1]


def _create_harness() -> Any:
    service = botocore.session.get_session().get_service_model("bedrock-agentcore-control")
    return service.operation_model("CreateHarness").input_shape


def _api_shape(value: Any) -> Any:
    """A CloudFormation property in the API's spelling (PascalCase keys to camelCase)."""
    if isinstance(value, dict):
        return {key[0].lower() + key[1:]: _api_shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_api_shape(item) for item in value]
    return value


@pytest.mark.parametrize(
    ("model_id", "temperature"),
    [
        (DEFAULT_MODEL, None),
        ("global.anthropic.claude-opus-5-5", None),
        (PROFILE_MODEL, 0),  # an older model the user picks keeps the fixed temperature
        ("eu.anthropic.claude-sonnet-4-5-20250929-v1:0", 0),
    ],
)
def test_the_harness_model_configuration_is_valid_for_each_model_family(
    model_id: str, temperature: int | None
) -> None:
    config = harness_model(model_id)
    api = {"modelId": config.model_id, "apiFormat": config.api_format}
    if config.temperature is not None:
        api["temperature"] = config.temperature
    validate_parameters({"bedrockModelConfig": api}, _create_harness().members["model"])
    assert config.temperature == temperature


def _joined(arn: Any) -> str:
    """An ARN built with Fn::Join, as one string: the partition as <P>, a GetAtt as <Logical.Attr>."""
    if isinstance(arn, str):
        return arn
    parts = []
    for part in arn["Fn::Join"][1]:
        if isinstance(part, str):
            parts.append(part)
        elif part == {"Ref": "AWS::Partition"}:
            parts.append("<P>")
        else:
            logical_id, attribute = part["Fn::GetAtt"]
            parts.append(f"<{logical_id}.{attribute}>")
    return "".join(parts)


def _harness(synth: Synthesized) -> tuple[str, dict[str, Any]]:
    ((logical_id, resource),) = synth.of_type("AWS::BedrockAgentCore::Harness").items()
    return logical_id, resource


def _harness_role(synth: Synthesized) -> str:
    _, resource = _harness(synth)
    role: str = resource["Properties"]["ExecutionRoleArn"]["Fn::GetAtt"][0]
    return role


# --- what the default deploy is ---------------------------------------------------------------------


def test_the_default_deploy_has_a_harness_and_no_classic_agent(harness_stack: Synthesized) -> None:
    assert len(harness_stack.of_type("AWS::BedrockAgentCore::Harness")) == 1
    assert harness_stack.of_type("AWS::Bedrock::Agent") == {}
    assert harness_stack.of_type("AWS::Bedrock::AgentAlias") == {}
    # The orchestrator runs the tools in-process: no action-group Lambdas, nothing Bedrock may invoke.
    functions = project_functions(harness_stack)
    assert set(functions) == {function_id(harness_stack, c) for c in ("Orchestrator", "Review")}
    principals = {
        p["Properties"]["Principal"] for p in harness_stack.of_type("AWS::Lambda::Permission").values()
    }
    assert principals == {"apigateway.amazonaws.com"}


def test_the_harness_runs_the_context_model_with_the_prompt_contract_and_limits(
    harness_stack: Synthesized,
) -> None:
    _, resource = _harness(harness_stack)
    props = resource["Properties"]
    # Claude Sonnet 5.5 thinks by default: it refuses a fixed temperature, so none is set.
    assert props["Model"] == {
        "BedrockModelConfig": {"ModelId": DEFAULT_MODEL, "ApiFormat": "converse_stream"}
    }
    validate_parameters(_api_shape(props["Model"]), _create_harness().members["model"])
    assert props["SystemPrompt"] == [{"Text": AGENT_INSTRUCTION}]
    assert (props["MaxIterations"], props["TimeoutSeconds"], props["MaxTokens"]) == (
        MAX_ITERATIONS,
        TIMEOUT_SECONDS,
        default_max_tokens(DEFAULT_MODEL),
    )
    assert props["MaxTokens"] == 16384  # room for the model's thinking besides the calls
    # One harness invocation ends before API Gateway's 30 s cut (a turn answered within the request)
    # and well before the orchestrator's own timeout (a turn run past it).
    orchestrator = harness_stack.props(function_id(harness_stack, "Orchestrator"))
    assert props["TimeoutSeconds"] < API_SECONDS < orchestrator["Timeout"]
    # No second copy of the conversation: the orchestrator's sessions table keeps it.
    assert props["Memory"] == {"Disabled": {}}
    assert not {"EnvironmentArtifact", "Skills", "Hooks", "AuthorizerConfiguration"} & set(props)
    # An idle session's microVM stops after the deploy's idle session TTL (idleSessionTtlSeconds).
    assert props["Environment"] == {
        "AgentCoreRuntimeEnvironment": {"LifecycleConfiguration": {"IdleRuntimeSessionTimeout": 600}}
    }
    # A generated name in the service's pattern (letters, digits, _; 40 at most).
    assert re.fullmatch(r"[a-zA-Z][a-zA-Z0-9_]{0,39}", props["HarnessName"])


def test_each_registry_tool_is_one_inline_function_with_the_converse_input_schema(
    harness_stack: Synthesized,
) -> None:
    _, resource = _harness(harness_stack)
    tools = resource["Properties"]["Tools"]
    specs = {spec["toolSpec"]["name"]: spec["toolSpec"] for spec in default_tool_specs()}
    registry = {spec["toolSpec"]["name"] for spec in tool_specs_from_registry()}
    assert [t["Name"] for t in tools] == list(specs)
    assert set(specs) == registry
    for tool in tools:
        spec = specs[tool["Name"]]
        assert tool["Type"] == "inline_function"
        assert tool["Config"] == {
            "InlineFunction": {"Description": spec["description"], "InputSchema": spec["inputSchema"]["json"]}
        }
    # Only these tools: the harness's built-in shell, file, browser and code tools stay off.
    assert resource["Properties"]["AllowedTools"] == list(specs)


# --- the execution role -----------------------------------------------------------------------------


def test_the_execution_role_trusts_only_agentcore_in_this_account(harness_stack: Synthesized) -> None:
    role = harness_stack.props(_harness_role(harness_stack))
    (trust,) = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Effect"] == "Allow"
    assert trust["Action"] == "sts:AssumeRole"
    assert trust["Principal"] == {"Service": "bedrock-agentcore.amazonaws.com"}
    assert trust["Condition"]["StringEquals"] == {"aws:SourceAccount": "123456789012"}
    arn_like = trust["Condition"]["ArnLike"]["aws:SourceArn"]
    assert _joined(arn_like) == "arn:<P>:bedrock-agentcore:us-east-1:123456789012:*"
    assert not role.get("ManagedPolicyArns")


# What AWS's harness execution role policy lists for the runtime itself (harness-security.html).
RUNTIME_ACTIONS = {
    ECR_PUBLIC_TOKEN,
    BEARER_TOKEN,
    *XRAY_ACTIONS,
    METRICS_ACTION,
    DESCRIBE_LOG_GROUPS,
    *WORKLOAD_TOKEN_ACTIONS,
}
# The actions that take no resource, each reason in the role's RuntimePolicy.
NO_RESOURCE = {ECR_PUBLIC_TOKEN, BEARER_TOKEN, *XRAY_ACTIONS, METRICS_ACTION}


def test_the_execution_role_may_invoke_the_global_profile_and_its_model_and_write_its_own_logs_only(
    harness_stack: Synthesized,
) -> None:
    synth = harness_stack
    role = _harness_role(synth)
    harness_id, _ = _harness(synth)
    assert actions_for_role(synth, role) == {
        "bedrock:InvokeModel",
        "bedrock:InvokeModelWithResponseStream",
        *LOG_ACTIONS,
        *RUNTIME_ACTIONS,
    }
    profile = f"arn:<P>:bedrock:us-east-1:123456789012:inference-profile/{DEFAULT_MODEL}"
    # The global profile: itself, and the model in the stack's region and with no region (where the
    # request is routed), the model only through this profile; no region wildcard.
    models = [
        f"arn:<P>:bedrock:us-east-1::foundation-model/{MODEL}",
        f"arn:<P>:bedrock:::foundation-model/{MODEL}",
    ]
    for action in ("bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"):
        assert sorted(_joined(a) for a in resources_for_action(synth, role, action)) == sorted(
            [profile, *models]
        )
    model_statements = {
        _joined(statement["Resource"]): statement["Condition"]["StringEquals"]
        for statement in statements_for_role(synth, role)
        if "foundation-model" in str(statement["Resource"])
    }
    assert sorted(model_statements) == sorted(models)
    for conditions in model_statements.values():
        assert _joined(conditions["bedrock:InferenceProfileArn"]) == profile
    assert "aws:RequestedRegion" not in model_statements[models[0]]
    assert model_statements[models[1]]["aws:RequestedRegion"] == "unspecified"
    runtime_logs = (
        "arn:<P>:logs:us-east-1:123456789012:log-group:/aws/bedrock-agentcore/runtimes/"
        f"<{harness_id}.Environment.AgentCoreRuntimeEnvironment.AgentRuntimeId>*"
    )
    for action in LOG_ACTIONS:
        assert [_joined(a) for a in resources_for_action(synth, role, action)] == [runtime_logs]
    for statement in statements_for_role(synth, role):
        assert statement["Effect"] == "Allow"
        if statement["Resource"] == "*":  # only what has no resource-level permission
            assert set(as_list(statement["Action"])) <= NO_RESOURCE, statement


def test_the_runtime_gets_what_aws_lists_for_the_harness_each_statement_as_narrow_as_it_goes(
    harness_stack: Synthesized,
) -> None:
    synth = harness_stack
    role = _harness_role(synth)
    assert synth.stack.harness is not None
    policy = synth.props(synth.logical_id(synth.stack.harness.runtime_policy))
    assert policy["Roles"] == [{"Ref": role}]
    by_sid = {s["Sid"]: s for s in policy["PolicyDocument"]["Statement"]}
    assert set(by_sid) == {
        "EcrPublicToken",
        "EcrPublicBearerToken",
        "XRayTraces",
        "RuntimeMetrics",
        "RuntimeLogGroupLookup",
        "WorkloadAccessToken",
    }
    assert by_sid["EcrPublicToken"]["Action"] == ECR_PUBLIC_TOKEN
    # The STS bearer token only for ECR Public, metrics only in the runtime's namespace.
    assert by_sid["EcrPublicBearerToken"]["Condition"] == {
        "StringEquals": {"sts:AWSServiceName": "ecr-public.amazonaws.com"}
    }
    assert by_sid["RuntimeMetrics"]["Condition"] == {
        "StringEquals": {"cloudwatch:namespace": "bedrock-agentcore"}
    }
    assert sorted(as_list(by_sid["XRayTraces"]["Action"])) == sorted(XRAY_ACTIONS)
    assert _joined(by_sid["RuntimeLogGroupLookup"]["Resource"]) == (
        "arn:<P>:logs:us-east-1:123456789012:log-group:*"
    )
    name = synth.props(_harness(synth)[0])["HarnessName"]
    directory = "arn:<P>:bedrock-agentcore:us-east-1:123456789012:workload-identity-directory/default"
    assert [_joined(r) for r in by_sid["WorkloadAccessToken"]["Resource"]] == [
        directory,
        f"{directory}/workload-identity/harness_{name}-*",
    ]
    assert "bedrock-agentcore:GetWorkloadAccessTokenForUserId" not in actions_for_role(synth, role)
    # No built-in browser or code interpreter: allowedTools keeps them off, so no session grants.
    assert not [a for a in actions_for_role(synth, role) if "Browser" in a or "CodeInterpreter" in a]


def test_the_harness_is_created_after_the_policy_its_role_validation_needs(
    harness_stack: Synthesized,
) -> None:
    harness_id, resource = _harness(harness_stack)
    role = _harness_role(harness_stack)
    model_policy = next(
        logical_id
        for logical_id, policy in harness_stack.of_type("AWS::IAM::Policy").items()
        if {"Ref": role} in policy["Properties"]["Roles"] and "bedrock:InvokeModel" in str(policy)
    )
    assert model_policy in as_list(resource["DependsOn"])
    assert harness_stack.stack.harness is not None
    runtime_policy = harness_stack.logical_id(harness_stack.stack.harness.runtime_policy)
    assert runtime_policy in as_list(resource["DependsOn"])
    # The log policy names the harness's runtime, so CloudFormation creates it after the harness.
    assert harness_stack.stack.harness is not None
    log_policy = harness_stack.props(harness_stack.logical_id(harness_stack.stack.harness.log_policy))
    assert log_policy["Roles"] == [{"Ref": role}]
    (statement,) = log_policy["PolicyDocument"]["Statement"]
    runtime_id = {"Fn::GetAtt": [harness_id, "Environment.AgentCoreRuntimeEnvironment.AgentRuntimeId"]}
    assert runtime_id in statement["Resource"]["Fn::Join"][1]


# --- the orchestrator -------------------------------------------------------------------------------


def test_the_orchestrator_gets_the_harness_arn_and_the_runtime(harness_stack: Synthesized) -> None:
    harness_id, _ = _harness(harness_stack)
    env = harness_stack.props(function_id(harness_stack, "Orchestrator"))["Environment"]["Variables"]
    assert env["RUNTIME"] == "agentcore"
    assert env["HARNESS_ARN"] == {"Fn::GetAtt": [harness_id, "Arn"]}
    assert env["MODEL_ID"] == DEFAULT_MODEL
    assert not {"AGENT_ID", "AGENT_ALIAS_ID"} & set(env)
    required = {field.name.upper() for field in msgspec.structs.fields(ChatSettings) if field.required}
    assert required <= set(env)


def test_the_orchestrator_may_invoke_only_this_harness_and_no_model(harness_stack: Synthesized) -> None:
    synth = harness_stack
    harness_id, _ = _harness(synth)
    role = role_of_function(synth, function_id(synth, "Orchestrator"))
    actions = actions_for_role(synth, role)
    agentcore = {a for a in actions if a.startswith("bedrock-agentcore:")}
    assert (
        agentcore
        == set(INVOKE_ACTIONS)
        == {
            "bedrock-agentcore:InvokeHarness",
            "bedrock-agentcore:InvokeAgentRuntime",
            "bedrock-agentcore:InvokeAgentRuntimeForUser",
        }
    )
    for action in INVOKE_ACTIONS:
        assert resources_for_action(synth, role, action) == [{"Fn::GetAtt": [harness_id, "Arn"]}]
    # The harness calls the model with its own role; the orchestrator calls no model, no agent.
    assert not {a for a in actions if a.startswith("bedrock:")}
    assert not {a for a in actions if a.startswith("ses:")}
    # The tools run here: the one secret it reads is the Jira reading account's.
    assert {a for a in actions if a.startswith("secretsmanager:")} == {"secretsmanager:GetSecretValue"}
    stack = harness_stack.stack
    assert stack.jira_reader is not None
    assert resources_for_action(harness_stack, role, "secretsmanager:GetSecretValue") == [
        {"Ref": harness_stack.logical_id(stack.jira_reader.secret)}
    ]
    # It runs the tools itself: the chat tables and the tool tables, exactly.
    expected = expected_table_actions(synth, {**CHAT_TABLE_ACTIONS, **TOOL_TABLE_ACTIONS})
    assert dynamodb_actions_by_table(synth, role) == expected


def test_no_other_role_may_invoke_the_harness(harness_stack: Synthesized) -> None:
    orchestrator = role_of_function(harness_stack, function_id(harness_stack, "Orchestrator"))
    for role in harness_stack.of_type("AWS::IAM::Role"):
        if role != orchestrator:
            assert not {
                a for a in actions_for_role(harness_stack, role) if a.startswith("bedrock-agentcore:Invoke")
            }


# --- outputs ----------------------------------------------------------------------------------------


def test_the_harness_arn_is_an_output_with_a_stable_logical_id(harness_stack: Synthesized) -> None:
    harness_id, _ = _harness(harness_stack)
    outputs = harness_stack.data["Outputs"]
    assert outputs["HarnessArn"]["Value"] == {"Fn::GetAtt": [harness_id, "Arn"]}
    assert {"ApiUrl", "UserPoolId", "UserPoolClientId", "JiraSecretArn"} <= set(outputs)
    assert not {"AgentId", "AgentAliasId"} & set(outputs)
