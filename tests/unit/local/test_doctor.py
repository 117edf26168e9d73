"""`multitool doctor`: every outcome of every check, on real boto3 clients under botocore's Stubber.

The Stubber checks each request's parameters and each stubbed answer against botocore's service
model, so a check that sends a wrong request or reads a field the service does not return fails
here. An unreachable endpoint is the real botocore error, raised where the request would be sent.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore import xform_name
from botocore.config import Config
from botocore.exceptions import EndpointConnectionError
from botocore.stub import Stubber
from multitool.local import cli
from multitool.local.doctor.checkup import Doctor
from multitool.local.doctor.findings import (
    CLOSING_NOTES,
    DEFAULT_STACK,
    PROFILE_PREFIXES,
    Finding,
    Status,
    Target,
    deploy_defaults,
    exit_code,
    reserved_concurrency,
)
from multitool.ports.jira import PLACEHOLDER_CREDENTIALS

REGION = "us-east-1"
ACCOUNT = "123456789012"
MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0"
PROFILE = f"us.{MODEL}"
SENDER = "bot@example.com"
HARNESS_ID = "multitool_harness-AbCdE12345"
HARNESS_ARN = f"arn:aws:bedrock-agentcore:{REGION}:{ACCOUNT}:harness/{HARNESS_ID}"
GATEWAY_ID = "multitool-gateway-abcde12345"
GATEWAY_ARN = f"arn:aws:bedrock-agentcore:{REGION}:{ACCOUNT}:gateway/{GATEWAY_ID}"
RUNTIME_ARN = f"arn:aws:bedrock-agentcore:{REGION}:{ACCOUNT}:runtime/harness_rt-AbCdE12345"
SECRET_ARN = f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:JiraSecret-AbCdEf"
STACK_ID = f"arn:aws:cloudformation:{REGION}:{ACCOUNT}:stack/Multitool/0d1e2f30-0000-0000-0000-000000000000"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
SERVICES = (
    "sts",
    "bedrock",
    "lambda",
    "sesv2",
    "cloudformation",
    "bedrock-agentcore-control",
    "bedrock-agent",
    "secretsmanager",
    "service-quotas",
)
OUTPUTS = {
    "ApiUrl": "https://abc.execute-api.us-east-1.amazonaws.com/",
    "UserPoolId": "us-east-1_AbCdEf123",
    "UserPoolClientId": "1example23456789",
    "JiraSecretArn": SECRET_ARN,
    "HarnessArn": HARNESS_ARN,
}


# One session for the module: its loader reads each service model once.
SESSION = boto3.Session(region_name=REGION)
ONCE = Config(retries={"max_attempts": 1, "mode": "standard"})


class Account:
    """Real clients for the services the doctor calls, each with an active Stubber, made on first use."""

    def __init__(self) -> None:
        self.clients: dict[str, Any] = {}
        self.stubs: dict[str, Stubber] = {}

    def client_for(self, service: str) -> Any:
        if service not in self.clients:
            assert service in SERVICES, service
            self.clients[service] = SESSION.client(service, config=ONCE)  # type: ignore[call-overload]
            self.stubs[service] = Stubber(self.clients[service])
            self.stubs[service].activate()
        return self.clients[service]

    def stub(self, service: str) -> Stubber:
        self.client_for(service)
        return self.stubs[service]

    def answer(self, service: str, operation: str, params: dict[str, Any], response: dict[str, Any]) -> None:
        self.stub(service).add_response(xform_name(operation), response, params)

    def error(
        self,
        service: str,
        operation: str,
        params: dict[str, Any],
        code: str,
        status: int = 400,
        message: str = "",
    ) -> None:
        self.stub(service).add_client_error(
            xform_name(operation),
            service_error_code=code,
            service_message=message or code,
            http_status_code=status,
            expected_params=params,
        )

    def unreachable(self, service: str) -> None:
        """The service's endpoint does not answer (no such host in this region): botocore's own error."""
        self.stub(service).deactivate()

        def refuse(request: Any, **_: Any) -> None:
            raise EndpointConnectionError(endpoint_url=request.url)

        self.clients[service].meta.events.register("before-send", refuse)

    def assert_done(self) -> None:
        for stub in self.stubs.values():
            stub.assert_no_pending_responses()


@pytest.fixture
def account() -> Iterator[Account]:
    stubbed = Account()
    yield stubbed
    stubbed.assert_done()


def doctor(account: Account, **target: Any) -> Doctor:
    values: dict[str, Any] = {"region": REGION, "model_id": PROFILE, "sender_email": SENDER, **target}
    return Doctor(Target(**values), account.client_for, now=NOW)


def one(finding: Finding, status: Status, *words: str) -> None:
    assert finding.status is status, finding.line()
    for word in words:
        assert word in finding.line(), finding.line()
    if status is not Status.OK:
        assert finding.fix, finding.line()  # every problem names the step that fixes it
    assert_commands_exist(finding.line())


# The AWS CLI's own commands (not service operations) and its global options.
CLI_COMMANDS = {("configure", None), ("configure", "sso"), ("sso", "login")}
GLOBAL_OPTIONS = {"region", "query", "output", "profile"}


def assert_commands_exist(line: str) -> None:
    """Every `aws <service> <command> --<option>` a line tells the user to run is an operation of
    that service in botocore's model, with those parameters and every required one."""
    for command in re.findall(r"`(aws [^`]+)`", line):
        words = shlex.split(command)
        service, verb = words[1], words[2] if len(words) > 2 and not words[2].startswith("-") else None
        if (service, verb) in CLI_COMMANDS:
            continue
        model = SESSION._session.get_service_model(service)
        operations = {xform_name(name).replace("_", "-"): name for name in model.operation_names}
        assert verb in operations, f"{command}: no {verb} in {service}"
        shape = model.operation_model(operations[verb]).input_shape
        members = {name.lower(): name for name in (shape.members if shape else {})}
        given = {word[2:].replace("-", "").lower() for word in words if word.startswith("--")}
        unknown = given - set(members) - GLOBAL_OPTIONS
        assert not unknown, f"{command}: {service} {verb} has no {sorted(unknown)}"
        required = {name.lower() for name in (shape.required_members if shape else [])}
        assert required <= given, f"{command}: missing {sorted(required - given)}"


# -- shapes the services answer ----------------------------------------------------------------------


def model_details(status: str = "ACTIVE", **lifecycle: Any) -> dict[str, Any]:
    return {
        "modelDetails": {
            "modelArn": f"arn:aws:bedrock:{REGION}::foundation-model/{MODEL}",
            "modelId": MODEL,
            "modelName": "Claude Sonnet 4.5",
            "providerName": "Anthropic",
            "inputModalities": ["TEXT", "IMAGE"],
            "outputModalities": ["TEXT"],
            "responseStreamingSupported": True,
            "inferenceTypesSupported": ["INFERENCE_PROFILE"],
            "modelLifecycle": {"status": status, **lifecycle},
        }
    }


def availability(**fields: Any) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "modelId": MODEL,
        "agreementAvailability": {"status": "AVAILABLE"},
        "authorizationStatus": "AUTHORIZED",
        "entitlementAvailability": "AVAILABLE",
        "regionAvailability": "AVAILABLE",
    }
    answer.update(fields)
    return answer


def profile_answer() -> dict[str, Any]:
    return {
        "inferenceProfileName": "US Anthropic Claude Sonnet 4.5",
        "inferenceProfileArn": f"arn:aws:bedrock:{REGION}:{ACCOUNT}:inference-profile/{PROFILE}",
        "inferenceProfileId": PROFILE,
        "models": [
            {"modelArn": f"arn:aws:bedrock:{region}::foundation-model/{MODEL}"}
            for region in ("us-east-1", "us-east-2", "us-west-2")
        ],
        "status": "ACTIVE",
        "type": "SYSTEM_DEFINED",
    }


def identity(verified: bool, status: str, kind: str = "EMAIL_ADDRESS") -> dict[str, Any]:
    return {"IdentityType": kind, "VerifiedForSendingStatus": verified, "VerificationStatus": status}


def ses_account(production: bool = True, sending: bool = True, review: str | None = None) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "ProductionAccessEnabled": production,
        "SendingEnabled": sending,
        "SendQuota": {"Max24HourSend": 50000.0 if production else 200.0, "MaxSendRate": 14.0},
    }
    if review:
        answer["Details"] = {"ReviewDetails": {"Status": review, "CaseId": "1234"}}
    return answer


def stack_answer(
    status: str = "CREATE_COMPLETE", outputs: dict[str, str] | None = None, **extra: Any
) -> dict:
    values = OUTPUTS if outputs is None else outputs
    return {
        "Stacks": [
            {
                "StackId": STACK_ID,
                "StackName": DEFAULT_STACK,
                "CreationTime": NOW,
                "StackStatus": status,
                "Outputs": [{"OutputKey": key, "OutputValue": value} for key, value in values.items()],
                **extra,
            }
        ]
    }


def harness_answer(status: str = "READY", model: str = PROFILE, **extra: Any) -> dict[str, Any]:
    return {
        "harness": {
            "harnessId": HARNESS_ID,
            "harnessName": "multitool_harness",
            "arn": HARNESS_ARN,
            "status": status,
            "executionRoleArn": f"arn:aws:iam::{ACCOUNT}:role/HarnessRole",
            "createdAt": NOW,
            "updatedAt": NOW,
            "model": {"bedrockModelConfig": {"modelId": model}},
            "systemPrompt": [{"text": "You draft, you never send."}],
            "tools": [],
            "skills": [],
            "allowedTools": ["*"],
            "truncation": {"strategy": "sliding_window"},
            "environment": {
                "agentCoreRuntimeEnvironment": {
                    "agentRuntimeArn": RUNTIME_ARN,
                    "agentRuntimeName": "harness_rt",
                    "agentRuntimeId": "harness_rt-AbCdE12345",
                    "lifecycleConfiguration": {"idleRuntimeSessionTimeout": 600},
                    "networkConfiguration": {"networkMode": "PUBLIC"},
                }
            },
            **extra,
        }
    }


def gateway_answer(status: str = "READY", **extra: Any) -> dict[str, Any]:
    return {
        "gatewayArn": GATEWAY_ARN,
        "gatewayId": GATEWAY_ID,
        "gatewayUrl": f"https://{GATEWAY_ID}.gateway.bedrock-agentcore.{REGION}.amazonaws.com/mcp",
        "createdAt": NOW,
        "updatedAt": NOW,
        "status": status,
        "name": "multitool-gateway",
        "authorizerType": "AWS_IAM",
        "protocolType": "MCP",
        **extra,
    }


def secret_answer(value: str) -> dict[str, Any]:
    return {"ARN": SECRET_ARN, "Name": "JiraSecret", "VersionId": "v" * 32, "SecretString": value}


GET_MODEL = {"modelIdentifier": MODEL}
GET_AVAILABILITY = {"modelId": MODEL}
GET_PROFILE = {"inferenceProfileIdentifier": PROFILE}
GET_SENDER = {"EmailIdentity": SENDER}
GET_DOMAIN = {"EmailIdentity": "example.com"}
DESCRIBE = {"StackName": DEFAULT_STACK}
LIST_ONE = {"maxResults": 1}
GET_HARNESS = {"harnessId": HARNESS_ID}
GET_GATEWAY = {"gatewayIdentifier": GATEWAY_ID}
GET_SECRET = {"SecretId": SECRET_ARN}
AGENT_ID, ALIAS_ID = "AGENT12345", "ALIAS12345"
GET_ALIAS = {"agentId": AGENT_ID, "agentAliasId": ALIAS_ID}


def account_settings(quota: int, unreserved: int | None = None) -> dict[str, Any]:
    """GetAccountSettings' answer: the account's concurrency quota and what no function reserves."""
    return {
        "AccountLimit": {
            "TotalCodeSize": 80530636800,
            "CodeSizeUnzipped": 262144000,
            "CodeSizeZipped": 52428800,
            "ConcurrentExecutions": quota,
            "UnreservedConcurrentExecutions": quota if unreserved is None else unreserved,
        },
        "AccountUsage": {"TotalCodeSize": 0, "FunctionCount": 0},
    }


# -- the caller ------------------------------------------------------------------------------------


def test_caller_ok_names_the_account_and_principal(account: Account) -> None:
    arn = f"arn:aws:sts::{ACCOUNT}:assumed-role/Admin/me"
    account.answer(
        "sts", "GetCallerIdentity", {}, {"UserId": "AROAEXAMPLE:me", "Account": ACCOUNT, "Arn": arn}
    )
    one(doctor(account).check_caller(), Status.OK, ACCOUNT, arn)


@pytest.mark.parametrize("code", ["ExpiredToken", "InvalidClientTokenId", "SignatureDoesNotMatch"])
def test_rejected_credentials_fail_and_stop_every_other_check(account: Account, code: str) -> None:
    account.error("sts", "GetCallerIdentity", {}, code, 403)
    findings = doctor(account).run()
    assert len(findings) == 1
    one(findings[0], Status.FAIL, code, "aws sso login")
    assert exit_code(findings) == 1


def test_no_credentials_fail_with_the_sign_in_step(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    sts = boto3.Session(region_name=REGION).client("sts")
    found = Doctor(Target(region=REGION, model_id=PROFILE), lambda service: sts).run()
    assert len(found) == 1
    one(found[0], Status.FAIL, "no AWS credentials", "aws configure sso")


def test_a_region_without_an_sts_endpoint_fails_and_stops(account: Account) -> None:
    account.unreachable("sts")
    findings = doctor(account).run()
    assert len(findings) == 1
    one(findings[0], Status.FAIL, "STS in us-east-1 could not be reached", "list-regions")


def test_a_throttled_caller_check_warns_and_the_rest_still_runs(account: Account) -> None:
    account.error("sts", "GetCallerIdentity", {}, "Throttling", 400)
    one(doctor(account).check_caller(), Status.WARN, "throttled", "again")


# -- the region --------------------------------------------------------------------------------------


def test_region_offers_the_harness(account: Account) -> None:
    account.answer("bedrock-agentcore-control", "ListHarnesses", LIST_ONE, {"harnesses": []})
    [finding] = doctor(account).check_region("agentcore", gateway=False)
    one(finding, Status.OK, "us-east-1 offers the AgentCore harness")


def test_region_without_agentcore_fails_naming_where_to_look(account: Account) -> None:
    account.unreachable("bedrock-agentcore-control")
    [finding] = doctor(account).check_region("agentcore", gateway=False)
    one(finding, Status.FAIL, "no AgentCore endpoint", "agentcore-regions.html", "--region")


def test_region_whose_agentcore_does_not_know_the_harness_fails(account: Account) -> None:
    account.error("bedrock-agentcore-control", "ListHarnesses", LIST_ONE, "UnknownOperationException", 404)
    [finding] = doctor(account).check_region("agentcore", gateway=False)
    one(finding, Status.FAIL, "does not offer the AgentCore harness", "agentcore-regions.html")


def test_the_gateway_executor_also_checks_the_gateway(account: Account) -> None:
    account.answer("bedrock-agentcore-control", "ListHarnesses", LIST_ONE, {"harnesses": []})
    account.error("bedrock-agentcore-control", "ListGateways", LIST_ONE, "UnknownOperationException", 404)
    harness, gateway = doctor(account).check_region("agentcore", gateway=True)
    one(harness, Status.OK, "harness")
    one(gateway, Status.FAIL, "does not offer the AgentCore Gateway")


@pytest.mark.parametrize("runtime", ["converse", "agent"])
def test_runtimes_without_agentcore_ask_nothing_of_it(account: Account, runtime: Any) -> None:
    assert doctor(account).check_region(runtime, gateway=False) == []


# -- the model ----------------------------------------------------------------------------------------


def test_an_active_model_is_ok(account: Account) -> None:
    account.answer("bedrock", "GetFoundationModel", GET_MODEL, model_details("ACTIVE"))
    one(doctor(account).check_lifecycle(), Status.OK, MODEL, "ACTIVE")


def test_a_legacy_model_fails_with_its_end_of_life_and_how_to_pick_another(account: Account) -> None:
    account.answer(
        "bedrock",
        "GetFoundationModel",
        GET_MODEL,
        model_details(
            "LEGACY",
            legacyTime=datetime(2026, 6, 1, tzinfo=UTC),
            endOfLifeTime=datetime(2027, 1, 15, tzinfo=UTC),
        ),
    )
    one(
        doctor(account).check_lifecycle(),
        Status.FAIL,
        "LEGACY",
        "2027-01-15",
        "list-foundation-models",
        "-c modelId=",
    )


def test_a_model_past_its_end_of_life_fails(account: Account) -> None:
    account.answer(
        "bedrock",
        "GetFoundationModel",
        GET_MODEL,
        model_details("LEGACY", endOfLifeTime=datetime(2026, 11, 30, tzinfo=UTC)),
    )
    one(doctor(account).check_lifecycle(), Status.FAIL, "reached its end of life on 2026-11-30")


def test_a_model_the_region_does_not_know_fails_with_bedrocks_reason(account: Account) -> None:
    reason = "This model version has reached the end of its life"
    account.error("bedrock", "GetFoundationModel", GET_MODEL, "ResourceNotFoundException", 404, reason)
    one(doctor(account).check_lifecycle(), Status.FAIL, "has no model", reason)


def test_a_malformed_model_id_fails(account: Account) -> None:
    account.error("bedrock", "GetFoundationModel", GET_MODEL, "ValidationException", 400, "bad id")
    one(doctor(account).check_lifecycle(), Status.FAIL, "not a model id Bedrock accepts")


def test_everything_available_is_one_ok_line(account: Account) -> None:
    account.answer("bedrock", "GetFoundationModelAvailability", GET_AVAILABILITY, availability())
    [finding] = doctor(account).check_availability()
    one(finding, Status.OK, "available to this account")


@pytest.mark.parametrize(
    ("fields", "check", "status", "words"),
    [
        (
            {"regionAvailability": "NOT_AVAILABLE"},
            "model region",
            Status.FAIL,
            ("not offered in us-east-1", "list-inference-profiles"),
        ),
        ({"authorizationStatus": "NOT_AUTHORIZED"}, "model authorization", Status.FAIL, ("NOT_AUTHORIZED",)),
        (
            {"entitlementAvailability": "NOT_AVAILABLE"},
            "model entitlement",
            Status.FAIL,
            ("no entitlement", "Model catalog"),
        ),
        (
            {"agreementAvailability": {"status": "PENDING"}},
            "model agreement",
            Status.WARN,
            ("still being set up",),
        ),
        (
            {"agreementAvailability": {"status": "NOT_AVAILABLE"}},
            "model agreement",
            Status.FAIL,
            ("aws-marketplace:Subscribe", "create-foundation-model-agreement"),
        ),
        (
            {"agreementAvailability": {"status": "ERROR", "errorMessage": "payment instrument declined"}},
            "model agreement",
            Status.FAIL,
            ("payment instrument declined",),
        ),
    ],
)
def test_each_missing_kind_of_access_is_its_own_line(
    account: Account, fields: dict, check: str, status: Status, words: tuple
) -> None:
    account.answer("bedrock", "GetFoundationModelAvailability", GET_AVAILABILITY, availability(**fields))
    [finding] = doctor(account).check_availability()
    assert finding.check == check
    one(finding, status, *words)


def test_several_missing_kinds_of_access_are_each_reported(account: Account) -> None:
    account.answer(
        "bedrock",
        "GetFoundationModelAvailability",
        GET_AVAILABILITY,
        availability(
            entitlementAvailability="NOT_AVAILABLE", agreementAvailability={"status": "NOT_AVAILABLE"}
        ),
    )
    found = doctor(account).check_availability()
    assert [f.check for f in found] == ["model entitlement", "model agreement"]


def test_availability_of_an_unknown_model_fails(account: Account) -> None:
    account.error(
        "bedrock", "GetFoundationModelAvailability", GET_AVAILABILITY, "ResourceNotFoundException", 404
    )
    [finding] = doctor(account).check_availability()
    one(finding, Status.FAIL, "knows no availability")


def test_the_inference_profile_exists(account: Account) -> None:
    account.answer("bedrock", "GetInferenceProfile", GET_PROFILE, profile_answer())
    one(doctor(account).check_profile(), Status.OK, PROFILE, "3 regions")


def test_an_inference_profile_missing_from_the_region_fails(account: Account) -> None:
    account.error("bedrock", "GetInferenceProfile", GET_PROFILE, "ResourceNotFoundException", 404)
    one(
        doctor(account).check_profile(),
        Status.FAIL,
        "has no inference profile",
        "--type-equals SYSTEM_DEFINED",
    )


def test_the_use_case_form_on_file(account: Account) -> None:
    account.answer("bedrock", "GetUseCaseForModelAccess", {}, {"formData": b'{"companyName": "Example"}'})
    one(doctor(account).check_use_case(), Status.OK, "on file")


def test_no_use_case_form_fails_with_where_to_submit_it(account: Account) -> None:
    account.error("bedrock", "GetUseCaseForModelAccess", {}, "ResourceNotFoundException", 404)
    one(
        doctor(account).check_use_case(),
        Status.FAIL,
        "not on file",
        "Model catalog",
        "put-use-case-for-model-access",
    )


def test_model_checks_of_a_profile_and_an_anthropic_model(account: Account) -> None:
    account.answer("bedrock", "GetFoundationModel", GET_MODEL, model_details())
    account.answer("bedrock", "GetFoundationModelAvailability", GET_AVAILABILITY, availability())
    account.answer("bedrock", "GetInferenceProfile", GET_PROFILE, profile_answer())
    account.answer("bedrock", "GetUseCaseForModelAccess", {}, {"formData": b"0123456789"})
    found = doctor(account).check_model()
    assert [f.check for f in found] == ["model", "model access", "inference profile", "use-case form"]


def test_a_foundation_model_of_another_provider_asks_for_no_profile_and_no_form(account: Account) -> None:
    other = "amazon.nova-pro-v1:0"
    account.answer("bedrock", "GetFoundationModel", {"modelIdentifier": other}, model_details())
    account.answer("bedrock", "GetFoundationModelAvailability", {"modelId": other}, availability())
    found = doctor(account, model_id=other).check_model()
    assert [f.check for f in found] == ["model", "model access"]


# -- mail -----------------------------------------------------------------------------------------------


# -- Lambda's concurrency ------------------------------------------------------------------------------


def test_a_deploy_that_reserves_nothing_fits_a_new_accounts_quota_of_10(account: Account) -> None:
    account.answer("lambda", "GetAccountSettings", {}, account_settings(10))
    one(doctor(account).check_concurrency(), Status.OK, "reserves none", "10 executions", "10 unreserved")


def test_a_reservation_the_quota_cannot_hold_fails_with_both_ways_out(account: Account) -> None:
    # the isolation of the old defaults (20 + 10) in a new account: Lambda keeps 100 unreserved
    account.answer("lambda", "GetAccountSettings", {}, account_settings(10))
    finding = doctor(account, reserved_concurrency=30).check_concurrency()
    one(finding, Status.FAIL, "reserving 30", "at least 130", "is 10", "orchestratorConcurrency=0")
    assert "request-service-quota-increase" in (finding.fix or "")


def test_a_reservation_that_would_leave_under_100_unreserved_warns(account: Account) -> None:
    # the quota holds it, but other functions already reserve most of it
    account.answer("lambda", "GetAccountSettings", {}, account_settings(1000, unreserved=120))
    one(
        doctor(account, reserved_concurrency=30).check_concurrency(),
        Status.WARN,
        "leave 90 of 1000 unreserved",
        "already holds",
    )


def test_a_reservation_the_account_can_hold_is_ok(account: Account) -> None:
    account.answer("lambda", "GetAccountSettings", {}, account_settings(1000, unreserved=900))
    one(doctor(account, reserved_concurrency=30).check_concurrency(), Status.OK, "leaves 870 of 1000")


def test_a_named_copy_not_yet_deployed_is_deployed_under_its_name(account: Account) -> None:
    account.error(
        "cloudformation",
        "DescribeStacks",
        {"StackName": "MultitoolDev"},
        "ValidationError",
        400,
        "Stack with id MultitoolDev does not exist",
    )
    (finding,) = doctor(account, stack="MultitoolDev").check_stack().findings
    one(finding, Status.WARN, "MultitoolDev is not deployed", "-c stackName=MultitoolDev")


def test_the_reservation_is_the_deploys_two_context_values() -> None:
    assert reserved_concurrency({}) == 0
    assert reserved_concurrency({"orchestratorConcurrency": "20", "reviewConcurrency": "10"}) == 30
    assert reserved_concurrency({"reviewConcurrency": "ten"}) == 0  # the deploy refuses it itself


# -- mail -----------------------------------------------------------------------------------------------


def test_a_verified_sender_is_ok(account: Account) -> None:
    account.answer("sesv2", "GetEmailIdentity", GET_SENDER, identity(True, "SUCCESS"))
    one(doctor(account).check_sender(), Status.OK, SENDER, "verified")


@pytest.mark.parametrize("status", ["PENDING", "FAILED", "TEMPORARY_FAILURE"])
def test_an_unverified_sender_warns_with_the_resend_command(account: Account, status: str) -> None:
    account.answer("sesv2", "GetEmailIdentity", GET_SENDER, identity(False, status))
    one(
        doctor(account).check_sender(),
        Status.WARN,
        status,
        "verify-email-identity --email-address bot@example.com",
    )


def test_a_sender_in_a_verified_domain_is_ok(account: Account) -> None:
    account.error("sesv2", "GetEmailIdentity", GET_SENDER, "NotFoundException", 404)
    account.answer("sesv2", "GetEmailIdentity", GET_DOMAIN, identity(True, "SUCCESS", "DOMAIN"))
    one(doctor(account).check_sender(), Status.OK, "example.com is verified")


def test_a_sender_in_an_unverified_domain_warns_about_dkim(account: Account) -> None:
    account.error("sesv2", "GetEmailIdentity", GET_SENDER, "NotFoundException", 404)
    account.answer("sesv2", "GetEmailIdentity", GET_DOMAIN, identity(False, "PENDING", "DOMAIN"))
    one(doctor(account).check_sender(), Status.WARN, "example.com is not verified", "DKIM")


def test_a_sender_that_is_no_identity_warns_that_the_deploy_creates_it(account: Account) -> None:
    account.error("sesv2", "GetEmailIdentity", GET_SENDER, "NotFoundException", 404)
    account.error("sesv2", "GetEmailIdentity", GET_DOMAIN, "NotFoundException", 404)
    one(doctor(account).check_sender(), Status.WARN, "not an SES identity", "create-email-identity")


def test_no_sender_given_warns_and_asks_nothing(account: Account) -> None:
    one(doctor(account, sender_email=None).check_sender(), Status.WARN, "--sender-email")


def test_production_access_is_ok(account: Account) -> None:
    account.answer("sesv2", "GetAccount", {}, ses_account())
    one(doctor(account).check_ses_account(), Status.OK, "production access", "50000 messages a day")


def test_the_sandbox_warns_with_its_quota_and_the_request_step(account: Account) -> None:
    account.answer("sesv2", "GetAccount", {}, ses_account(production=False, review="PENDING"))
    one(
        doctor(account).check_ses_account(),
        Status.WARN,
        "SES sandbox",
        "request PENDING",
        "200 messages a day",
        "Request production access",
    )


def test_paused_sending_warns(account: Account) -> None:
    account.answer("sesv2", "GetAccount", {}, ses_account(sending=False))
    one(doctor(account).check_ses_account(), Status.WARN, "paused", "put-account-sending-attributes")


# -- the deployed stack ------------------------------------------------------------------------------


def test_a_stack_not_yet_deployed_warns_and_checks_nothing_deployed(account: Account) -> None:
    stub_no_stack(account)
    deployed = doctor(account).check_stack()
    assert deployed.outputs is None
    [finding] = deployed.findings
    one(finding, Status.WARN, "not deployed in us-east-1", "npx cdk deploy")


@pytest.mark.parametrize("status", ["CREATE_COMPLETE", "UPDATE_COMPLETE", "UPDATE_ROLLBACK_COMPLETE"])
def test_a_complete_stack_with_its_outputs_is_ok(account: Account, status: str) -> None:
    account.answer("cloudformation", "DescribeStacks", DESCRIBE, stack_answer(status))
    deployed = doctor(account).check_stack()
    stack, outputs = deployed.findings
    one(stack, Status.OK, status)
    one(outputs, Status.OK, "HarnessArn", "runtime agentcore")
    assert deployed.outputs == OUTPUTS


def test_a_stack_missing_an_output_fails_naming_it(account: Account) -> None:
    account.answer(
        "cloudformation", "DescribeStacks", DESCRIBE, stack_answer(outputs={**OUTPUTS, "JiraSecretArn": ""})
    )
    _, outputs = doctor(account).check_stack().findings
    one(outputs, Status.FAIL, "no JiraSecretArn output")


def test_the_gateway_executor_needs_its_output(account: Account) -> None:
    account.answer("cloudformation", "DescribeStacks", DESCRIBE, stack_answer())
    _, outputs = doctor(account, executor="gateway").check_stack().findings
    one(outputs, Status.FAIL, "no GatewayArn output")


def test_a_converse_stack_needs_no_harness_output(account: Account) -> None:
    converse = {key: value for key, value in OUTPUTS.items() if key != "HarnessArn"}
    account.answer("cloudformation", "DescribeStacks", DESCRIBE, stack_answer(outputs=converse))
    _, outputs = doctor(account).check_stack().findings
    one(outputs, Status.OK, "runtime converse")


def test_a_stack_being_deployed_warns(account: Account) -> None:
    account.answer(
        "cloudformation", "DescribeStacks", DESCRIBE, stack_answer("UPDATE_IN_PROGRESS", outputs={})
    )
    deployed = doctor(account).check_stack()
    assert deployed.outputs is None
    one(deployed.findings[0], Status.WARN, "UPDATE_IN_PROGRESS", "wait")


def test_a_rolled_back_stack_fails_with_delete_and_deploy(account: Account) -> None:
    account.answer(
        "cloudformation",
        "DescribeStacks",
        DESCRIBE,
        stack_answer(
            "ROLLBACK_COMPLETE",
            outputs={},
            StackStatusReason="The following resource(s) failed to create: [Harness]",
        ),
    )
    deployed = doctor(account).check_stack()
    assert deployed.outputs is None
    one(
        deployed.findings[0],
        Status.FAIL,
        "ROLLBACK_COMPLETE",
        "failed to create",
        "delete-stack",
        "describe-stack-events",
    )


def test_a_failed_update_fails_with_where_to_read_why(account: Account) -> None:
    account.answer("cloudformation", "DescribeStacks", DESCRIBE, stack_answer("UPDATE_ROLLBACK_FAILED"))
    one(
        doctor(account).check_stack().findings[0],
        Status.FAIL,
        "UPDATE_ROLLBACK_FAILED",
        "describe-stack-events",
    )


def test_a_ready_harness_running_the_checked_model_is_ok(account: Account) -> None:
    account.answer("bedrock-agentcore-control", "GetHarness", GET_HARNESS, harness_answer())
    one(doctor(account).check_harness(HARNESS_ARN), Status.OK, HARNESS_ID, "READY")


def test_a_harness_running_another_model_warns_with_the_command_that_checks_it(account: Account) -> None:
    account.answer(
        "bedrock-agentcore-control",
        "GetHarness",
        GET_HARNESS,
        harness_answer(model="global.anthropic.claude-x"),
    )
    one(
        doctor(account).check_harness(HARNESS_ARN),
        Status.WARN,
        "runs global.anthropic.claude-x",
        "--model-id global.",
    )


@pytest.mark.parametrize("status", ["CREATING", "UPDATING"])
def test_a_harness_being_made_warns(account: Account, status: str) -> None:
    account.answer("bedrock-agentcore-control", "GetHarness", GET_HARNESS, harness_answer(status))
    one(doctor(account).check_harness(HARNESS_ARN), Status.WARN, status)


@pytest.mark.parametrize("status", ["CREATE_FAILED", "UPDATE_FAILED", "DELETING"])
def test_a_harness_that_cannot_answer_fails_with_its_reason(account: Account, status: str) -> None:
    account.answer(
        "bedrock-agentcore-control",
        "GetHarness",
        GET_HARNESS,
        harness_answer(status, failureReason="role cannot be assumed"),
    )
    one(
        doctor(account).check_harness(HARNESS_ARN),
        Status.FAIL,
        status,
        "role cannot be assumed",
        "npx cdk deploy",
    )


def test_a_harness_that_is_gone_fails(account: Account) -> None:
    account.error("bedrock-agentcore-control", "GetHarness", GET_HARNESS, "ResourceNotFoundException", 404)
    one(doctor(account).check_harness(HARNESS_ARN), Status.FAIL, "no harness")


def test_a_ready_gateway_is_ok(account: Account) -> None:
    account.answer("bedrock-agentcore-control", "GetGateway", GET_GATEWAY, gateway_answer())
    one(doctor(account).check_gateway(GATEWAY_ARN), Status.OK, "READY")


@pytest.mark.parametrize(
    ("status", "verdict"),
    [("CREATING", Status.WARN), ("FAILED", Status.FAIL), ("UPDATE_UNSUCCESSFUL", Status.FAIL)],
)
def test_a_gateway_not_ready(account: Account, status: str, verdict: Status) -> None:
    account.answer(
        "bedrock-agentcore-control",
        "GetGateway",
        GET_GATEWAY,
        gateway_answer(status, statusReasons=["target invalid"]),
    )
    one(doctor(account).check_gateway(GATEWAY_ARN), verdict, status)


def test_a_gateway_that_is_gone_fails(account: Account) -> None:
    account.error("bedrock-agentcore-control", "GetGateway", GET_GATEWAY, "ResourceNotFoundException", 404)
    one(doctor(account).check_gateway(GATEWAY_ARN), Status.FAIL, "no gateway")


def alias_answer(status: str = "PREPARED", **extra: Any) -> dict[str, Any]:
    return {
        "agentAlias": {
            "agentId": AGENT_ID,
            "agentAliasId": ALIAS_ID,
            "agentAliasName": "live",
            "agentAliasArn": f"arn:aws:bedrock:{REGION}:{ACCOUNT}:agent-alias/{AGENT_ID}/{ALIAS_ID}",
            "routingConfiguration": [{"agentVersion": "1"}],
            "createdAt": NOW,
            "updatedAt": NOW,
            "agentAliasStatus": status,
            **extra,
        }
    }


def test_a_prepared_agent_alias_is_ok(account: Account) -> None:
    account.answer(
        "bedrock-agent", "GetAgentAlias", GET_ALIAS, alias_answer(aliasInvocationState="ACCEPT_INVOCATIONS")
    )
    one(doctor(account).check_agent_alias(AGENT_ID, ALIAS_ID), Status.OK, "PREPARED")


@pytest.mark.parametrize(
    ("status", "verdict"), [("CREATING", Status.WARN), ("FAILED", Status.FAIL), ("DISSOCIATED", Status.FAIL)]
)
def test_an_agent_alias_not_prepared(account: Account, status: str, verdict: Status) -> None:
    account.answer(
        "bedrock-agent", "GetAgentAlias", GET_ALIAS, alias_answer(status, failureReasons=["version missing"])
    )
    one(doctor(account).check_agent_alias(AGENT_ID, ALIAS_ID), verdict, status)


def test_an_agent_alias_that_rejects_invocations_fails_with_the_command_that_reopens_it(
    account: Account,
) -> None:
    account.answer(
        "bedrock-agent", "GetAgentAlias", GET_ALIAS, alias_answer(aliasInvocationState="REJECT_INVOCATIONS")
    )
    one(doctor(account).check_agent_alias(AGENT_ID, ALIAS_ID), Status.FAIL, "rejects", "ACCEPT_INVOCATIONS")


def test_an_agent_alias_that_is_gone_fails(account: Account) -> None:
    account.error("bedrock-agent", "GetAgentAlias", GET_ALIAS, "ResourceNotFoundException", 404)
    one(doctor(account).check_agent_alias(AGENT_ID, ALIAS_ID), Status.FAIL, "no alias")


def test_a_filled_jira_secret_is_ok_and_never_printed(account: Account) -> None:
    value = {"baseUrl": "https://acme.atlassian.net", "email": "bot@acme.com", "apiToken": "s3cr3t-token"}
    account.answer("secretsmanager", "GetSecretValue", GET_SECRET, secret_answer(json.dumps(value)))
    finding = doctor(account).check_jira_secret(SECRET_ARN)
    one(finding, Status.OK, "https://acme.atlassian.net")
    assert "s3cr3t-token" not in finding.line()


def test_the_deploys_placeholder_warns_with_the_fill_command(account: Account) -> None:
    value = {**PLACEHOLDER_CREDENTIALS, "apiToken": "generatedgeneratedgenerated12345"}
    account.answer("secretsmanager", "GetSecretValue", GET_SECRET, secret_answer(json.dumps(value)))
    finding = doctor(account).check_jira_secret(SECRET_ARN)
    one(finding, Status.WARN, "placeholder", f"put-secret-value --region us-east-1 --secret-id {SECRET_ARN}")
    assert "generatedgenerated" not in finding.line()


@pytest.mark.parametrize(
    "value", ["not json", json.dumps({"baseUrl": "https://acme.atlassian.net"}), json.dumps([1])]
)
def test_a_malformed_jira_secret_warns(account: Account, value: str) -> None:
    account.answer("secretsmanager", "GetSecretValue", GET_SECRET, secret_answer(value))
    one(doctor(account).check_jira_secret(SECRET_ARN), Status.WARN, "not JSON with")


def test_the_reading_accounts_placeholder_says_which_cards_fail(account: Account) -> None:
    value = {**PLACEHOLDER_CREDENTIALS, "apiToken": "generatedgeneratedgenerated12345"}
    account.answer("secretsmanager", "GetSecretValue", GET_SECRET, secret_answer(json.dumps(value)))
    finding = doctor(account).check_jira_secret(
        SECRET_ARN, name="jira reader secret", fails="cards that name an existing issue fail"
    )
    one(finding, Status.WARN, "placeholder: cards that name an existing issue fail")
    assert finding.check == "jira reader secret"


def test_a_missing_jira_secret_fails(account: Account) -> None:
    account.error("secretsmanager", "GetSecretValue", GET_SECRET, "ResourceNotFoundException", 400)
    one(doctor(account).check_jira_secret(SECRET_ARN), Status.FAIL, "no secret")


def stack_resources(*resources: tuple[str, str], token: str | None = None) -> dict[str, Any]:
    page: dict[str, Any] = {
        "StackResourceSummaries": [
            {
                "LogicalResourceId": f"Resource{n}",
                "PhysicalResourceId": physical,
                "ResourceType": kind,
                "LastUpdatedTimestamp": NOW,
                "ResourceStatus": "CREATE_COMPLETE",
            }
            for n, (kind, physical) in enumerate(resources)
        ]
    }
    if token:
        page["NextToken"] = token
    return page


def test_the_deployed_sender_is_the_stacks_ses_identity_across_pages(account: Account) -> None:
    account.answer(
        "cloudformation",
        "ListStackResources",
        DESCRIBE,
        stack_resources(("AWS::DynamoDB::Table", "drafts"), token="page-2"),
    )
    account.answer(
        "cloudformation",
        "ListStackResources",
        {**DESCRIBE, "NextToken": "page-2"},
        stack_resources(("AWS::SES::EmailIdentity", "mail@example.org")),
    )
    assert doctor(account, sender_email=None).deployed_sender() == "mail@example.org"


def test_a_stack_without_its_own_identity_names_no_sender(account: Account) -> None:
    account.answer(
        "cloudformation", "ListStackResources", DESCRIBE, stack_resources(("AWS::Lambda::Function", "fn"))
    )
    assert doctor(account, sender_email=None).deployed_sender() is None


def test_a_stack_whose_resources_cannot_be_listed_names_no_sender(account: Account) -> None:
    account.error("cloudformation", "ListStackResources", DESCRIBE, "AccessDenied", 403)
    assert doctor(account, sender_email=None).deployed_sender() is None


# -- what a check cannot see: access denied, throttled, no endpoint -----------------------------------

# Every call the doctor makes: (service, operation, parameters, the check that makes it).
CALLS: list[tuple[str, str, dict[str, Any], Any]] = [
    ("sts", "GetCallerIdentity", {}, lambda d: d.check_caller()),
    (
        "bedrock-agentcore-control",
        "ListHarnesses",
        LIST_ONE,
        lambda d: d.check_region("agentcore", gateway=False)[0],
    ),
    (
        "bedrock-agentcore-control",
        "ListGateways",
        LIST_ONE,
        lambda d: d._offered("gateway region", "the AgentCore Gateway", "ListGateways", "list_gateways"),
    ),
    ("bedrock", "GetFoundationModel", GET_MODEL, lambda d: d.check_lifecycle()),
    ("bedrock", "GetFoundationModelAvailability", GET_AVAILABILITY, lambda d: d.check_availability()[0]),
    ("bedrock", "GetInferenceProfile", GET_PROFILE, lambda d: d.check_profile()),
    ("bedrock", "GetUseCaseForModelAccess", {}, lambda d: d.check_use_case()),
    ("lambda", "GetAccountSettings", {}, lambda d: d.check_concurrency()),
    ("sesv2", "GetEmailIdentity", GET_SENDER, lambda d: d.check_sender()),
    ("sesv2", "GetAccount", {}, lambda d: d.check_ses_account()),
    ("cloudformation", "DescribeStacks", DESCRIBE, lambda d: d.check_stack().findings[0]),
    ("bedrock-agentcore-control", "GetHarness", GET_HARNESS, lambda d: d.check_harness(HARNESS_ARN)),
    ("bedrock-agentcore-control", "GetGateway", GET_GATEWAY, lambda d: d.check_gateway(GATEWAY_ARN)),
    ("bedrock-agent", "GetAgentAlias", GET_ALIAS, lambda d: d.check_agent_alias(AGENT_ID, ALIAS_ID)),
    ("secretsmanager", "GetSecretValue", GET_SECRET, lambda d: d.check_jira_secret(SECRET_ARN)),
]
DENIED = {"sts": "AccessDenied", "cloudformation": "AccessDenied"}
THROTTLED = {"sts": "Throttling", "cloudformation": "Throttling", "sesv2": "TooManyRequestsException"}
# A missing endpoint means the region lacks the feature (or STS: the region itself): nothing to wait for.
NO_ENDPOINT_FAILS = {"GetCallerIdentity", "ListHarnesses", "ListGateways"}


@pytest.mark.parametrize(("service", "operation", "params", "check"), CALLS, ids=[c[1] for c in CALLS])
def test_a_check_the_caller_may_not_make_warns_naming_the_iam_action(
    account: Account, service: str, operation: str, params: dict, check: Any
) -> None:
    account.error(service, operation, params, DENIED.get(service, "AccessDeniedException"), 403)
    one(check(doctor(account)), Status.WARN, "not checked", f":{operation}", "allow")


@pytest.mark.parametrize(("service", "operation", "params", "check"), CALLS, ids=[c[1] for c in CALLS])
def test_a_throttled_check_warns_and_asks_to_run_again(
    account: Account, service: str, operation: str, params: dict, check: Any
) -> None:
    account.error(service, operation, params, THROTTLED.get(service, "ThrottlingException"), 429)
    one(check(doctor(account)), Status.WARN, "not checked", "throttled", "again")


@pytest.mark.parametrize(("service", "operation", "params", "check"), CALLS, ids=[c[1] for c in CALLS])
def test_a_check_without_an_endpoint(
    account: Account, service: str, operation: str, params: dict, check: Any
) -> None:
    account.unreachable(service)
    finding = check(doctor(account))
    if operation in NO_ENDPOINT_FAILS:
        one(finding, Status.FAIL, "could not be reached" if service == "sts" else "no AgentCore endpoint")
    else:
        one(finding, Status.WARN, "not checked", "us-east-1 could not be reached", "region name")


# -- whole runs ---------------------------------------------------------------------------------------


def stub_caller(account: Account) -> None:
    account.answer(
        "sts",
        "GetCallerIdentity",
        {},
        {"UserId": "AIDAEXAMPLE", "Account": ACCOUNT, "Arn": f"arn:aws:iam::{ACCOUNT}:user/me"},
    )


def stub_no_stack(account: Account) -> None:
    """CloudFormation's answer for a stack name never deployed in the region."""
    account.error(
        "cloudformation",
        "DescribeStacks",
        DESCRIBE,
        "ValidationError",
        400,
        "Stack with id Multitool does not exist",
    )


def stub_before_a_deploy(account: Account) -> None:
    """A caller whose account has neither the stack nor a harness yet."""
    stub_caller(account)
    stub_no_stack(account)
    account.answer("bedrock-agentcore-control", "ListHarnesses", LIST_ONE, {"harnesses": []})


def stub_model(account: Account) -> None:
    account.answer("bedrock", "GetFoundationModel", GET_MODEL, model_details())
    account.answer("bedrock", "GetFoundationModelAvailability", GET_AVAILABILITY, availability())
    account.answer("bedrock", "GetInferenceProfile", GET_PROFILE, profile_answer())
    account.answer("bedrock", "GetUseCaseForModelAccess", {}, {"formData": b"0123456789"})
    account.answer("lambda", "GetAccountSettings", {}, account_settings(10))


def test_before_a_deploy_every_account_check_runs_and_nothing_blocks(account: Account) -> None:
    stub_before_a_deploy(account)
    stub_model(account)
    account.answer("sesv2", "GetEmailIdentity", GET_SENDER, identity(False, "PENDING"))
    account.answer("sesv2", "GetAccount", {}, ses_account(production=False))
    found = doctor(account).run()
    assert [(f.check, f.status) for f in found] == [
        ("caller", Status.OK),
        ("harness region", Status.OK),
        ("model", Status.OK),
        ("model access", Status.OK),
        ("inference profile", Status.OK),
        ("use-case form", Status.OK),
        ("concurrency", Status.OK),
        ("sender", Status.WARN),
        ("ses account", Status.WARN),
        ("stack", Status.WARN),
    ]
    assert exit_code(found) == 0


def test_after_a_deploy_the_stack_harness_and_secret_are_checked(account: Account) -> None:
    stub_caller(account)
    account.answer("cloudformation", "DescribeStacks", DESCRIBE, stack_answer())
    account.answer("bedrock-agentcore-control", "ListHarnesses", LIST_ONE, {"harnesses": []})
    stub_model(account)
    account.answer("sesv2", "GetEmailIdentity", GET_SENDER, identity(True, "SUCCESS"))
    account.answer("sesv2", "GetAccount", {}, ses_account())
    account.answer("bedrock-agentcore-control", "GetHarness", GET_HARNESS, harness_answer())
    filled = {"baseUrl": "https://acme.atlassian.net", "email": "bot@acme.com", "apiToken": "t"}
    account.answer("secretsmanager", "GetSecretValue", GET_SECRET, secret_answer(json.dumps(filled)))
    found = doctor(account).run()
    assert [f.check for f in found][-4:] == ["stack", "outputs", "harness", "jira secret"]
    assert all(f.status is Status.OK for f in found), [f.line() for f in found]
    assert exit_code(found) == 0


def test_after_a_deploy_without_a_sender_given_the_stacks_identity_is_checked(account: Account) -> None:
    stub_caller(account)
    account.answer("cloudformation", "DescribeStacks", DESCRIBE, stack_answer())
    account.answer("bedrock-agentcore-control", "ListHarnesses", LIST_ONE, {"harnesses": []})
    stub_model(account)
    account.answer(
        "cloudformation", "ListStackResources", DESCRIBE, stack_resources(("AWS::SES::EmailIdentity", SENDER))
    )
    account.answer("sesv2", "GetEmailIdentity", GET_SENDER, identity(False, "PENDING"))
    account.answer("sesv2", "GetAccount", {}, ses_account())
    account.answer("bedrock-agentcore-control", "GetHarness", GET_HARNESS, harness_answer())
    account.answer(
        "secretsmanager",
        "GetSecretValue",
        GET_SECRET,
        secret_answer(json.dumps({**PLACEHOLDER_CREDENTIALS, "apiToken": "x"})),
    )
    found = {f.check: f for f in doctor(account, sender_email=None).run()}
    one(found["sender"], Status.WARN, SENDER, "PENDING")


def test_a_deployed_converse_stack_is_not_asked_about_agentcore(account: Account) -> None:
    stub_caller(account)
    converse = {key: value for key, value in OUTPUTS.items() if key != "HarnessArn"}
    account.answer("cloudformation", "DescribeStacks", DESCRIBE, stack_answer(outputs=converse))
    stub_model(account)
    account.answer("sesv2", "GetEmailIdentity", GET_SENDER, identity(True, "SUCCESS"))
    account.answer("sesv2", "GetAccount", {}, ses_account())
    account.answer(
        "secretsmanager",
        "GetSecretValue",
        GET_SECRET,
        secret_answer(json.dumps({**PLACEHOLDER_CREDENTIALS, "apiToken": "x"})),
    )
    checks = [f.check for f in doctor(account).run()]
    assert "harness region" not in checks
    assert "harness" not in checks


def test_one_blocking_problem_makes_the_exit_status_1() -> None:
    ok = Finding("caller", Status.OK, "fine.")
    warn = Finding("sender", Status.WARN, "pending.", "click the link.")
    assert exit_code([ok, warn]) == 0
    assert exit_code([ok, warn, Finding("model", Status.FAIL, "LEGACY.", "pick another.")]) == 1


def test_a_line_says_status_check_problem_and_fix() -> None:
    line = Finding("use-case form", Status.FAIL, "not on file.", "submit it.").line()
    assert line == "fail  use-case form: not on file. Fix: submit it."


# -- options and defaults -------------------------------------------------------------------------------


def test_the_defaults_are_the_ones_infra_deploys() -> None:
    from infra.context import PROFILE_PREFIXES as INFRA_PREFIXES
    from infra.stack import STACK_NAME

    assert DEFAULT_STACK == STACK_NAME
    assert sorted(PROFILE_PREFIXES) == sorted(INFRA_PREFIXES)


def test_the_model_defaults_to_the_repositorys_cdk_json() -> None:
    expected = json.loads((Path(__file__).resolve().parents[3] / "cdk.json").read_text())["context"][
        "modelId"
    ]
    assert deploy_defaults()["modelId"] == expected


def test_an_unreadable_cdk_json_is_one_clear_error(tmp_path: Path) -> None:
    from multitool.local.doctor.findings import DoctorError

    (tmp_path / "cdk.json").write_text("{not json")
    with pytest.raises(DoctorError, match="pass --model-id"):
        deploy_defaults(tmp_path / "cdk.json")


@pytest.mark.parametrize(
    ("model_id", "geo", "foundation"),
    [
        (PROFILE, "us", MODEL),
        (f"us-gov.{MODEL}", "us-gov", MODEL),
        (f"global.{MODEL}", "global", MODEL),
        (MODEL, None, MODEL),
    ],
)
def test_a_profile_id_splits_into_its_geography_and_model(
    model_id: str, geo: str | None, foundation: str
) -> None:
    target = Target(region=REGION, model_id=model_id)
    assert (target.profile_geo, target.foundation_model_id) == (geo, foundation)


def test_cli_bad_options_exit_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        cli.main(["doctor", "--region", REGION, "--model-id", "not a model", "--sender-email", SENDER]) == 2
    )
    assert "model_id" in capsys.readouterr().err
    assert (
        cli.main(
            ["doctor", "--region", REGION, "--model-id", MODEL, "--stack", "9bad", "--sender-email", SENDER]
        )
        == 2
    )
    assert "stack" in capsys.readouterr().err
    assert cli.main(["doctor", "--region", "us east", "--model-id", MODEL, "--sender-email", SENDER]) == 2
    assert "not an AWS region name" in capsys.readouterr().err


def test_cli_without_a_region_fails_with_how_to_set_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("AWS_REGION")
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    assert cli.main(["doctor", "--model-id", MODEL, "--sender-email", SENDER]) == 1
    assert "fail  region: no AWS region" in capsys.readouterr().out


def test_cli_prints_one_line_per_check_and_exits_1_on_a_blocking_one(
    account: Account, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stub_before_a_deploy(account)
    account.answer("bedrock", "GetFoundationModel", GET_MODEL, model_details("LEGACY"))
    account.answer("bedrock", "GetFoundationModelAvailability", GET_AVAILABILITY, availability())
    account.answer("bedrock", "GetInferenceProfile", GET_PROFILE, profile_answer())
    account.error("bedrock", "GetUseCaseForModelAccess", {}, "ResourceNotFoundException", 404)
    account.answer("lambda", "GetAccountSettings", {}, account_settings(10))
    account.answer("sesv2", "GetEmailIdentity", GET_SENDER, identity(True, "SUCCESS"))
    account.answer("sesv2", "GetAccount", {}, ses_account())
    monkeypatch.setattr(boto3.Session, "client", lambda self, service, **_: account.client_for(service))
    assert cli.main(["doctor", "--region", REGION, "--model-id", PROFILE, "--sender-email", SENDER]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"multitool doctor: stack Multitool, model {PROFILE}, region {REGION}"
    assert [line.split()[0] for line in lines[1:]] == [
        "ok",
        "ok",
        "fail",
        "ok",
        "ok",
        "fail",
        "ok",
        "ok",
        "ok",
        "warn",
        "note",
    ]
    # the closing line: what no read-only call can see before a first deploy
    assert lines[-1].startswith("note  cloudfront: a new AWS account can be refused CloudFront")
    assert "must be verified" in lines[-1]
    assert "AWS Support" in lines[-1]


def test_cli_reads_aws_region_as_the_cdk_cli_does(
    account: Account,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Given only AWS_REGION, as the README's deploy exports it (botocore reads AWS_DEFAULT_REGION only)
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    account.error("sts", "GetCallerIdentity", {}, "ExpiredToken", 403)
    regions: list[str | None] = []

    def client(session: boto3.Session, service: str, **_: Any) -> Any:
        regions.append(session.region_name)
        return account.client_for(service)

    monkeypatch.setattr(boto3.Session, "client", client)
    # When the doctor runs without --region
    assert cli.main(["doctor", "--model-id", MODEL, "--sender-email", SENDER]) == 1
    # Then it checks that region, with clients made for it
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"multitool doctor: stack Multitool, model {MODEL}, region eu-west-1"
    assert "no AWS region" not in out
    assert regions == ["eu-west-1"]


def test_the_stack_and_reservation_default_to_cdk_json(tmp_path: Path) -> None:
    cdk_json = tmp_path / "cdk.json"
    cdk_json.write_text(
        json.dumps(
            {"context": {"modelId": MODEL, "stackName": "MultitoolDev", "orchestratorConcurrency": 20}}
        )
    )
    context = deploy_defaults(cdk_json)
    assert context["stackName"] == "MultitoolDev"
    assert reserved_concurrency(context) == 20


def test_cli_json_gives_scripts_every_finding(
    account: Account, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    account.error("sts", "GetCallerIdentity", {}, "ExpiredToken", 403)
    monkeypatch.setattr(boto3.Session, "client", lambda self, service, **_: account.client_for(service))
    assert (
        cli.main(["doctor", "--json", "--region", REGION, "--model-id", MODEL, "--sender-email", SENDER]) == 1
    )
    answer = json.loads(capsys.readouterr().out)
    assert answer["region"] == REGION
    assert answer["modelId"] == MODEL
    [finding] = answer["findings"]
    assert finding["check"] == "caller"
    assert finding["status"] == "fail"
    assert "ExpiredToken" in finding["message"]
    assert "aws sso login" in finding["fix"]
    assert answer["notes"] == list(CLOSING_NOTES)


# -- Agents Classic's quotas ----------------------------------------------------------------------------


def service_quotas(**values: float) -> dict[str, Any]:
    """ListServiceQuotas' answer for Bedrock: the quotas named, with their values."""
    return {
        "Quotas": [
            {
                "ServiceCode": "bedrock",
                "QuotaCode": f"L-{i:08d}",
                "QuotaName": name,
                "Value": value,
                "Unit": "None",
                "Adjustable": True,
                "GlobalQuota": False,
            }
            for i, (name, value) in enumerate(values.items())
        ]
    }


def test_agents_classic_with_more_tools_than_its_api_quota_fails_before_the_deploy(account: Account) -> None:
    from multitool.tools import REGISTRY

    account.answer(
        "service-quotas",
        "ListServiceQuotas",
        {"ServiceCode": "bedrock"},
        service_quotas(**{"APIs per Agent": 11, "Action groups per Agent": 20}),
    )
    finding = doctor(account).check_agent_tools("agent")
    assert finding is not None
    one(finding, Status.FAIL, f"has {len(REGISTRY)} tools", "APIs per Agent is 11", "runtime=agentcore")
    assert "Action groups per Agent" not in finding.message  # 20 holds them


def test_agents_classic_within_its_quotas_passes_and_other_runtimes_ask_nothing(account: Account) -> None:
    from multitool.tools import REGISTRY

    enough = len(REGISTRY)
    account.answer(
        "service-quotas",
        "ListServiceQuotas",
        {"ServiceCode": "bedrock"},
        service_quotas(**{"APIs per Agent": enough, "Action groups per Agent": enough}),
    )
    finding = doctor(account).check_agent_tools("agent")
    assert finding is not None
    one(finding, Status.OK, f"{enough} action groups and APIs fit")
    assert doctor(account).check_agent_tools("agentcore") is None
    assert doctor(account).check_agent_tools("converse") is None
