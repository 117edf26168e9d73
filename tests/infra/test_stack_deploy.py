"""A first deploy in a new account and a stack a team can run: every context key reaches the template,
nothing is reserved by default, kept data survives a deletion but not a failed first create, several
copies fit one account, and the harness's log group cannot collide with one the service made."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from infra.context import ALLOWED, CONTEXT_KEYS, DeployContext
from tests.infra.conftest import EXISTING_CLIENT, EXISTING_POOL, PROFILE_MODEL
from tests.infra.iam_queries import actions_for_role, function_id, resources_for_action, role_of_function
from tests.infra.synth import Synthesized
from tests.support.synths import StackSynths

pytestmark = pytest.mark.infra

SES_SENDER = "deploy@example.org"
MCP_CALLBACK = "https://mcp.example.org/callback"
M365_CLIENT = "3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
GOOGLE_CLIENT = "1234-abc.apps.googleusercontent.com"
GOOGLE_ACCOUNT = "calendar-bot@team-project.iam.gserviceaccount.com"
GOOGLE_KEY = "0123456789abcdef0123456789abcdef01234567"

# Four deploys that between them give every context key a value other than its default.
GROUPS: dict[str, dict[str, str]] = {
    "gateway": {
        "stackName": "MultitoolAll",
        "alarmEmail": "oncall@example.org",
        "executor": "gateway",
        "modelId": PROFILE_MODEL,
        "marketplaceProductId": "prod-abc123xyz",
        "senderEmail": SES_SENDER,
        "sesConfigurationSet": "team-mail",
        "userPoolEmail": "ses",
        "webOrigin": "https://chat.example.org",
        "authDomainPrefix": "team-chat-dev",
        "selfSignUp": "true",
        "localSignInOrigin": "http://localhost:8123",
        "idleSessionTtlSeconds": "901",
        "logRetentionDays": "14",
        "throttleRateLimit": "17",
        "throttleBurstLimit": "33",
        "sandbox": "true",
        "customerManagedKey": "true",
        "defaultTimezone": "Europe/Berlin",
        "jiraProjects": '{"OPS": {"name": "Operations", "issueTypes": ["Task"]}}',
        "orchestratorConcurrency": "21",
        "reviewConcurrency": "11",
        "orchestratorMemory": "2048",
        "reviewMemory": "768",
        "runningTurnsPerUser": "4",
        "dailyTokenAlarm": "1234567",
        "auditRetentionDays": "90",
        "undoSeconds": "25",
        "recipientDomains": "example.org",
        "mcpCallbackUrls": MCP_CALLBACK,
        "outsideRecipients": "off",
        "recipientsPerDay": "77",
        "outsideRecipientsPerDay": "7",
        "jiraAuth": "user",
        "jiraClientId": "atlassian-app-1",
        "jiraSiteUrl": "https://team.atlassian.net",
    },
    "agent": {
        "runtime": "agent",
        "modelId": PROFILE_MODEL,
        "guardrailId": "gr0team42",
        "guardrailVersion": "5",
        "userPoolId": EXISTING_POOL,
        "userPoolClientId": EXISTING_CLIENT,
        "userPoolDomain": "https://auth.example.org",
        "createSenderIdentity": "false",
        "calendar": "microsoft365",
        "microsoft365AppCredential": "true",
        "slack": "true",
    },
    "google": {
        "runtime": "converse",
        "modelId": "anthropic.claude-3-5-sonnet-20241022-v2:0",
        "calendar": "google",
        "identityClientId": GOOGLE_CLIENT,
        "googleDelegation": GOOGLE_ACCOUNT,
        "googleDelegationKeyId": GOOGLE_KEY,
    },
    "microsoft365": {
        "calendar": "microsoft365",
        "identity": "microsoft365",
        "identityClientId": M365_CLIENT,
        "identityTenantId": "contoso.onmicrosoft.com",
    },
}


def _env(synth: Synthesized, construct_id: str) -> dict[str, Any]:
    variables: dict[str, Any] = synth.props(function_id(synth, construct_id))["Environment"]["Variables"]
    return variables


def _props(synth: Synthesized, resource_type: str) -> list[dict[str, Any]]:
    return [r.get("Properties", {}) for r in synth.of_type(resource_type).values()]


def _text(synth: Synthesized) -> str:
    return json.dumps(synth.data)


def _env_is(construct_id: str, key: str, value: str) -> Callable[[Synthesized], bool]:
    return lambda s: _env(s, construct_id).get(key) == value


def _has(needle: str) -> Callable[[Synthesized], bool]:
    return lambda s: needle in _text(s)


def _pool(synth: Synthesized) -> dict[str, Any]:
    pools = _props(synth, "AWS::Cognito::UserPool")
    return pools[0] if pools else {}


def _api_throttle(synth: Synthesized, key: str) -> Any:
    (stage,) = _props(synth, "AWS::ApiGatewayV2::Stage")
    return stage.get("DefaultRouteSettings", {}).get(key)


# Each key: the deploy that sets it, and what its template then holds that the default deploy's does not.
REACHES: dict[str, tuple[str, Callable[[Synthesized], bool]]] = {
    "stackName": ("gateway", lambda s: s.stack.stack_name == "MultitoolAll"),
    "runtime": ("agent", lambda s: bool(s.of_type("AWS::Bedrock::Agent"))),
    "executor": ("gateway", lambda s: bool(s.of_type("AWS::BedrockAgentCore::Gateway"))),
    "modelId": ("gateway", _env_is("Orchestrator", "MODEL_ID", PROFILE_MODEL)),
    "marketplaceProductId": ("gateway", _has("prod-abc123xyz")),
    "senderEmail": ("gateway", _env_is("Review", "SENDER_EMAIL", SES_SENDER)),
    "sesConfigurationSet": ("gateway", _env_is("Review", "SES_CONFIGURATION_SET", "team-mail")),
    "createSenderIdentity": ("agent", lambda s: not s.of_type("AWS::SES::EmailIdentity")),
    "guardrailId": ("agent", _has("gr0team42")),
    "guardrailVersion": (
        "agent",
        lambda s: (
            [a["GuardrailConfiguration"]["GuardrailVersion"] for a in _props(s, "AWS::Bedrock::Agent")]
            == ["5"]
        ),
    ),
    "webOrigin": ("gateway", _has("https://chat.example.org")),
    "userPoolId": ("agent", _has(EXISTING_POOL)),
    "userPoolClientId": ("agent", _has(EXISTING_CLIENT)),
    "userPoolDomain": ("agent", _has("https://auth.example.org")),
    "authDomainPrefix": (
        "gateway",
        lambda s: [d["Domain"] for d in _props(s, "AWS::Cognito::UserPoolDomain")] == ["team-chat-dev"],
    ),
    "userPoolEmail": (
        "gateway",
        lambda s: _pool(s).get("EmailConfiguration", {}).get("EmailSendingAccount") == "DEVELOPER",
    ),
    "selfSignUp": (
        "gateway",
        lambda s: _pool(s)["AdminCreateUserConfig"]["AllowAdminCreateUserOnly"] is False,
    ),
    "localSignInOrigin": ("gateway", _has("http://localhost:8123")),
    "idleSessionTtlSeconds": ("gateway", _has('"IdleRuntimeSessionTimeout": 901')),
    "logRetentionDays": (
        "gateway",
        lambda s: {g.get("RetentionInDays") for g in _props(s, "AWS::Logs::LogGroup")} == {14},
    ),
    "throttleRateLimit": ("gateway", lambda s: _api_throttle(s, "ThrottlingRateLimit") == 17),
    "throttleBurstLimit": ("gateway", lambda s: _api_throttle(s, "ThrottlingBurstLimit") == 33),
    "sandbox": ("gateway", _env_is("Review", "SANDBOX", "true")),
    # The default deploy has a key too (the alarm topic's own): the tables under a key of the stack's
    "customerManagedKey": (
        "gateway",
        lambda s: all(
            "KMSMasterKeyId" in t.get("SSESpecification", {}) for t in _props(s, "AWS::DynamoDB::Table")
        ),
    ),
    "alarmEmail": (
        "gateway",
        lambda s: (
            [(p["Protocol"], p["Endpoint"]) for p in _props(s, "AWS::SNS::Subscription")]
            == [("email", "oncall@example.org")]
        ),
    ),
    "defaultTimezone": ("gateway", _env_is("Review", "DEFAULT_TIMEZONE", "Europe/Berlin")),
    "jiraProjects": ("gateway", lambda s: "OPS" in _env(s, "Review").get("JIRA_PROJECTS", "")),
    "orchestratorConcurrency": (
        "gateway",
        lambda s: s.props(function_id(s, "Orchestrator")).get("ReservedConcurrentExecutions") == 21,
    ),
    "reviewConcurrency": (
        "gateway",
        lambda s: s.props(function_id(s, "Review")).get("ReservedConcurrentExecutions") == 11,
    ),
    "orchestratorMemory": (
        "gateway",
        lambda s: s.props(function_id(s, "Orchestrator"))["MemorySize"] == 2048,
    ),
    "reviewMemory": ("gateway", lambda s: s.props(function_id(s, "Review"))["MemorySize"] == 768),
    "runningTurnsPerUser": ("gateway", _env_is("Orchestrator", "RUNNING_TURNS_PER_USER", "4")),
    "dailyTokenAlarm": (
        "gateway",
        lambda s: 1234567 in {a.get("Threshold") for a in _props(s, "AWS::CloudWatch::Alarm")},
    ),
    "auditRetentionDays": ("gateway", _env_is("Review", "AUDIT_RETENTION_DAYS", "90")),
    "undoSeconds": ("gateway", _env_is("Review", "UNDO_SECONDS", "25")),
    "recipientDomains": ("gateway", _env_is("Review", "RECIPIENT_DOMAINS", "example.org")),
    "mcpCallbackUrls": (
        "gateway",
        lambda s: (
            [MCP_CALLBACK] in [c.get("CallbackURLs") for c in _props(s, "AWS::Cognito::UserPoolClient")]
        ),
    ),
    "outsideRecipients": ("gateway", _env_is("Review", "OUTSIDE_RECIPIENTS", "off")),
    "recipientsPerDay": ("gateway", _env_is("Review", "RECIPIENTS_PER_DAY", "77")),
    "outsideRecipientsPerDay": ("gateway", _env_is("Review", "OUTSIDE_RECIPIENTS_PER_DAY", "7")),
    "calendar": ("agent", _env_is("Review", "CALENDAR", "microsoft365")),
    "microsoft365AppCredential": ("agent", lambda s: "Microsoft365CredentialArn" in s.data["Outputs"]),
    "googleDelegation": ("google", _env_is("Review", "GOOGLE_DELEGATION_SERVICE_ACCOUNT", GOOGLE_ACCOUNT)),
    "googleDelegationKeyId": ("google", _env_is("Review", "GOOGLE_DELEGATION_KEY_ID", GOOGLE_KEY)),
    "identity": ("microsoft365", lambda s: "IdentityCallbackUrl" in s.data["Outputs"]),
    "identityClientId": ("microsoft365", _has(M365_CLIENT)),
    "identityTenantId": ("microsoft365", _has("contoso.onmicrosoft.com")),
    "jiraAuth": ("gateway", _env_is("Review", "JIRA_AUTH", "user")),
    "jiraClientId": ("gateway", _has("atlassian-app-1")),
    "jiraSiteUrl": ("gateway", _env_is("Review", "JIRA_SITE_URL", "https://team.atlassian.net")),
    "slack": ("agent", lambda s: "SlackRequestUrl" in s.data["Outputs"]),
}


def test_the_app_reads_every_field_of_the_context_model_and_says_what_each_accepts() -> None:
    fields = {field.alias or name for name, field in DeployContext.model_fields.items()}
    assert set(CONTEXT_KEYS) == fields
    assert set(ALLOWED) == fields
    assert "mcpCallbackUrls" in CONTEXT_KEYS


def test_each_group_gives_every_key_it_names_a_value_other_than_its_default() -> None:
    fields = {field.alias or name: field for name, field in DeployContext.model_fields.items()}
    assert set(REACHES) == set(fields)  # a new field needs its line here
    for key, (group, _) in REACHES.items():
        assert key in GROUPS[group], key
        settings = DeployContext.from_context({"senderEmail": SES_SENDER, **GROUPS[group]})
        name = next(n for n, f in DeployContext.model_fields.items() if (f.alias or n) == key)
        assert getattr(settings, name) != fields[key].get_default(call_default_factory=True), key


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_every_context_key_given_on_the_command_line_reaches_the_template(
    synths: StackSynths, harness_stack: Synthesized, group: str
) -> None:
    # Given a deploy through build_app with each of its keys set as `cdk deploy -c key=value` sets it
    synth = synths.get(**GROUPS[group])
    keys = [key for key, (owner, _) in REACHES.items() if owner == group]
    assert keys
    for key in keys:
        reached = REACHES[key][1]
        # Then its template holds the value, which the default deploy's does not
        assert reached(synth), f"-c {key}={GROUPS[group][key]} did not reach the template"
        assert not reached(harness_stack), f"{key}: the default deploy already looks like this"


def test_the_default_deploy_reserves_no_concurrency_so_a_new_accounts_quota_of_10_holds_it(
    harness_stack: Synthesized,
) -> None:
    reserved = {
        logical_id: function["Properties"].get("ReservedConcurrentExecutions")
        for logical_id, function in harness_stack.of_type("AWS::Lambda::Function").items()
    }
    assert set(reserved.values()) == {None}, reserved


def test_data_that_must_survive_is_retained_except_when_a_first_create_rolls_back(
    synths: StackSynths, harness_stack: Synthesized
) -> None:
    keyed = synths.get(**GROUPS["gateway"])
    google = synths.get(**GROUPS["google"])
    kept = {
        (synth_name, logical_id): resource["Type"]
        for synth_name, synth in (("default", harness_stack), ("keyed", keyed), ("google", google))
        for logical_id, resource in synth.resources.items()
        if resource["Type"]
        in ("AWS::DynamoDB::Table", "AWS::Cognito::UserPool", "AWS::S3::Bucket", "AWS::KMS::Key")
        # The alarm topic's own key (a deploy without customerManagedKey) encrypts no stored data,
        # only alarms in flight: it goes with the stack (infra.components.operations).
        and not logical_id.startswith("OperationsKey")
    }
    assert set(kept.values()) == {
        "AWS::DynamoDB::Table",
        "AWS::Cognito::UserPool",
        "AWS::S3::Bucket",
        "AWS::KMS::Key",
    }
    for (synth_name, logical_id), _ in kept.items():
        synth = {"default": harness_stack, "keyed": keyed, "google": google}[synth_name]
        resource = synth.resources[logical_id]
        assert resource["DeletionPolicy"] == "RetainExceptOnCreate", (synth_name, logical_id)
        assert resource["UpdateReplacePolicy"] == "Retain", (synth_name, logical_id)


# Properties that name a resource in the account or region. One a template leaves out, CloudFormation
# generates from the stack's name; one it sets must not be the same in two copies.
PHYSICAL_NAMES = (
    "TableName",
    "FunctionName",
    "RoleName",
    "LogGroupName",
    "BucketName",
    "Name",
    "HarnessName",
    "ConfigurationSetName",
    "Domain",
)


# Names an account may hold twice: an HTTP API's is a label (its id is unique), an authorizer's is
# unique within its own API.
SHARED_NAMES = ("AWS::ApiGatewayV2::Api", "AWS::ApiGatewayV2::Authorizer")


def _fixed_names(synth: Synthesized) -> dict[str, str]:
    """Each set name that refers to nothing of its own stack (no Ref, GetAtt or stack id): the same
    value in two copies would be the same resource."""
    names = {}
    for logical_id, resource in synth.resources.items():
        if resource["Type"] in SHARED_NAMES:
            continue
        properties = resource.get("Properties", {})
        for key in PHYSICAL_NAMES:
            value = json.dumps(properties.get(key))
            if key in properties and not any(word in value for word in ('"Ref"', "Fn::GetAtt")):
                names[f"{logical_id}.{key}"] = value
    return names


def test_two_copies_synthesize_side_by_side_with_no_physical_name_in_common(
    synths: StackSynths, harness_stack: Synthesized
) -> None:
    # Given the default stack and a second copy named on the command line
    dev = synths.get(stackName="MultitoolDev")
    assert (harness_stack.stack.stack_name, dev.stack.stack_name) == ("Multitool", "MultitoolDev")
    assert (harness_stack.assembly_dir / "Multitool.template.json").is_file()
    assert (dev.assembly_dir / "MultitoolDev.template.json").is_file()
    # Then the same resources, and every name either template sets itself differs between them
    assert harness_stack.resources.keys() == dev.resources.keys()
    ours, theirs = _fixed_names(harness_stack), _fixed_names(dev)
    assert ours  # the harness, the page's policies ... set their names
    assert ours.keys() == theirs.keys()
    assert {key for key in ours if ours[key] == theirs[key]} == set()


def test_a_stack_name_cloudformation_refuses_is_refused_at_synth() -> None:
    from infra.context import ContextError

    with pytest.raises(ContextError, match="Invalid context 'stackName'"):
        DeployContext.from_context({"senderEmail": SES_SENDER, "stackName": "9multitool"})


def test_cognitos_own_sender_is_the_default_and_ses_mails_from_the_stacks_sender(
    synths: StackSynths, harness_stack: Synthesized
) -> None:
    assert "EmailConfiguration" not in _pool(harness_stack)  # COGNITO_DEFAULT: 50 emails a day
    ses = synths.get(**GROUPS["gateway"])
    config = _pool(ses)["EmailConfiguration"]
    assert config["EmailSendingAccount"] == "DEVELOPER"
    assert config["From"] == SES_SENDER
    assert config["ConfigurationSet"] == "team-mail"
    assert config["SourceArn"] == {
        "Fn::Join": [
            "",
            ["arn:", {"Ref": "AWS::Partition"}, f":ses:us-east-1:123456789012:identity/{SES_SENDER}"],
        ]
    }
    # the identity exists before the pool names it
    (identity_id,) = ses.of_type("AWS::SES::EmailIdentity")
    (pool_id,) = ses.of_type("AWS::Cognito::UserPool")
    assert identity_id in ses.resources[pool_id]["DependsOn"]


def test_ses_as_the_pools_sender_needs_a_pool_of_this_stack() -> None:
    from infra.context import ContextError

    with pytest.raises(ContextError, match="Invalid context 'userPoolEmail'"):
        DeployContext.from_context(
            {
                "senderEmail": SES_SENDER,
                "userPoolEmail": "ses",
                "userPoolId": EXISTING_POOL,
                "userPoolClientId": EXISTING_CLIENT,
            }
        )


def test_the_harness_runtime_log_group_is_never_created_as_a_stack_resource(
    harness_stack: Synthesized,
) -> None:
    harness = harness_stack.stack.harness
    assert harness is not None
    harness_id = harness_stack.logical_id(harness.harness)
    name = {
        "Fn::Join": [
            "",
            [
                "/aws/bedrock-agentcore/runtimes/",
                {"Fn::GetAtt": [harness_id, "Environment.AgentCoreRuntimeEnvironment.AgentRuntimeId"]},
                "-DEFAULT",
            ],
        ]
    }
    # no AWS::Logs::LogGroup of that name (its create would fail if the service made the group first)
    assert name not in [g.get("LogGroupName") for g in _props(harness_stack, "AWS::Logs::LogGroup")]
    # its retention is set by LogRetention, which creates the group only when it is missing
    ((retention_id, retention),) = harness_stack.of_type("Custom::LogRetention").items()
    assert retention["Properties"]["LogGroupName"] == name
    assert retention["Properties"]["RetentionInDays"] == 30
    assert retention["Properties"]["RemovalPolicy"] == "destroy"
    # the role may write logs only once the retention is set
    log_policy = harness_stack.logical_id(harness.log_policy)
    assert retention_id in harness_stack.resources[log_policy]["DependsOn"]


def test_with_a_customer_managed_key_the_runtime_log_group_is_put_under_it(synths: StackSynths) -> None:
    keyed = synths.get(**GROUPS["gateway"])
    harness = keyed.stack.harness
    assert harness is not None
    ((key_id, _),) = keyed.of_type("AWS::KMS::Key").items()
    (associate,) = [
        r for r in keyed.of_type("Custom::AWS").values() if "associateKmsKey" in json.dumps(r["Properties"])
    ]
    call = json.dumps(associate["Properties"]["Create"])
    assert "CloudWatchLogs" in call
    assert key_id in call
    assert "-DEFAULT" in call
    retention_id = keyed.logical_id(harness.log_retention.node.default_child)
    assert retention_id in json.dumps(associate.get("DependsOn", []))


def test_the_page_deployment_invalidates_only_this_distribution(harness_stack: Synthesized) -> None:
    (distribution_id,) = harness_stack.of_type("AWS::CloudFront::Distribution")
    arn = {
        "Fn::Join": [
            "",
            [
                "arn:",
                {"Ref": "AWS::Partition"},
                ":cloudfront::123456789012:distribution/",
                {"Ref": distribution_id},
            ],
        ]
    }
    seen = 0
    for role in harness_stack.of_type("AWS::IAM::Role"):
        for action in ("cloudfront:CreateInvalidation", "cloudfront:GetInvalidation"):
            for resource in resources_for_action(harness_stack, role, action):
                assert resource == arn, (role, action, resource)
                seen += 1
    assert seen == 2


def test_the_default_certificate_gets_no_minimum_protocol_version(harness_stack: Synthesized) -> None:
    (distribution,) = _props(harness_stack, "AWS::CloudFront::Distribution")
    assert "ViewerCertificate" not in distribution["DistributionConfig"]


def test_only_the_classic_agent_may_read_its_inference_profile(
    harness_stack: Synthesized, synths: StackSynths
) -> None:
    harness = harness_stack.stack.harness
    assert harness is not None
    assert "bedrock:GetInferenceProfile" not in actions_for_role(
        harness_stack, harness_stack.logical_id(harness.role)
    )
    orchestrator = role_of_function(harness_stack, function_id(harness_stack, "Orchestrator"))
    assert "bedrock:GetInferenceProfile" not in actions_for_role(harness_stack, orchestrator)
    agent = synths.get(**GROUPS["agent"])
    assert agent.stack.agent is not None
    agent_role = agent.logical_id(agent.stack.agent.role)
    assert "bedrock:GetInferenceProfile" in actions_for_role(agent, agent_role)


# The module each infra dependency is imported as.
INFRA_MODULES = {
    "aws-cdk-lib": "aws_cdk",
    "constructs": "constructs",
    "cdk-nag": "cdk_nag",
    "cfn-lint": "cfnlint",
}


def test_every_infra_dependency_is_imported_by_the_infra_or_its_tests() -> None:
    import re
    import tomllib

    from infra.paths import ROOT

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["infra"]
    names = [re.split(r"[<>=!~\[ ]", requirement, maxsplit=1)[0] for requirement in extras]
    assert set(names) == set(INFRA_MODULES), names  # aws-cdk.aws-bedrock-alpha is gone: nothing imported it
    sources = "\n".join(
        path.read_text(encoding="utf-8")
        for folder in ("infra", "tests")
        for path in (ROOT / folder).rglob("*.py")
    )
    for name in names:
        module = INFRA_MODULES[name]
        assert re.search(rf"^\s*(from|import) {module}\b", sources, re.MULTILINE), name


# The feature flags cdk.json set before the others: each of them shapes the deployed template.
SHAPING_FLAGS = (
    "@aws-cdk/aws-lambda:recognizeLayerVersion",
    "@aws-cdk/core:checkSecretUsage",
    "@aws-cdk/aws-iam:minimizePolicies",
)


def test_the_other_feature_flags_in_cdk_json_change_nothing_deployed(
    synths: StackSynths, harness_stack: Synthesized
) -> None:
    from tests.infra.synth import cdk_json_context

    # Given cdk.json's recommended flags (set with `cdk flags --safe`, less three that do change the
    # template: enablePartitionLiterals, useCdkManagedLogGroup, annotationsInValidationReport)
    flags = [key for key in cdk_json_context() if key.startswith("@") and key not in SHAPING_FLAGS]
    assert len(flags) > 90
    for changing in ("enablePartitionLiterals", "useCdkManagedLogGroup", "annotationsInValidationReport"):
        assert not [flag for flag in flags if flag.endswith(f":{changing}")], changing
    # When the default deploy is synthesized with each of them unset
    unset = synths.get(**dict.fromkeys(flags))
    # Then its template is the same
    assert unset.data["Resources"].keys() == harness_stack.data["Resources"].keys()
    for logical_id, resource in harness_stack.resources.items():
        if resource["Type"] != "AWS::CDK::Metadata":
            assert unset.resources[logical_id] == resource, logical_id
    assert unset.data["Outputs"] == harness_stack.data["Outputs"]


def test_each_copy_keeps_its_metrics_and_their_alarms_apart(
    synths: StackSynths, harness_stack: Synthesized
) -> None:
    # Given the default stack and a second copy in the same account
    dev = synths.get(stackName="MultitoolDev")

    def namespaces(synth: Synthesized) -> tuple[set[str], set[str]]:
        functions = synth.template.find_resources("AWS::Lambda::Function")
        emitted = {
            f["Properties"]["Environment"]["Variables"]["POWERTOOLS_METRICS_NAMESPACE"]
            for f in functions.values()
            if "POWERTOOLS_METRICS_NAMESPACE" in f["Properties"].get("Environment", {}).get("Variables", {})
        }
        alarms = synth.template.find_resources("AWS::CloudWatch::Alarm")
        watched = {a["Properties"]["Namespace"] for a in alarms.values() if "Namespace" in a["Properties"]}
        return emitted, watched

    # Then each copy's functions emit under its own name, and its alarms watch that namespace, not the other's
    ours, theirs = namespaces(harness_stack), namespaces(dev)
    assert ours[0] == {"Multitool"}
    assert theirs[0] == {"MultitoolDev"}
    assert "Multitool" in ours[1]
    assert "MultitoolDev" not in ours[1]
    assert "MultitoolDev" in theirs[1]
    assert "Multitool" not in theirs[1]
