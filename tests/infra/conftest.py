"""One synth per variant for the whole session: a synth takes seconds and half a gigabyte."""

from __future__ import annotations

import pytest
from multitool.models import DEFAULT_MODEL_ID

from tests.infra.synth import Synthesized, synthesize

DEFAULT_MODEL = DEFAULT_MODEL_ID  # cdk.json's: a global profile
PROFILE_MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"  # an older model a user may still pick
FOUNDATION_MODEL = "anthropic.claude-3-5-sonnet-20241022-v2:0"
EXISTING_POOL = "eu-west-1_AbCdEf123"  # a pool in another region than the stack
EXISTING_CLIENT = "1example23456789abcdefghij"
GUARDRAIL = "gr0abc123def"
CONFIGURATION_SET = "multitool-mail"
LOCAL_ORIGIN = "http://localhost:8000"
DOMAIN_PREFIX = "multitool-demo-team"


@pytest.fixture(scope="session")
def harness_stack(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    """The default deploy, exactly cdk.json's context: the AgentCore harness on the `global.` profile."""
    return synthesize(tmp_path_factory.mktemp("harness"))


@pytest.fixture(scope="session")
def agent_stack(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    """Agents Classic (Lambda executors, a new user pool) on a plain foundation model id; the
    inference-profile form is the return-control variant's."""
    return synthesize(tmp_path_factory.mktemp("agent"), runtime="agent", modelId=FOUNDATION_MODEL)


@pytest.fixture(scope="session")
def return_control_stack(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    """Agent with RETURN_CONTROL, an inference profile, a guardrail, an existing pool and sender."""
    return synthesize(
        tmp_path_factory.mktemp("return-control"),
        runtime="agent",
        executor="return_control",
        modelId=PROFILE_MODEL,
        guardrailId=GUARDRAIL,
        guardrailVersion="3",
        userPoolId=EXISTING_POOL,
        userPoolClientId=EXISTING_CLIENT,
        webOrigin="https://chat.example.com",
        sesConfigurationSet=CONFIGURATION_SET,
        createSenderIdentity="false",
    )


@pytest.fixture(scope="session")
def converse_stack(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    """No Bedrock Agents: the orchestrator runs the Converse loop itself, with a guardrail."""
    return synthesize(
        tmp_path_factory.mktemp("converse"),
        runtime="converse",
        modelId=FOUNDATION_MODEL,
        guardrailId=GUARDRAIL,
        guardrailVersion="2",
    )


@pytest.fixture(scope="session")
def web_stack(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    """The page's sign-in switches: self sign-up on, a local page allowed, a named domain prefix."""
    return synthesize(
        tmp_path_factory.mktemp("web"),
        runtime="converse",
        modelId=FOUNDATION_MODEL,
        selfSignUp="true",
        localSignInOrigin=LOCAL_ORIGIN,
        authDomainPrefix=DOMAIN_PREFIX,
        jiraProjects='{"WEB": {"name": "Website", "issueTypes": ["Bug"]}}',
    )


@pytest.fixture(scope="session")
def gateway_stack(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    """The harness calling the action-group Lambdas through an AgentCore Gateway."""
    return synthesize(tmp_path_factory.mktemp("gateway"), executor="gateway")
