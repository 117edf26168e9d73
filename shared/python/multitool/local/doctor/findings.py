"""What the doctor checks and what it answers: the target, the findings, the deploy's defaults and outputs."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from multitool.deployment import (
    ALWAYS_OUTPUTS,
    GATEWAY_OUTPUT,
    JIRA_SECRET_OUTPUT,
    PROFILE_PREFIXES,
    RUNTIME_OUTPUTS,
    Executor,
    Runtime,
)

# The stack infra/ deploys when the context names none (infra.stack.STACK_NAME; a test keeps the two equal).
DEFAULT_STACK = "Multitool"
# Lambda keeps this many of the account's executions unreserved: a function may reserve only what leaves
# them ("You can reserve up to the Unreserved account concurrency value ... minus 100 for functions that
# don't have reserved concurrency", https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html).
MIN_UNRESERVED = 100
# Service Quotas' code for Lambda's "Concurrent executions" quota.
CONCURRENCY_QUOTA_CODE = "L-B99A9384"
# Printed after the findings: what no read-only call can see before a deploy.
CLOSING_NOTES = (
    "cloudfront: a new AWS account can be refused CloudFront resources until AWS has verified it; the "
    "deploy then stops at the page's distribution with \"Your account must be verified before you can add "
    'new CloudFront resources". Open a case with AWS Support quoting that message, then deploy again.',
)
CDK_JSON = Path(__file__).resolve().parents[5] / "cdk.json"
# Where AWS lists which AgentCore features (the harness, the Gateway) each region offers.
AGENTCORE_REGIONS_URL = "https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/agentcore-regions.html"
_PROFILE = re.compile(rf"^(?P<geo>{'|'.join(sorted(PROFILE_PREFIXES, key=len, reverse=True))})\.(?P<fm>.+)$")
# CloudFormation's stack-name rule: with it checked first, DescribeStacks' only ValidationError is
# "does not exist" (CloudFormation has no not-found code of its own).
_STACK_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9-]{0,127}$")
_REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d{1,2}$")
_MODEL_ID = re.compile(r"^[a-z0-9-]+(\.[a-zA-Z0-9_.:-]+)+$")

ACCESS_DENIED = frozenset({"AccessDenied", "AccessDeniedException", "UnauthorizedOperation"})
THROTTLED = frozenset(
    {"Throttling", "ThrottlingException", "TooManyRequestsException", "RequestLimitExceeded"}
)
REJECTED_CREDENTIALS = frozenset(
    {
        "ExpiredToken",
        "ExpiredTokenException",
        "InvalidClientTokenId",
        "SignatureDoesNotMatch",
        "UnrecognizedClientException",
    }
)
# A region whose AgentCore endpoint does not know the operation: the feature is not offered there.
NOT_OFFERED = frozenset({"UnknownOperationException", "404"})
STACK_READY = frozenset({"CREATE_COMPLETE", "UPDATE_COMPLETE", "UPDATE_ROLLBACK_COMPLETE", "IMPORT_COMPLETE"})
ClientFor = Callable[[str], Any]


class Status(StrEnum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"


@dataclass(frozen=True, slots=True)
class Finding:
    """One check's answer: its status, what it saw and, when not ok, the one step that fixes it."""

    check: str
    status: Status
    message: str
    fix: str | None = None

    def to_wire(self) -> dict[str, str | None]:
        return {"check": self.check, "status": self.status.value, "message": self.message, "fix": self.fix}

    def line(self) -> str:
        text = f"{self.status.value:<4}  {self.check}: {self.message}"
        return f"{text} Fix: {self.fix}" if self.fix else text


class DoctorError(ValueError):
    """A bad option or an unreadable cdk.json: one line, nothing checked."""


class Target(BaseModel):
    """What to check: the deploy's region, model, stack, sender and runtime."""

    model_config = ConfigDict(frozen=True)

    region: str
    model_id: str
    stack: str = DEFAULT_STACK
    sender_email: str | None = None
    # Given on the command line; None: the deployed stack's (read from its outputs), else the
    # deploy context's (cdk.json).
    runtime: Runtime | None = None
    context_runtime: Runtime = Runtime.AGENTCORE
    executor: Executor | None = None
    # The executions the deploy reserves (orchestratorConcurrency + reviewConcurrency).
    reserved_concurrency: int = Field(default=0, ge=0)

    @field_validator("region")
    @classmethod
    def _region(cls, value: str) -> str:
        if not _REGION.match(value):
            raise ValueError(f"{value!r} is not an AWS region name (e.g. us-east-1)")
        return value

    @field_validator("model_id")
    @classmethod
    def _model(cls, value: str) -> str:
        if not _MODEL_ID.match(value):
            raise ValueError(
                f"{value!r} is not a Bedrock model id or inference profile id "
                "(e.g. anthropic.claude-sonnet-5-5 or global.<that id>)"
            )
        return value

    @field_validator("stack")
    @classmethod
    def _stack(cls, value: str) -> str:
        if not _STACK_NAME.match(value):
            raise ValueError(
                f"{value!r} is not a CloudFormation stack name (a letter, then letters, digits, -)"
            )
        return value

    @field_validator("sender_email")
    @classmethod
    def _sender(cls, value: str | None) -> str | None:
        if value is not None and value.count("@") != 1:
            raise ValueError(f"{value!r} is not an email address")
        return value

    @property
    def profile_geo(self) -> str | None:
        match = _PROFILE.match(self.model_id)
        return match["geo"] if match else None

    @property
    def foundation_model_id(self) -> str:
        match = _PROFILE.match(self.model_id)
        return match["fm"] if match else self.model_id


def deploy_defaults(cdk_json: Path = CDK_JSON) -> dict[str, str]:
    """The context keys the doctor defaults from (modelId, senderEmail, runtime, executor)."""
    try:
        context = json.loads(cdk_json.read_text(encoding="utf-8")).get("context", {})
    except (OSError, ValueError, AttributeError) as error:
        raise DoctorError(
            f"cannot read the deploy context in {cdk_json} ({error}); pass --model-id"
        ) from None
    keys = (
        "modelId",
        "senderEmail",
        "runtime",
        "executor",
        "stackName",
        "orchestratorConcurrency",
        "reviewConcurrency",
    )
    return {key: str(context[key]) for key in keys if isinstance(context, dict) and context.get(key)}


def reserved_concurrency(context: Mapping[str, str]) -> int:
    """What the deploy reserves: orchestratorConcurrency + reviewConcurrency (infra.context; 0 each by
    default). A value that is not a whole number counts as 0 here: the deploy itself refuses it."""
    total = 0
    for key in ("orchestratorConcurrency", "reviewConcurrency"):
        value = context.get(key, "0")
        total += int(value) if value.isdigit() else 0
    return total


def exit_code(findings: list[Finding]) -> int:
    """1 when anything blocks a first turn, else 0."""
    return 1 if any(f.status is Status.FAIL for f in findings) else 0


def runtime_of_outputs(outputs: Mapping[str, str]) -> Runtime:
    """The runtime a deployed stack runs, told by its outputs (HarnessArn, AgentId, neither)."""
    for runtime, keys in RUNTIME_OUTPUTS.items():
        if keys and outputs.get(keys[0]):
            return runtime
    return Runtime.CONVERSE


def expected_outputs(runtime: Runtime, *, gateway: bool, jira_as_user: bool = False) -> list[str]:
    """The outputs a stack of this runtime (and executor) must have for a first turn; a stack that
    creates issues as each user (jiraAuth=user) has no Jira secret."""
    always = [key for key in ALWAYS_OUTPUTS if not (jira_as_user and key == JIRA_SECRET_OUTPUT)]
    wanted = [*always, *RUNTIME_OUTPUTS[runtime]]
    if runtime is Runtime.AGENTCORE and gateway:
        wanted.append(GATEWAY_OUTPUT)
    return wanted
