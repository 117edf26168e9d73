"""The synthesized suite choice: calendar=microsoft365 (with and without the organization-wide app
credential) and calendar=google (with and without domain-wide delegation) set CALENDAR where tools
run or confirms execute, grant the one secret or signing key, drop SES from the review function, and
stay cdk-nag and cfn-lint clean."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cfnlint.api import lint

from infra.context import ContextError, DeployContext
from tests.infra.iam_queries import actions_for_role, function_id, resources_for_action, role_of_function
from tests.infra.synth import Synthesized
from tests.support.synths import StackSynths

pytestmark = pytest.mark.infra

VALID = {"senderEmail": "me@example.com"}
SERVICE_ACCOUNT = "multitool-delegation@example-project.iam.gserviceaccount.com"
GOOGLE_KEY_ID = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def microsoft365_stack(synths: StackSynths) -> Synthesized:
    return synths.get(calendar="microsoft365", microsoft365AppCredential="true")


@pytest.fixture
def google_stack(synths: StackSynths) -> Synthesized:
    # Converse runs the tools in the orchestrator: its role and environment get the suite too.
    return synths.get(calendar="google", runtime="converse")


@pytest.fixture
def google_delegation_stack(synths: StackSynths) -> Synthesized:
    # The default runtime (the AgentCore harness, inline functions): the orchestrator runs the tools.
    return synths.get(
        calendar="google",
        googleDelegation=SERVICE_ACCOUNT,
        googleDelegationKeyId=GOOGLE_KEY_ID,
    )


def _env(synth: Synthesized, construct_id: str) -> dict[str, Any]:
    variables: dict[str, Any] = synth.props(function_id(synth, construct_id))["Environment"]["Variables"]
    return variables


def test_microsoft365_sets_calendar_and_the_credential_where_tools_run_and_confirms_execute(
    microsoft365_stack: Synthesized,
) -> None:
    synth = microsoft365_stack
    secret = synth.stack.suite.secret
    assert secret is not None
    secret_ref = {"Ref": synth.logical_id(secret)}
    review = _env(synth, "Review")

    assert review["CALENDAR"] == "microsoft365"
    assert review["MICROSOFT365_SECRET_ARN"] == secret_ref
    assert _env(synth, "Orchestrator")["CALENDAR"] == "microsoft365"
    review_role = role_of_function(synth, function_id(synth, "Review"))
    assert resources_for_action(synth, review_role, "secretsmanager:GetSecretValue").count(secret_ref) == 1
    # Mail and invitations leave from the user's own mailbox: no SES permission at all.
    assert not {a for a in actions_for_role(synth, review_role) if a.startswith("ses:")}
    assert "Microsoft365CredentialArn" in synth.data["Outputs"]


def test_google_sets_calendar_without_a_microsoft_secret(google_stack: Synthesized) -> None:
    synth = google_stack
    assert synth.stack.suite.secret is None
    for construct_id in ("Review", "Orchestrator"):
        env = _env(synth, construct_id)
        assert env["CALENDAR"] == "google"
        assert "MICROSOFT365_SECRET_ARN" not in env
    review_role = role_of_function(synth, function_id(synth, "Review"))
    assert not {a for a in actions_for_role(synth, review_role) if a.startswith("ses:")}


def test_google_without_delegation_has_no_signing_key(google_stack: Synthesized) -> None:
    assert google_stack.stack.suite.delegation_key is None
    assert set(google_stack.of_type("AWS::KMS::Key")) == {
        google_stack.logical_id(google_stack.stack.operations.key)
    }
    assert "GOOGLE_DELEGATION_KEY_ARN" not in _env(google_stack, "Review")
    assert "GoogleDelegationKeyArn" not in google_stack.data["Outputs"]


def test_google_delegation_is_one_rsa_signing_key_only_the_functions_calling_google_may_sign_with(
    google_delegation_stack: Synthesized,
) -> None:
    synth = google_delegation_stack
    key = synth.stack.suite.delegation_key
    assert key is not None
    key_id = synth.logical_id(key)
    key_arn = {"Fn::GetAtt": [key_id, "Arn"]}

    # One asymmetric key: RS256 is RSASSA_PKCS1_V1_5_SHA_256 with an RSA_2048 SIGN_VERIFY key
    alarm_key = synth.logical_id(synth.stack.operations.key)
    [(found_id, props)] = [
        (k, v["Properties"]) for k, v in synth.of_type("AWS::KMS::Key").items() if k != alarm_key
    ]
    assert found_id == key_id
    assert (props["KeySpec"], props["KeyUsage"]) == ("RSA_2048", "SIGN_VERIFY")
    # kms:Sign on that key, and no other KMS action, for exactly the review and the orchestrator
    callers = {role_of_function(synth, function_id(synth, c)) for c in ("Review", "Orchestrator")}
    signers = {
        role for role in synth.of_type("AWS::IAM::Role") if "kms:Sign" in actions_for_role(synth, role)
    }
    assert signers == callers
    for role in callers:
        assert resources_for_action(synth, role, "kms:Sign") == [key_arn]
        assert {a for a in actions_for_role(synth, role) if a.startswith("kms:")} == {"kms:Sign"}
    # and they are told whose JWTs to sign with which key
    for construct_id in ("Review", "Orchestrator"):
        env = _env(synth, construct_id)
        assert env["CALENDAR"] == "google"
        assert env["GOOGLE_DELEGATION_SERVICE_ACCOUNT"] == SERVICE_ACCOUNT
        assert env["GOOGLE_DELEGATION_KEY_ARN"] == key_arn
        assert env["GOOGLE_DELEGATION_KEY_ID"] == GOOGLE_KEY_ID
    assert synth.data["Outputs"]["GoogleDelegationKeyArn"]["Value"] == key_arn
    # kept when the stack is deleted: the certificate uploaded to Google names it (not after a failed first
    # create, which no certificate can name yet)
    assert synth.data["Resources"][key_id]["DeletionPolicy"] == "RetainExceptOnCreate"
    assert synth.data["Resources"][key_id]["UpdateReplacePolicy"] == "Retain"


def test_builtin_is_unchanged_no_calendar_and_ses_for_the_review(harness_stack: Synthesized) -> None:
    assert "CALENDAR" not in _env(harness_stack, "Review")
    review_role = role_of_function(harness_stack, function_id(harness_stack, "Review"))
    assert "ses:SendEmail" in actions_for_role(harness_stack, review_role)
    assert harness_stack.stack.suite.secret is None


@pytest.mark.parametrize("name", ["microsoft365_stack", "google_stack", "google_delegation_stack"])
def test_both_provider_stacks_are_cfn_lint_clean(name: str, request: pytest.FixtureRequest) -> None:
    synth: Synthesized = request.getfixturevalue(name)  # synthesizing already ran cdk-nag

    matches = lint(json.dumps(synth.data), regions=["us-east-1"])

    assert [f"{m.rule.id} {m.message}" for m in matches] == []


def test_calendar_is_validated_like_the_other_keys() -> None:
    with pytest.raises(ContextError, match=r"Invalid context 'calendar': 'outlook'\. Allowed: builtin"):
        DeployContext.from_context({**VALID, "calendar": "outlook"})
    with pytest.raises(ContextError, match="needs calendar=microsoft365"):
        DeployContext.from_context({**VALID, "microsoft365AppCredential": "true"})
    assert DeployContext.from_context(VALID).calendar == "builtin"


def test_google_delegation_is_a_service_account_email_and_needs_calendar_google() -> None:
    assert DeployContext.from_context(VALID).google_delegation is None  # off by default
    given = {**VALID, "calendar": "google", "googleDelegation": SERVICE_ACCOUNT}
    assert DeployContext.from_context(given).google_delegation == SERVICE_ACCOUNT
    with pytest.raises(ContextError, match="needs calendar=google"):
        DeployContext.from_context({**VALID, "googleDelegation": SERVICE_ACCOUNT})
    with pytest.raises(ContextError, match="needs calendar=google"):
        DeployContext.from_context({**VALID, "calendar": "microsoft365", "googleDelegation": SERVICE_ACCOUNT})
    for wrong in (
        "me@example.com",
        "multitool-delegation@example-project.iam.gserviceaccount.com.evil",
        "x@y",
    ):
        with pytest.raises(
            ContextError, match=r"Invalid context 'googleDelegation'.*Allowed: a Google service"
        ):
            DeployContext.from_context({**VALID, "calendar": "google", "googleDelegation": wrong})
    with pytest.raises(ContextError, match="needs googleDelegation"):
        DeployContext.from_context({**VALID, "calendar": "google", "googleDelegationKeyId": GOOGLE_KEY_ID})
    with pytest.raises(ContextError, match=r"Invalid context 'googleDelegationKeyId'.*40 hex digits"):
        DeployContext.from_context({**given, "googleDelegationKeyId": "kid-1"})
