"""The synthesized suite choice: calendar=microsoft365 (with and without the organization-wide app
credential) and calendar=google set CALENDAR where tools run or confirms execute, grant the one
secret, drop SES from the review function, and stay cdk-nag and cfn-lint clean."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cfnlint.api import lint

from infra.context import ContextError, DeployContext
from tests.infra.iam_queries import actions_for_role, function_id, resources_for_action, role_of_function
from tests.infra.synth import Synthesized, synthesize

pytestmark = pytest.mark.infra

VALID = {"senderEmail": "me@example.com"}


@pytest.fixture(scope="module")
def microsoft365_stack(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    return synthesize(
        tmp_path_factory.mktemp("m365"), calendar="microsoft365", microsoft365AppCredential="true"
    )


@pytest.fixture(scope="module")
def google_stack(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    # Converse runs the tools in the orchestrator: its role and environment get the suite too.
    return synthesize(tmp_path_factory.mktemp("google"), calendar="google", runtime="converse")


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


def test_builtin_is_unchanged_no_calendar_and_ses_for_the_review(harness_stack: Synthesized) -> None:
    assert "CALENDAR" not in _env(harness_stack, "Review")
    review_role = role_of_function(harness_stack, function_id(harness_stack, "Review"))
    assert "ses:SendEmail" in actions_for_role(harness_stack, review_role)
    assert harness_stack.stack.suite.secret is None


@pytest.mark.parametrize("name", ["microsoft365_stack", "google_stack"])
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
