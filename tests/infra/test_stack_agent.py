"""Agents Classic, Lambda executors (`-c runtime=agent`): what `cdk deploy` stands up, from its template."""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec
import pytest
from aws_cdk.assertions import Match
from multitool.ports.tables import ALL_TABLES
from multitool.runtimes.prompts import AGENT_INSTRUCTION
from multitool.settings import ToolSettings
from multitool.settings.chat import ChatSettings
from multitool.settings.review import ReviewSettings

from infra.components.agent import action_groups
from infra.components.layer import RUNTIME
from tests.infra.conftest import FOUNDATION_MODEL
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
from tests.infra.synth import SENDER, Synthesized
from tests.support.http_events import ROUTE_KEYS

pytestmark = pytest.mark.infra

ACTION_GROUP_CONSTRUCTS = {
    "email_draft": "EmailDraft",
    "email_reply": "EmailReply",
    "email_forward": "EmailForward",
    "meeting_scheduler": "MeetingScheduler",
    "jira_draft": "JiraDraft",
    "meeting_move": "MeetingMove",
    "meeting_cancel": "MeetingCancel",
    "invitation_answer": "InvitationAnswer",
    "calendar_agenda": "CalendarAgenda",
    "free_time": "FreeTime",
    "jira_comment": "JiraComment",
    "jira_transition": "JiraTransition",
    "jira_update": "JiraUpdate",
    "jira_link": "JiraLink",
}
JIRA_READERS = ("JiraComment", "JiraTransition", "JiraUpdate", "JiraLink")
ALL_FUNCTIONS = (*ACTION_GROUP_CONSTRUCTS.values(), "Orchestrator", "Review")


def _env(synth: Synthesized, construct_id: str) -> dict[str, Any]:
    variables: dict[str, Any] = synth.props(function_id(synth, construct_id))["Environment"]["Variables"]
    return variables


def _required_env(settings: type[ToolSettings]) -> set[str]:
    return {field.name.upper() for field in msgspec.structs.fields(settings) if field.required}


# --- tables ---------------------------------------------------------------------------------------


def test_every_table_spec_is_an_on_demand_table_with_pitr_retained_and_generated_name(
    agent_stack: Synthesized,
) -> None:
    tables = agent_stack.of_type("AWS::DynamoDB::Table")
    assert len(tables) == len(ALL_TABLES)
    for spec in ALL_TABLES:
        logical_id = agent_stack.logical_id(agent_stack.stack.tables[spec])
        table = tables[logical_id]
        props = table["Properties"]
        keys = {k["AttributeName"]: k["KeyType"] for k in props["KeySchema"]}
        expected = {spec.partition_key: "HASH", **({spec.sort_key: "RANGE"} if spec.sort_key else {})}
        assert keys == expected
        assert props["BillingMode"] == "PAY_PER_REQUEST"
        assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
        assert "TableName" not in props
        assert table["DeletionPolicy"] == "RetainExceptOnCreate"
        assert table["UpdateReplacePolicy"] == "Retain"
        if spec.ttl_attribute:
            assert props["TimeToLiveSpecification"] == {"AttributeName": spec.ttl_attribute, "Enabled": True}
        else:
            assert "TimeToLiveSpecification" not in props


# --- functions ------------------------------------------------------------------------------------


def test_every_function_is_arm64_current_python_json_logs_active_tracing(agent_stack: Synthesized) -> None:
    functions = project_functions(agent_stack)
    assert len(functions) == len(ALL_FUNCTIONS)
    log_groups = agent_stack.of_type("AWS::Logs::LogGroup")
    layer_id = agent_stack.logical_id(agent_stack.stack.layer)
    for construct_id in ALL_FUNCTIONS:
        props = agent_stack.props(function_id(agent_stack, construct_id))
        assert props["Architectures"] == ["arm64"]
        assert props["Runtime"] == RUNTIME.name == "python3.13"
        assert props["Handler"] == "handler.handler"
        assert props["TracingConfig"] == {"Mode": "Active"}
        assert props["Layers"] == [{"Ref": layer_id}]
        logging = props["LoggingConfig"]
        assert logging["LogFormat"] == "JSON"
        log_group = log_groups[logging["LogGroup"]["Ref"]]
        assert log_group["Properties"]["RetentionInDays"] == 30
        env = props["Environment"]["Variables"]
        assert env["POWERTOOLS_SERVICE_NAME"] == "multitool"
        assert env["POWERTOOLS_METRICS_NAMESPACE"] == "Multitool"
        assert env["POWERTOOLS_LOG_LEVEL"] == "INFO"
        assert env["PYDANTIC_DISABLE_PLUGINS"] == "__all__"


def test_each_function_has_its_own_role_writing_only_its_own_log_group(agent_stack: Synthesized) -> None:
    roles = [role_of_function(agent_stack, function_id(agent_stack, c)) for c in ALL_FUNCTIONS]
    assert len(set(roles)) == len(roles)
    for construct_id, role_id in zip(ALL_FUNCTIONS, roles, strict=True):
        props = agent_stack.props(function_id(agent_stack, construct_id))
        own_log_group = props["LoggingConfig"]["LogGroup"]["Ref"]
        assert resources_for_action(agent_stack, role_id, "logs:PutLogEvents") == [
            {"Fn::GetAtt": [own_log_group, "Arn"]}
        ]
        for statement in statements_for_role(agent_stack, role_id):
            assert statement["Effect"] == "Allow"
            for action in as_list(statement["Action"]):
                assert "*" not in action, f"{construct_id} has wildcard action {action}"
            if statement["Resource"] == "*":
                assert set(as_list(statement["Action"])) <= {
                    "xray:PutTraceSegments",
                    "xray:PutTelemetryRecords",
                }


def test_function_environments_satisfy_the_settings_each_function_loads(agent_stack: Synthesized) -> None:
    for construct_id in ACTION_GROUP_CONSTRUCTS.values():
        assert _required_env(ToolSettings) <= set(_env(agent_stack, construct_id))
    chat = _env(agent_stack, "Orchestrator")
    assert _required_env(ChatSettings) <= set(chat)
    assert chat["RUNTIME"] == "agent"
    agent = agent_stack.stack.agent
    assert agent is not None
    assert chat["AGENT_ID"] == {"Fn::GetAtt": [agent_stack.logical_id(agent.agent), "AgentId"]}
    assert chat["AGENT_ALIAS_ID"] == {"Fn::GetAtt": [agent_stack.logical_id(agent.alias), "AgentAliasId"]}
    review = _env(agent_stack, "Review")
    assert _required_env(ReviewSettings) <= set(review)
    assert review["SENDER_EMAIL"] == SENDER
    assert review["JIRA_SECRET_ARN"] == {"Ref": agent_stack.logical_id(agent_stack.stack.jira.secret)}
    assert review["SANDBOX"] == "false"
    for construct_id in ALL_FUNCTIONS:
        env = _env(agent_stack, construct_id)
        for spec in ALL_TABLES:
            if spec.env_var in env:
                assert env[spec.env_var] == {"Ref": agent_stack.logical_id(agent_stack.stack.tables[spec])}


# --- least privilege ------------------------------------------------------------------------------


def test_action_group_roles_cannot_send_read_secrets_or_invoke_the_agent(agent_stack: Synthesized) -> None:
    for construct_id in ACTION_GROUP_CONSTRUCTS.values():
        actions = actions_for_role(
            agent_stack, role_of_function(agent_stack, function_id(agent_stack, construct_id))
        )
        assert not {a for a in actions if a.startswith("ses:")}
        # Only the Jira reading ones read a secret: the reading account's (the test above)
        reads = {"secretsmanager:GetSecretValue"} if construct_id in JIRA_READERS else set()
        assert {a for a in actions if a.startswith("secretsmanager:")} == reads
        assert not {a for a in actions if a.startswith("bedrock:")}
        assert not {a for a in actions if a.startswith("lambda:")}
        # Drafts are created (conditional put, read back on conflict), never updated or deleted.
        assert actions & {"dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"} == set()
        assert "dynamodb:PutItem" in actions


def test_action_groups_write_only_drafts_and_read_directory_and_bookings(agent_stack: Synthesized) -> None:
    from multitool.ports.tables import BOOKINGS, DIRECTORY, DRAFTS

    tables = {
        spec: {"Fn::GetAtt": [agent_stack.logical_id(agent_stack.stack.tables[spec]), "Arn"]}
        for spec in ALL_TABLES
    }
    for construct_id in ACTION_GROUP_CONSTRUCTS.values():
        role_id = role_of_function(agent_stack, function_id(agent_stack, construct_id))
        assert resources_for_action(agent_stack, role_id, "dynamodb:PutItem") == [tables[DRAFTS]]
        readable = resources_for_action(agent_stack, role_id, "dynamodb:BatchGetItem")
        assert sorted(map(json.dumps, readable)) == sorted(
            json.dumps(tables[s]) for s in (DIRECTORY, BOOKINGS)
        )


def test_chat_path_has_no_mail_and_no_secret(agent_stack: Synthesized) -> None:
    role_id = role_of_function(agent_stack, function_id(agent_stack, "Orchestrator"))
    actions = actions_for_role(agent_stack, role_id)
    assert not {a for a in actions if a.startswith("ses:") or a.startswith("secretsmanager:")}
    agent = agent_stack.stack.agent
    assert agent is not None
    assert resources_for_action(agent_stack, role_id, "bedrock:InvokeAgent") == [
        {"Fn::GetAtt": [agent_stack.logical_id(agent.alias), "AgentAliasArn"]}
    ]
    assert "bedrock:InvokeModel" not in actions  # the agent invokes the model, not the orchestrator
    # With Lambda executors the orchestrator runs no tool: it cannot write drafts.
    assert "dynamodb:PutItem" in actions  # sessions and idempotency records
    from multitool.ports.tables import DRAFTS

    drafts = {"Fn::GetAtt": [agent_stack.logical_id(agent_stack.stack.tables[DRAFTS]), "Arn"]}
    assert drafts not in resources_for_action(agent_stack, role_id, "dynamodb:PutItem")


def test_only_the_review_function_sends_mail_and_reads_the_jira_secret(agent_stack: Synthesized) -> None:
    review_role = role_of_function(agent_stack, function_id(agent_stack, "Review"))
    stack = agent_stack.stack
    for action in ("ses:SendEmail", "ses:SendRawEmail"):
        identities, configuration_set = [
            s for s in statements_for_role(agent_stack, review_role) if action in as_list(s["Action"])
        ]
        # In the SES sandbox SES also authorizes the send against each (verified) recipient's identity,
        # so the grant covers this account's identities, for mail from the sender address only.
        (resource,) = as_list(identities["Resource"])
        assert resource["Fn::Join"][1][-1] == ":ses:us-east-1:123456789012:identity/*"
        assert identities["Condition"] == {"StringEquals": {"ses:FromAddress": SENDER}}
        # and the configuration set every mail goes through (the stack's own)
        (resource,) = as_list(configuration_set["Resource"])
        assert ":configuration-set/" in json.dumps(resource)
        assert "Condition" not in configuration_set
    assert resources_for_action(agent_stack, review_role, "secretsmanager:GetSecretValue") == [
        {"Ref": agent_stack.logical_id(stack.jira.secret)}
    ]
    # The cards that name an existing issue read it with the reading account's secret, and only that.
    assert stack.jira_reader is not None
    readers = {role_of_function(agent_stack, function_id(agent_stack, name)) for name in JIRA_READERS}
    for role_id in readers:
        assert resources_for_action(agent_stack, role_id, "secretsmanager:GetSecretValue") == [
            {"Ref": agent_stack.logical_id(stack.jira_reader.secret)}
        ], role_id
        actions = actions_for_role(agent_stack, role_id)
        assert {a for a in actions if a.startswith("secretsmanager:")} == {"secretsmanager:GetSecretValue"}
        assert not {a for a in actions if a.startswith("ses:")}, role_id
    for role_id in agent_stack.of_type("AWS::IAM::Role"):
        if role_id == review_role or role_id in readers:
            continue
        actions = actions_for_role(agent_stack, role_id)
        assert not {a for a in actions if a.startswith("ses:") or a.startswith("secretsmanager:")}, role_id


# What each function's code calls (multitool.ports.*, multitool.chat.sessions, Powertools idempotency):
# a draft is written with a conditional PutItem (TransactWriteItems of Puts for several) and read back
# with GetItem; names and busy times are BatchGetItem; a confirm replaces a draft with a conditional
# PutItem and books with a consistent BatchGetItem then TransactWriteItems (Put + Delete, conditioned on
# versions), releasing with the same; a session is one UpdateItem, read back with GetItem; Powertools'
# DynamoDBPersistenceLayer gets, puts, updates and deletes its records.
TOOL_TABLE_ACTIONS = {
    "DRAFTS": {"dynamodb:PutItem", "dynamodb:GetItem"},
    "DIRECTORY": {"dynamodb:BatchGetItem"},
    "BOOKINGS": {"dynamodb:BatchGetItem"},
    "MAILBOX": {"dynamodb:Query"},  # the builtin mailbox: the caller's box, one Query per turn
}
CHAT_TABLE_ACTIONS = {
    "SESSIONS": {"dynamodb:UpdateItem", "dynamodb:GetItem"},
    "IDEMPOTENCY": {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"},
    "TURNS": {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:GetItem"},
    "LIMITS": {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"},  # token buckets, turn places
}
REVIEW_TABLE_ACTIONS = {
    "DRAFTS": {"dynamodb:GetItem", "dynamodb:PutItem"},
    "DIRECTORY": {"dynamodb:BatchGetItem"},
    "BOOKINGS": {"dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"},
    "LIMITS": {"dynamodb:UpdateItem", "dynamodb:GetItem", "dynamodb:PutItem"},
    "AUDIT": {"dynamodb:PutItem"},
    # The builtin mailbox: the message read again, the answer's draft item written, its send claimed and
    # marked (conditional UpdateItems), the sent answer kept in each box.
    "MAILBOX": {"dynamodb:Query", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"},
}


def expected_table_actions(synth: Synthesized, by_name: dict[str, set[str]]) -> dict[str, set[str]]:
    from multitool.ports import tables

    return {
        synth.logical_id(synth.stack.tables[getattr(tables, name)]): actions
        for name, actions in by_name.items()
    }


def test_each_function_gets_exactly_the_dynamodb_actions_its_code_calls(agent_stack: Synthesized) -> None:
    def granted(construct_id: str) -> dict[str, set[str]]:
        return dynamodb_actions_by_table(
            agent_stack, role_of_function(agent_stack, function_id(agent_stack, construct_id))
        )

    for construct_id in ACTION_GROUP_CONSTRUCTS.values():
        assert granted(construct_id) == expected_table_actions(agent_stack, TOOL_TABLE_ACTIONS), construct_id
    assert granted("Orchestrator") == expected_table_actions(agent_stack, CHAT_TABLE_ACTIONS)
    assert granted("Review") == expected_table_actions(agent_stack, REVIEW_TABLE_ACTIONS)


def test_the_review_function_reads_only_the_jira_secret_value(agent_stack: Synthesized) -> None:
    review_role = role_of_function(agent_stack, function_id(agent_stack, "Review"))
    secret_actions = {
        a for a in actions_for_role(agent_stack, review_role) if a.startswith("secretsmanager:")
    }
    assert secret_actions == {"secretsmanager:GetSecretValue"}


def test_only_the_orchestrator_reaches_the_idempotency_table(agent_stack: Synthesized) -> None:
    from multitool.ports.tables import IDEMPOTENCY

    table_id = agent_stack.logical_id(agent_stack.stack.tables[IDEMPOTENCY])

    def reaches_table(construct_id: str) -> bool:
        role_id = role_of_function(agent_stack, function_id(agent_stack, construct_id))
        return any(table_id in json.dumps(s["Resource"]) for s in statements_for_role(agent_stack, role_id))

    assert reaches_table("Orchestrator")
    assert IDEMPOTENCY.env_var in _env(agent_stack, "Orchestrator")
    for construct_id in ("Review", *ACTION_GROUP_CONSTRUCTS.values()):
        assert not reaches_table(construct_id), construct_id
        assert IDEMPOTENCY.env_var not in _env(agent_stack, construct_id), construct_id


def test_sender_identity_and_jira_secret_come_from_context_without_a_real_value(
    agent_stack: Synthesized,
) -> None:
    agent_stack.template.has_resource_properties("AWS::SES::EmailIdentity", {"EmailIdentity": SENDER})
    secrets = agent_stack.of_type("AWS::SecretsManager::Secret").values()
    assert len(secrets) == 2  # the account that writes (the review's) and the one that reads
    for secret in secrets:
        generated = secret["Properties"]["GenerateSecretString"]
        assert generated["GenerateStringKey"] == "apiToken"
        assert set(json.loads(generated["SecretStringTemplate"])) == {"baseUrl", "email"}
        assert "SecretString" not in secret["Properties"]


# --- the agent ------------------------------------------------------------------------------------


def _agent_props(synth: Synthesized) -> dict[str, Any]:
    (agent,) = synth.of_type("AWS::Bedrock::Agent").values()
    props: dict[str, Any] = agent["Properties"]
    return props


def test_agent_runs_the_context_model_with_the_prompt_contract(agent_stack: Synthesized) -> None:
    props = _agent_props(agent_stack)
    assert props["FoundationModel"] == FOUNDATION_MODEL
    assert props["Instruction"] == AGENT_INSTRUCTION
    assert props["IdleSessionTTLInSeconds"] == 600
    assert props["AutoPrepare"] is True
    # Bedrock's own constraints: a generated name in its pattern, instructions of 40+ characters.
    assert re.fullmatch(r"([0-9a-zA-Z][_-]?){1,100}", props["AgentName"])
    assert len(props["Instruction"]) >= 40
    assert "GuardrailConfiguration" not in props


def test_each_action_group_schema_equals_the_committed_document(agent_stack: Synthesized) -> None:
    groups = {g["ActionGroupName"]: g for g in _agent_props(agent_stack)["ActionGroups"]}
    assert set(groups) == {spec.name for spec in action_groups()}
    for spec in action_groups():
        committed = json.loads(spec.schema_path.read_text(encoding="utf-8"))
        assert json.loads(groups[spec.name]["ApiSchema"]["Payload"]) == committed
        assert groups[spec.name]["ActionGroupState"] == "ENABLED"


def test_each_action_group_has_its_own_lambda_executor_invokable_only_by_the_agent(
    agent_stack: Synthesized,
) -> None:
    groups = {g["ActionGroupName"]: g for g in _agent_props(agent_stack)["ActionGroups"]}
    agent = agent_stack.stack.agent
    assert agent is not None
    agent_id = agent_stack.logical_id(agent.agent)
    permissions = agent_stack.of_type("AWS::Lambda::Permission").values()
    executors = set()
    for name, construct_id in ACTION_GROUP_CONSTRUCTS.items():
        fn = function_id(agent_stack, construct_id)
        assert groups[name]["ActionGroupExecutor"] == {"Lambda": {"Fn::GetAtt": [fn, "Arn"]}}
        executors.add(fn)
        grants = [
            p["Properties"]
            for p in permissions
            if p["Properties"]["FunctionName"] == {"Fn::GetAtt": [fn, "Arn"]}
        ]
        assert grants == [
            {
                "Action": "lambda:InvokeFunction",
                "FunctionName": {"Fn::GetAtt": [fn, "Arn"]},
                "Principal": "bedrock.amazonaws.com",
                "SourceAccount": "123456789012",
                "SourceArn": {"Fn::GetAtt": [agent_id, "AgentArn"]},
            }
        ]
    assert len(executors) == len(ACTION_GROUP_CONSTRUCTS)


def test_agent_service_role_trusts_only_this_accounts_agents_and_invokes_only_the_model(
    agent_stack: Synthesized,
) -> None:
    agent = agent_stack.stack.agent
    assert agent is not None
    role_id = agent_stack.logical_id(agent.role)
    (trust,) = agent_stack.props(role_id)["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "bedrock.amazonaws.com"}
    assert trust["Condition"]["StringEquals"] == {"aws:SourceAccount": "123456789012"}
    assert (
        trust["Condition"]["ArnLike"]["aws:SourceArn"]["Fn::Join"][1][-1]
        == ":bedrock:us-east-1:123456789012:agent/*"
    )
    assert actions_for_role(agent_stack, role_id) == {
        "bedrock:InvokeModel",
        "bedrock:InvokeModelWithResponseStream",
    }
    (model_arn,) = resources_for_action(agent_stack, role_id, "bedrock:InvokeModel")
    model = FOUNDATION_MODEL
    assert model_arn["Fn::Join"][1][-1] == f":bedrock:us-east-1::foundation-model/{model}"


def test_alias_description_follows_the_agent_configuration(agent_stack: Synthesized) -> None:
    from infra.components.agent import agent_fingerprint

    (alias,) = agent_stack.of_type("AWS::Bedrock::AgentAlias").values()
    agent = agent_stack.stack.agent
    assert agent is not None
    assert alias["Properties"]["AgentId"] == {"Fn::GetAtt": [agent_stack.logical_id(agent.agent), "AgentId"]}
    assert "RoutingConfiguration" not in alias["Properties"]  # Bedrock makes a new version on each update
    groups = [(s.name, s.schema_text(), False) for s in action_groups()]
    model = FOUNDATION_MODEL
    expected = agent_fingerprint(model, AGENT_INSTRUCTION, groups, 600, None, "DRAFT")
    assert alias["Properties"]["Description"].endswith(expected)
    changed = agent_fingerprint(model, AGENT_INSTRUCTION + " Be brief.", groups, 600, None, "DRAFT")
    assert changed != expected


# --- the API --------------------------------------------------------------------------------------


def test_every_route_requires_the_cognito_jwt(agent_stack: Synthesized) -> None:
    (authorizer_id, authorizer) = next(iter(agent_stack.of_type("AWS::ApiGatewayV2::Authorizer").items()))
    props = authorizer["Properties"]
    assert props["AuthorizerType"] == "JWT"
    pool = agent_stack.logical_id(agent_stack.stack.users.user_pool)
    assert props["JwtConfiguration"]["Issuer"]["Fn::Join"][1] == [
        "https://cognito-idp.us-east-1.amazonaws.com/",
        {"Ref": pool},
    ]
    # The page's client and the command line's own (multitool login): no other client's tokens
    users = agent_stack.stack.users
    assert users.cli_client is not None
    assert props["JwtConfiguration"]["Audience"] == [
        {"Ref": agent_stack.logical_id(users.client)},
        {"Ref": agent_stack.logical_id(users.cli_client)},
    ]
    routes = agent_stack.of_type("AWS::ApiGatewayV2::Route").values()
    keys = {r["Properties"]["RouteKey"] for r in routes}
    assert keys == ROUTE_KEYS
    for route in routes:
        assert route["Properties"]["AuthorizationType"] == "JWT"
        assert route["Properties"]["AuthorizerId"] == {"Ref": authorizer_id}


def test_routes_reach_the_right_function(agent_stack: Synthesized) -> None:
    integrations = agent_stack.of_type("AWS::ApiGatewayV2::Integration")
    expected = {
        "POST /chat": "Orchestrator",
        "GET /turns/{id}": "Orchestrator",
        "GET /sessions/{id}": "Orchestrator",
    }
    for route in agent_stack.of_type("AWS::ApiGatewayV2::Route").values():
        key = route["Properties"]["RouteKey"]
        integration_id = route["Properties"]["Target"]["Fn::Join"][1][1]["Ref"]
        target = integrations[integration_id]["Properties"]["IntegrationUri"]
        assert target == {"Fn::GetAtt": [function_id(agent_stack, expected.get(key, "Review")), "Arn"]}


def test_cors_throttling_and_access_logs(agent_stack: Synthesized) -> None:
    agent_stack.template.has_resource_properties(
        "AWS::ApiGatewayV2::Api",
        {
            "CorsConfiguration": Match.object_like(
                {"AllowOrigins": [Match.any_value()]}  # the page's origin alone: no localhost unless asked
            )
        },
    )
    (api,) = agent_stack.of_type("AWS::ApiGatewayV2::Api").values()
    # The page sends Idempotency-Key with every /chat; the preflight must allow it.
    assert "idempotency-key" in api["Properties"]["CorsConfiguration"]["AllowHeaders"]
    (stage,) = agent_stack.of_type("AWS::ApiGatewayV2::Stage").values()
    props = stage["Properties"]
    assert props["StageName"] == "$default"
    assert props["DefaultRouteSettings"] == {"ThrottlingBurstLimit": 20, "ThrottlingRateLimit": 10}
    access_log = json.loads(props["AccessLogSettings"]["Format"])
    assert {"requestId", "routeKey", "status"} <= set(access_log)
    # the one claim logged is the caller's sub (an opaque id): no address, no other claim
    assert access_log["sub"] == "$context.authorizer.claims.sub"
    assert not any("body" in v.lower() or "claims" in v for k, v in access_log.items() if k != "sub")


def test_user_pool_is_admin_managed_with_a_strong_password_policy(agent_stack: Synthesized) -> None:
    (pool,) = agent_stack.of_type("AWS::Cognito::UserPool").values()
    props = pool["Properties"]
    assert props["AdminCreateUserConfig"]["AllowAdminCreateUserOnly"] is True
    policy = props["Policies"]["PasswordPolicy"]
    assert policy["MinimumLength"] >= 8
    assert all(
        policy[k] for k in ("RequireLowercase", "RequireUppercase", "RequireNumbers", "RequireSymbols")
    )
    for client in agent_stack.of_type("AWS::Cognito::UserPoolClient").values():  # the page's, the CLI's
        assert "GenerateSecret" not in client["Properties"] or client["Properties"]["GenerateSecret"] is False


# --- outputs --------------------------------------------------------------------------------------


def test_outputs_have_stable_logical_ids(agent_stack: Synthesized) -> None:
    outputs = agent_stack.data["Outputs"]
    expected = {
        "ApiUrl",
        "AgentId",
        "AgentAliasId",
        "UserPoolId",
        "UserPoolClientId",
        "JiraSecretArn",
        "JiraReaderSecretArn",
    }
    expected |= {"WebUrl", "SignInDomain", "CliClientId"}
    # operating the stack
    expected |= {"AlarmTopicArn", "DashboardName", "FailedTurnsQueueUrl", "UndoDeadLettersQueueUrl"}
    expected |= {f"{spec.logical_name}TableName" for spec in ALL_TABLES}
    assert set(outputs) == expected
    agent = agent_stack.stack.agent
    assert agent is not None
    assert outputs["AgentAliasId"]["Value"] == {
        "Fn::GetAtt": [agent_stack.logical_id(agent.alias), "AgentAliasId"]
    }
    for spec in ALL_TABLES:
        table = agent_stack.logical_id(agent_stack.stack.tables[spec])
        assert outputs[f"{spec.logical_name}TableName"]["Value"] == {"Ref": table}
