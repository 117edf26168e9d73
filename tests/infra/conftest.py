"""One synth per variant for the whole session (a synth takes seconds and half a gigabyte); each test gets
its own copy of the template (tests.support.synths)."""

from __future__ import annotations

import pytest
from multitool.models import DEFAULT_MODEL_ID

from tests.infra.synth import Synthesized
from tests.support.synths import StackSynths

DEFAULT_MODEL = DEFAULT_MODEL_ID  # cdk.json's: a global profile
PROFILE_MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"  # an older model a user may still pick
FOUNDATION_MODEL = "anthropic.claude-3-5-sonnet-20241022-v2:0"
EXISTING_POOL = "eu-west-1_AbCdEf123"  # a pool in another region than the stack
EXISTING_CLIENT = "1example23456789abcdefghij"
GUARDRAIL = "gr0abc123def"
CONFIGURATION_SET = "multitool-mail"
LOCAL_ORIGIN = "http://localhost:8000"
DOMAIN_PREFIX = "multitool-demo-team"
ONE_VCPU_MB = "1769"


@pytest.fixture(scope="session")
def synths(tmp_path_factory: pytest.TempPathFactory) -> StackSynths:
    """The session's stacks by context: any module asking for a context synthesized before shares it."""
    return StackSynths(tmp_path_factory.mktemp("synths"))


@pytest.fixture
def harness_stack(synths: StackSynths) -> Synthesized:
    """The default deploy, exactly cdk.json's context: the AgentCore harness on the `global.` profile."""
    return synths.get()


@pytest.fixture
def slack_stack(synths: StackSynths) -> Synthesized:
    """The default deploy with the Slack app (``-c slack=true``)."""
    return synths.get(slack="true")


@pytest.fixture
def agent_stack(synths: StackSynths) -> Synthesized:
    """Agents Classic (Lambda executors, a new user pool) on a plain foundation model id; the
    inference-profile form is the return-control variant's."""
    return synths.get(runtime="agent", modelId=FOUNDATION_MODEL)


@pytest.fixture
def return_control_stack(synths: StackSynths) -> Synthesized:
    """Agent with RETURN_CONTROL, an inference profile, a guardrail, an existing pool and sender."""
    return synths.get(
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


@pytest.fixture
def converse_stack(synths: StackSynths) -> Synthesized:
    """No Bedrock Agents: the orchestrator runs the Converse loop itself, with a guardrail; the
    orchestrator on one vCPU's memory, the review function on 512 MB."""
    return synths.get(
        runtime="converse",
        modelId=FOUNDATION_MODEL,
        guardrailId=GUARDRAIL,
        guardrailVersion="2",
        orchestratorMemory=ONE_VCPU_MB,
        reviewMemory="512",
    )


@pytest.fixture
def web_stack(synths: StackSynths) -> Synthesized:
    """The page's sign-in switches: self sign-up on, a local page allowed, a named domain prefix."""
    return synths.get(
        runtime="converse",
        modelId=FOUNDATION_MODEL,
        selfSignUp="true",
        localSignInOrigin=LOCAL_ORIGIN,
        authDomainPrefix=DOMAIN_PREFIX,
        jiraProjects='{"WEB": {"name": "Website", "issueTypes": ["Bug"]}}',
    )


@pytest.fixture
def gateway_stack(synths: StackSynths) -> Synthesized:
    """The harness calling the action-group Lambdas through an AgentCore Gateway."""
    return synths.get(executor="gateway")
