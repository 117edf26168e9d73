"""``multitool doctor``: a read-only preflight of the caller's own account and region.

Run it before ``cdk deploy`` (can this account and region run the default model and runtime?) and
after it (is the stack complete, the harness ready, the Jira secret filled?). Every check is a
read-only call (the sender's two: the address, then its domain) answered as one :class:`Finding`:
``ok``, ``warn`` or ``fail``, what is wrong and the one command or console step that fixes it.
``fail`` is kept for what stops a first chat turn (no credentials, a region without the runtime,
a model the account cannot call, a broken stack);
``warn`` for what stops one kind of action later (an unverified sender, the SES sandbox, the Jira
placeholder) and for what the doctor itself could not see (access denied to its read, throttling).

The calls and their shapes are botocore's service models (``sts``, ``bedrock``, ``lambda``, ``sesv2``,
``cloudformation``, ``bedrock-agentcore-control``, ``bedrock-agent``, ``secretsmanager``); the
clients are handed in, so tests run the same code on real clients under botocore's Stubber.
Nothing here writes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    ReadTimeoutError,
)
from pydantic import BaseModel, ConfigDict, Field, field_validator

from multitool.ports.jira import PLACEHOLDER_CREDENTIALS

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
CDK_JSON = Path(__file__).resolve().parents[4] / "cdk.json"
# Where AWS lists which AgentCore features (the harness, the Gateway) each region offers.
AGENTCORE_REGIONS_URL = "https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/agentcore-regions.html"
# Geography prefixes of Bedrock's system-defined inference profiles (infra.context.PROFILE_PREFIXES).
PROFILE_PREFIXES = ("us", "us-gov", "eu", "apac", "jp", "au", "ca", "global")
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
ALWAYS_OUTPUTS = ("ApiUrl", "UserPoolId", "UserPoolClientId", "JiraSecretArn")
RUNTIME_OUTPUTS = {"agentcore": ("HarnessArn",), "agent": ("AgentId", "AgentAliasId"), "converse": ()}

Runtime = Literal["agentcore", "agent", "converse"]
Executor = Literal["return_control", "gateway", "lambda"]
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
    context_runtime: Runtime = "agentcore"
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


@dataclass
class _Deployed:
    """What DescribeStacks said: the stack's findings and its outputs (None: not deployed)."""

    findings: list[Finding]
    outputs: dict[str, str] | None


class Doctor:
    """Runs every check in order against clients from ``client_for(service_name)``."""

    def __init__(self, target: Target, client_for: ClientFor, *, now: datetime | None = None) -> None:
        self.target = target
        self._client_for = client_for
        self._clients: dict[str, Any] = {}
        self._now = now or datetime.now(UTC)

    def _client(self, service: str) -> Any:
        if service not in self._clients:
            self._clients[service] = self._client_for(service)
        return self._clients[service]

    def run(self) -> list[Finding]:
        caller = self.check_caller()
        if caller.status is Status.FAIL:
            return [caller]  # every later call would fail the same way
        deployed = self.check_stack()
        runtime = self._runtime(deployed.outputs)
        gateway = self.target.executor == "gateway" or bool((deployed.outputs or {}).get("GatewayArn"))
        findings = [
            caller,
            *self.check_region(runtime, gateway=gateway),
            *self.check_model(),
            self.check_concurrency(),
        ]
        sender = self.target.sender_email
        if sender is None and deployed.outputs is not None:
            sender = self.deployed_sender()
        findings += [self.check_sender(sender), self.check_ses_account(), *deployed.findings]
        if deployed.outputs is not None:
            findings += self.check_deployed(deployed.outputs)
        return findings

    # -- the caller and the region ------------------------------------------------------------

    def check_caller(self) -> Finding:
        rejected = lambda error: Finding(  # noqa: E731 - one mapping for several codes
            "caller",
            Status.FAIL,
            f"AWS rejected the credentials ({_code(error)}).",
            "refresh them: `aws sso login`, or new access keys with `aws configure`.",
        )
        try:
            answer = self._ask(
                "caller",
                "sts:GetCallerIdentity",
                lambda: self._client("sts").get_caller_identity(),
                dict.fromkeys(REJECTED_CREDENTIALS, rejected),
                # No STS endpoint: a region name AWS does not have, or no network; nothing else answers.
                unreachable=Finding(
                    "caller",
                    Status.FAIL,
                    f"STS in {self.target.region} could not be reached.",
                    "check the region name (`aws account list-regions`) and the network.",
                ),
            )
        except NoCredentialsError:
            return Finding(
                "caller",
                Status.FAIL,
                "no AWS credentials found.",
                "sign in with `aws configure sso` (then `aws sso login`), or export AWS_PROFILE.",
            )
        if isinstance(answer, Finding):
            return answer
        return Finding("caller", Status.OK, f"account {answer['Account']} as {answer['Arn']}.")

    def _runtime(self, outputs: Mapping[str, str] | None) -> Runtime:
        """The runtime given, else the deployed stack's (by its outputs), else the deploy context's."""
        if self.target.runtime is not None:
            return self.target.runtime
        return self.target.context_runtime if outputs is None else runtime_of_outputs(outputs)

    def check_region(self, runtime: Runtime, *, gateway: bool) -> list[Finding]:
        """Only the harness runtime needs AgentCore in the region (and its Gateway, executor=gateway)."""
        if runtime != "agentcore":
            return []
        findings = [
            self._offered("harness region", "the AgentCore harness", "ListHarnesses", "list_harnesses")
        ]
        if gateway:
            findings.append(
                self._offered("gateway region", "the AgentCore Gateway", "ListGateways", "list_gateways")
            )
        return findings

    def _offered(self, check: str, feature: str, operation: str, method: str) -> Finding:
        region = self.target.region
        fix = f"deploy to a region that offers {feature} ({AGENTCORE_REGIONS_URL}): --region and AWS_REGION."
        answer = self._ask(
            check,
            f"bedrock-agentcore:{operation}",
            lambda: getattr(self._client("bedrock-agentcore-control"), method)(maxResults=1),
            {
                code: Finding(check, Status.FAIL, f"{region} does not offer {feature}.", fix)
                for code in NOT_OFFERED
            },
            unreachable=Finding(check, Status.FAIL, f"{region} has no AgentCore endpoint.", fix),
        )
        if isinstance(answer, Finding):
            return answer
        return Finding(check, Status.OK, f"{region} offers {feature}.")

    # -- the model -------------------------------------------------------------------------------

    def check_model(self) -> list[Finding]:
        findings = [self.check_lifecycle(), *self.check_availability()]
        if self.target.profile_geo is not None:
            findings.append(self.check_profile())
        if self.target.foundation_model_id.startswith("anthropic."):
            findings.append(self.check_use_case())
        return findings

    def check_lifecycle(self) -> Finding:
        model, region = self.target.foundation_model_id, self.target.region
        fix = (
            f"pick an ACTIVE model (`aws bedrock list-foundation-models --region {region} "
            "--query \"modelSummaries[?modelLifecycle.status=='ACTIVE'].modelId\"`) and deploy with "
            "-c modelId=<it>; check it here with --model-id."
        )
        answer = self._ask(
            "model",
            "bedrock:GetFoundationModel",
            lambda: self._client("bedrock").get_foundation_model(modelIdentifier=model),
            {
                "ResourceNotFoundException": lambda e: Finding(
                    "model", Status.FAIL, f"Bedrock in {region} has no model {model} ({_message(e)}).", fix
                ),
                "ValidationException": lambda e: Finding(
                    "model", Status.FAIL, f"{model} is not a model id Bedrock accepts ({_message(e)}).", fix
                ),
            },
        )
        if isinstance(answer, Finding):
            return answer
        lifecycle = answer.get("modelDetails", {}).get("modelLifecycle", {})
        status = lifecycle.get("status", "unknown")
        if status == "ACTIVE":
            return Finding("model", Status.OK, f"{model} is ACTIVE in {region}.")
        end = lifecycle.get("endOfLifeTime")
        if isinstance(end, datetime) and end <= self._now:
            return Finding("model", Status.FAIL, f"{model} reached its end of life on {_day(end)}.", fix)
        if status == "LEGACY":
            # Bedrock's lifecycle policy for models launched before 2026-09-07: new customers cannot
            # use a Legacy model and existing ones may lose it when idle
            # (https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle-legacy.html; later
            # models: https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle.html).
            when = f", end of life {_day(end)}" if end else ""
            return Finding(
                "model",
                Status.FAIL,
                f"{model} is LEGACY{when}: accounts new to it cannot call it.",
                fix,
            )
        return Finding("model", Status.FAIL, f"{model} is {status} in {region}.", fix)

    def check_availability(self) -> list[Finding]:
        model, region = self.target.foundation_model_id, self.target.region
        answer = self._ask(
            "model access",
            "bedrock:GetFoundationModelAvailability",
            lambda: self._client("bedrock").get_foundation_model_availability(modelId=model),
            {
                "ResourceNotFoundException": lambda e: Finding(
                    "model access",
                    Status.FAIL,
                    f"Bedrock in {region} knows no availability for {model} ({_message(e)}).",
                    f"check the id: `aws bedrock list-foundation-models --region {region}`.",
                )
            },
        )
        if isinstance(answer, Finding):
            return [answer]
        console = f"the Bedrock console in {region}, Model catalog, {model}"
        findings = []
        if answer.get("regionAvailability") == "NOT_AVAILABLE":
            findings.append(
                Finding(
                    "model region",
                    Status.FAIL,
                    f"{model} is not offered in {region}.",
                    "deploy to a region that serves it, or use its cross-region inference profile "
                    f"(`aws bedrock list-inference-profiles --region {region}`).",
                )
            )
        if answer.get("authorizationStatus") == "NOT_AUTHORIZED":
            findings.append(
                Finding(
                    "model authorization",
                    Status.FAIL,
                    f"Bedrock reports this account NOT_AUTHORIZED for {model}.",
                    "an administrator allows the model for the account (IAM and organization policies "
                    f"that deny bedrock:InvokeModel on it), then see {console}.",
                )
            )
        if answer.get("entitlementAvailability") == "NOT_AVAILABLE":
            findings.append(
                Finding(
                    "model entitlement",
                    Status.FAIL,
                    f"this account has no entitlement to {model}.",
                    f"open {console} and request access as an administrator.",
                )
            )
        findings.extend(self._agreement(answer.get("agreementAvailability") or {}))
        if not findings:
            return [Finding("model access", Status.OK, f"{model} is available to this account in {region}.")]
        return findings

    def _agreement(self, agreement: Mapping[str, Any]) -> list[Finding]:
        model = self.target.foundation_model_id
        status = agreement.get("status")
        # The first call subscribes only when the calling role may subscribe (Bedrock user guide,
        # "Request access to models": https://docs.aws.amazon.com/bedrock/latest/userguide/model-access.html).
        subscribe = (
            f"subscribe once as an administrator: `aws bedrock list-foundation-model-agreement-offers "
            f"--model-id {model}`, then `aws bedrock create-foundation-model-agreement --model-id {model} "
            "--offer-token <its offerToken>` (or the model's page in the Bedrock console)."
        )
        if status == "PENDING":
            return [
                Finding(
                    "model agreement",
                    Status.WARN,
                    f"the Marketplace subscription to {model} is still being set up.",
                    "wait a few minutes and run `multitool doctor` again.",
                )
            ]
        if status == "NOT_AVAILABLE":
            return [
                Finding(
                    "model agreement",
                    Status.FAIL,
                    f"this account has no Marketplace agreement for {model}; the first call subscribes only "
                    "if the calling role may aws-marketplace:Subscribe and ViewSubscriptions.",
                    subscribe,
                )
            ]
        if status == "ERROR":
            reason = agreement.get("errorMessage") or "no reason given"
            return [
                Finding(
                    "model agreement",
                    Status.FAIL,
                    f"the Marketplace agreement for {model} failed: {reason}.",
                    subscribe,
                )
            ]
        return []

    def check_profile(self) -> Finding:
        profile, region = self.target.model_id, self.target.region
        fix = (
            f"use a profile that exists in {region} (`aws bedrock list-inference-profiles --region {region} "
            "--type-equals SYSTEM_DEFINED`) and deploy with -c modelId=<its id>."
        )
        answer = self._ask(
            "inference profile",
            "bedrock:GetInferenceProfile",
            lambda: self._client("bedrock").get_inference_profile(inferenceProfileIdentifier=profile),
            {
                code: Finding(
                    "inference profile", Status.FAIL, f"{region} has no inference profile {profile}.", fix
                )
                for code in ("ResourceNotFoundException", "ValidationException")
            },
        )
        if isinstance(answer, Finding):
            return answer
        if answer.get("status") != "ACTIVE":
            return Finding("inference profile", Status.FAIL, f"{profile} is {answer.get('status')}.", fix)
        routes = len(answer.get("models", []))
        return Finding("inference profile", Status.OK, f"{profile} is ACTIVE and routes to {routes} regions.")

    def check_use_case(self) -> Finding:
        # Anthropic's one-time form: GetUseCaseForModelAccess answers ResourceNotFoundException
        # until it is submitted (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_GetUseCaseForModelAccess.html).
        fix = (
            f"submit Anthropic's use-case details once per account: the Bedrock console in "
            f"{self.target.region}, Model catalog, an Anthropic model (or "
            "`aws bedrock put-use-case-for-model-access --form-data fileb://form.json`)."
        )
        missing = Finding("use-case form", Status.FAIL, "Anthropic's use-case form is not on file.", fix)
        answer = self._ask(
            "use-case form",
            "bedrock:GetUseCaseForModelAccess",
            lambda: self._client("bedrock").get_use_case_for_model_access(),
            {"ResourceNotFoundException": missing},
        )
        if isinstance(answer, Finding):
            return answer
        if not answer.get("formData"):
            return missing
        return Finding("use-case form", Status.OK, "Anthropic's use-case form is on file.")

    # -- Lambda's concurrency -------------------------------------------------------------------

    def check_concurrency(self) -> Finding:
        """What the deploy's reservation needs of the account's Lambda concurrency quota."""
        region, reserved = self.target.region, self.target.reserved_concurrency
        answer = self._ask(
            "concurrency",
            "lambda:GetAccountSettings",
            lambda: self._client("lambda").get_account_settings(),
            {},
        )
        if isinstance(answer, Finding):
            return answer
        limit = answer.get("AccountLimit", {})
        quota = limit.get("ConcurrentExecutions", 0)
        unreserved = limit.get("UnreservedConcurrentExecutions", 0)
        if reserved == 0:
            return Finding(
                "concurrency",
                Status.OK,
                f"the deploy reserves none; its functions share the account's {quota} executions "
                f"({unreserved} unreserved) in {region}.",
            )
        needed = reserved + MIN_UNRESERVED
        fix = (
            "deploy with -c orchestratorConcurrency=0 -c reviewConcurrency=0 (the default), or ask for a "
            "higher quota: `aws service-quotas request-service-quota-increase --service-code lambda "
            f"--quota-code {CONCURRENCY_QUOTA_CODE} --desired-value {max(needed, 1000)} --region {region}`."
        )
        if quota < needed:
            return Finding(
                "concurrency",
                Status.FAIL,
                f"reserving {reserved} executions needs a quota of at least {needed} (Lambda keeps "
                f"{MIN_UNRESERVED} unreserved); this account's is {quota} in {region}.",
                fix,
            )
        if unreserved - reserved < MIN_UNRESERVED:
            return Finding(
                "concurrency",
                Status.WARN,
                f"reserving {reserved} executions would leave {unreserved - reserved} of {quota} unreserved, "
                f"under the {MIN_UNRESERVED} Lambda keeps: the deploy fails unless this stack already "
                "holds that reservation.",
                fix,
            )
        return Finding(
            "concurrency",
            Status.OK,
            f"reserving {reserved} executions leaves {unreserved - reserved} of {quota} unreserved "
            f"in {region}.",
        )

    # -- mail ------------------------------------------------------------------------------------

    def deployed_sender(self) -> str | None:
        """The address of the SES identity the stack made (createSenderIdentity=true): the physical
        id of an ``AWS::SES::EmailIdentity`` is the identity itself. None when it made none or the
        caller may not list the stack's resources (the sender line then asks for --sender-email)."""

        def find() -> dict[str, Any]:
            pages = self._client("cloudformation").get_paginator("list_stack_resources")
            for page in pages.paginate(StackName=self.target.stack):
                for resource in page.get("StackResourceSummaries", []):
                    if resource["ResourceType"] == "AWS::SES::EmailIdentity" and resource.get(
                        "PhysicalResourceId"
                    ):
                        return {"identity": resource["PhysicalResourceId"]}
            return {}

        answer = self._ask("sender", "cloudformation:ListStackResources", find, {})
        return None if isinstance(answer, Finding) else answer.get("identity")

    def check_sender(self, sender: str | None = None) -> Finding:
        sender, region = sender or self.target.sender_email, self.target.region
        if sender is None:
            return Finding(
                "sender",
                Status.WARN,
                "no sender address to check.",
                "pass --sender-email (the deploy's -c senderEmail).",
            )
        domain = sender.rpartition("@")[2]
        identity = self._identity(sender)
        if identity is None:  # not an identity: a verified domain covers every address in it
            identity = self._identity(domain)
        if isinstance(identity, Finding):
            return identity
        if identity is None:
            return Finding(
                "sender",
                Status.WARN,
                f"{sender} is not an SES identity in {region}.",
                "`cdk deploy -c senderEmail=...` creates it and SES mails a link to click "
                f"(or `aws sesv2 create-email-identity --email-identity {sender} --region {region}`).",
            )
        name, answer = identity
        if answer.get("VerifiedForSendingStatus"):
            return Finding("sender", Status.OK, f"{name} is verified for sending in {region}.")
        status = answer.get("VerificationStatus", "NOT_STARTED")
        return Finding(
            "sender",
            Status.WARN,
            f"{name} is not verified for sending (verification {status}): confirmed mail cannot be sent.",
            f"click the link SES mailed to {sender}; to mail it again: "
            f"`aws ses verify-email-identity --email-address {sender} --region {region}`."
            if name == sender
            else f"publish the DKIM records of {name} (SES console, Identities, {name}).",
        )

    def _identity(self, name: str) -> tuple[str, dict[str, Any]] | Finding | None:
        answer = self._ask(
            "sender",
            "ses:GetEmailIdentity",
            lambda: self._client("sesv2").get_email_identity(EmailIdentity=name),
            {"NotFoundException": None},
        )
        if answer is None or isinstance(answer, Finding):
            return answer
        return name, answer

    def check_ses_account(self) -> Finding:
        region = self.target.region
        answer = self._ask("ses account", "ses:GetAccount", lambda: self._client("sesv2").get_account(), {})
        if isinstance(answer, Finding):
            return answer
        if not answer.get("SendingEnabled", True):
            return Finding(
                "ses account",
                Status.WARN,
                f"sending is paused for this account in {region}: confirmed mail cannot be sent.",
                f"`aws sesv2 put-account-sending-attributes --sending-enabled --region {region}` "
                "(or see the SES console's Account dashboard for why it was paused).",
            )
        quota = answer.get("SendQuota", {}).get("Max24HourSend")
        per_day = f", at most {quota:.0f} messages a day" if quota is not None else ""
        if not answer.get("ProductionAccessEnabled"):
            review = answer.get("Details", {}).get("ReviewDetails", {}).get("Status")
            asked = f" (production access request {review})" if review else ""
            return Finding(
                "ses account",
                Status.WARN,
                f"in the SES sandbox in {region}{asked}: mail goes only to verified addresses{per_day}.",
                "request production access: the SES console, Account dashboard, Request production access "
                "(or verify each recipient: "
                f"`aws sesv2 create-email-identity --email-identity <address> --region {region}`).",
            )
        return Finding("ses account", Status.OK, f"production access in {region}{per_day}.")

    # -- the deployed stack ----------------------------------------------------------------------

    def check_stack(self) -> _Deployed:
        stack, region = self.target.stack, self.target.region
        deploy = "npx cdk deploy -c senderEmail=you@example.com"
        if stack != DEFAULT_STACK:  # a named copy (stackName): the deploy must name it too
            deploy += f" -c stackName={stack}"
        answer = self._ask(
            "stack",
            "cloudformation:DescribeStacks",
            lambda: self._client("cloudformation").describe_stacks(StackName=stack),
            {
                "ValidationError": Finding(
                    "stack",
                    Status.WARN,
                    f"{stack} is not deployed in {region} (the checks above hold before it).",
                    f"`{deploy}`; then run `multitool doctor` again.",
                )
            },
        )
        if isinstance(answer, Finding):
            return _Deployed([answer], None)
        found = answer["Stacks"][0]
        status, reason = found["StackStatus"], found.get("StackStatusReason")
        outputs = {
            o["OutputKey"]: o.get("OutputValue", "") for o in found.get("Outputs", []) if "OutputKey" in o
        }
        events = f"`aws cloudformation describe-stack-events --stack-name {stack} --region {region}`"
        why = f" ({reason})" if reason else ""
        if status in STACK_READY:
            stack_finding = Finding("stack", Status.OK, f"{stack} is {status} in {region}.")
        elif status.endswith("_IN_PROGRESS"):
            return _Deployed(
                [
                    Finding(
                        "stack",
                        Status.WARN,
                        f"{stack} is {status}.",
                        "wait for it to end, then run `multitool doctor` again.",
                    )
                ],
                None,
            )
        elif status in ("ROLLBACK_COMPLETE", "ROLLBACK_FAILED", "DELETE_FAILED", "DELETE_COMPLETE"):
            return _Deployed(
                [
                    Finding(
                        "stack",
                        Status.FAIL,
                        f"{stack} is {status}{why}: it cannot be updated.",
                        f"read why in {events}, then `aws cloudformation delete-stack --stack-name {stack} "
                        f"--region {region}` and `{deploy}`.",
                    )
                ],
                None,
            )
        else:
            stack_finding = Finding(
                "stack", Status.FAIL, f"{stack} is {status}{why}.", f"read why in {events} and deploy again."
            )
        return _Deployed([stack_finding, self._outputs(outputs)], outputs)

    def _outputs(self, outputs: Mapping[str, str]) -> Finding:
        runtime = self._runtime(outputs)
        wanted = expected_outputs(
            runtime,
            gateway=self.target.executor == "gateway",
            jira_as_user=bool(outputs.get("JiraCallbackUrl")),
        )
        missing = [key for key in wanted if not outputs.get(key)]
        if missing:
            return Finding(
                "outputs",
                Status.FAIL,
                f"the stack has no {', '.join(missing)} output (runtime {runtime}).",
                "deploy this checkout again (`npx cdk deploy`), or pass the --runtime it was deployed with.",
            )
        return Finding("outputs", Status.OK, f"{', '.join(wanted)} are set (runtime {runtime}).")

    def check_deployed(self, outputs: Mapping[str, str]) -> list[Finding]:
        findings = []
        if outputs.get("HarnessArn"):
            findings.append(self.check_harness(outputs["HarnessArn"]))
        if outputs.get("GatewayArn"):
            findings.append(self.check_gateway(outputs["GatewayArn"]))
        if outputs.get("AgentId") and outputs.get("AgentAliasId"):
            findings.append(self.check_agent_alias(outputs["AgentId"], outputs["AgentAliasId"]))
        if outputs.get("JiraSecretArn"):
            findings.append(self.check_jira_secret(outputs["JiraSecretArn"]))
        return findings

    def check_harness(self, harness_arn: str) -> Finding:
        harness_id = harness_arn.rpartition("/")[2]
        redeploy = "`npx cdk deploy` again (the stack recreates it)."
        answer = self._ask(
            "harness",
            "bedrock-agentcore:GetHarness",
            lambda: self._client("bedrock-agentcore-control").get_harness(harnessId=harness_id),
            {
                code: Finding(
                    "harness", Status.FAIL, f"no harness {harness_id} in {self.target.region}.", redeploy
                )
                for code in ("ResourceNotFoundException", "ValidationException")
            },
        )
        if isinstance(answer, Finding):
            return answer
        harness = answer["harness"]
        status = harness["status"]
        if status in ("CREATING", "UPDATING"):
            return Finding(
                "harness",
                Status.WARN,
                f"{harness_id} is {status}.",
                "wait a minute and run `multitool doctor` again.",
            )
        if status != "READY":
            why = f" ({harness['failureReason']})" if harness.get("failureReason") else ""
            return Finding("harness", Status.FAIL, f"{harness_id} is {status}{why}.", redeploy)
        runs = (harness.get("model") or {}).get("bedrockModelConfig", {}).get("modelId")
        if runs and runs != self.target.model_id:
            return Finding(
                "harness",
                Status.WARN,
                f"{harness_id} is READY but runs {runs}; the checks above were for {self.target.model_id}.",
                f"check the deployed model: `multitool doctor --model-id {runs}`.",
            )
        return Finding("harness", Status.OK, f"{harness_id} is READY.")

    def check_gateway(self, gateway_arn: str) -> Finding:
        gateway_id = gateway_arn.rpartition("/")[2]
        redeploy = "`npx cdk deploy -c executor=gateway` again."
        answer = self._ask(
            "gateway",
            "bedrock-agentcore:GetGateway",
            lambda: self._client("bedrock-agentcore-control").get_gateway(gatewayIdentifier=gateway_id),
            {
                code: Finding(
                    "gateway", Status.FAIL, f"no gateway {gateway_id} in {self.target.region}.", redeploy
                )
                for code in ("ResourceNotFoundException", "ValidationException")
            },
        )
        if isinstance(answer, Finding):
            return answer
        status = answer["status"]
        if status == "READY":
            return Finding("gateway", Status.OK, f"{gateway_id} is READY.")
        if status in ("CREATING", "UPDATING"):
            return Finding(
                "gateway",
                Status.WARN,
                f"{gateway_id} is {status}.",
                "wait a minute and run `multitool doctor` again.",
            )
        reasons = "; ".join(answer.get("statusReasons") or [])
        return Finding(
            "gateway",
            Status.FAIL,
            f"{gateway_id} is {status}" + (f" ({reasons})." if reasons else "."),
            redeploy,
        )

    def check_agent_alias(self, agent_id: str, alias_id: str) -> Finding:
        """runtime=agent: the alias the orchestrator invokes is prepared and accepts invocations."""
        redeploy = "`npx cdk deploy -c runtime=agent` again."
        answer = self._ask(
            "agent",
            "bedrock:GetAgentAlias",
            lambda: self._client("bedrock-agent").get_agent_alias(agentId=agent_id, agentAliasId=alias_id),
            {
                code: Finding("agent", Status.FAIL, f"no alias {alias_id} of agent {agent_id}.", redeploy)
                for code in ("ResourceNotFoundException", "ValidationException")
            },
        )
        if isinstance(answer, Finding):
            return answer
        alias = answer["agentAlias"]
        status, name = alias["agentAliasStatus"], f"{agent_id}/{alias_id}"
        if status in ("CREATING", "UPDATING"):
            return Finding(
                "agent",
                Status.WARN,
                f"{name} is {status}.",
                "wait a minute and run `multitool doctor` again.",
            )
        if status != "PREPARED":
            reasons = "; ".join(alias.get("failureReasons") or [])
            return Finding(
                "agent", Status.FAIL, f"{name} is {status}" + (f" ({reasons})." if reasons else "."), redeploy
            )
        if alias.get("aliasInvocationState") == "REJECT_INVOCATIONS":
            return Finding(
                "agent",
                Status.FAIL,
                f"{name} rejects invocations.",
                f"`aws bedrock-agent update-agent-alias --agent-id {agent_id} --agent-alias-id {alias_id} "
                f"--agent-alias-name {alias['agentAliasName']} --alias-invocation-state ACCEPT_INVOCATIONS`.",
            )
        return Finding("agent", Status.OK, f"{name} is PREPARED.")

    def check_jira_secret(self, secret_arn: str) -> Finding:
        region = self.target.region
        fill = (
            f"`aws secretsmanager put-secret-value --region {region} --secret-id {secret_arn} "
            '--secret-string \'{"baseUrl": "https://<site>.atlassian.net", "email": "<account email>", '
            '"apiToken": "<token>"}\'`.'
        )
        answer = self._ask(
            "jira secret",
            "secretsmanager:GetSecretValue",
            lambda: self._client("secretsmanager").get_secret_value(SecretId=secret_arn),
            {
                "ResourceNotFoundException": Finding(
                    "jira secret", Status.FAIL, f"no secret {secret_arn}.", "`npx cdk deploy` again."
                )
            },
        )
        if isinstance(answer, Finding):
            return answer
        # The value is read to tell the deploy's placeholder from real credentials; it is never printed.
        try:
            value = json.loads(answer.get("SecretString") or "")
            base_url, email = str(value["baseUrl"]), str(value["email"])
            str(value["apiToken"])
        except (ValueError, KeyError, TypeError):
            return Finding(
                "jira secret",
                Status.WARN,
                'the secret is not JSON with "baseUrl", "email" and "apiToken": Jira confirms fail.',
                fill,
            )
        if base_url == PLACEHOLDER_CREDENTIALS["baseUrl"] or email == PLACEHOLDER_CREDENTIALS["email"]:
            return Finding(
                "jira secret", Status.WARN, "still the deploy's placeholder: Jira confirms fail.", fill
            )
        return Finding("jira secret", Status.OK, f"filled for {base_url}.")

    # -- errors, mapped in one place -------------------------------------------------------------

    def _ask(
        self,
        check: str,
        action: str,
        call: Callable[[], dict[str, Any]],
        known: Mapping[str, Finding | Callable[[ClientError], Finding] | None],
        *,
        unreachable: Finding | None = None,
    ) -> Any:
        """``call()``'s answer, or the Finding its error means: ``known`` by error code first (None
        for an error that means "absent"), then access denied, throttling and no endpoint."""
        try:
            return call()
        except ClientError as error:
            code = _code(error)
            if code in known:
                meaning = known[code]
                return meaning(error) if callable(meaning) else meaning
            if code in ACCESS_DENIED:
                return Finding(
                    check,
                    Status.WARN,
                    f"not checked: the caller may not call {action}.",
                    f"allow {action} for your role, or run `multitool doctor` as an administrator.",
                )
            if code in THROTTLED:
                return Finding(
                    check,
                    Status.WARN,
                    f"not checked: {action} was throttled.",
                    "run `multitool doctor` again in a minute.",
                )
            return self._unexpected(check, action, error)
        except NoCredentialsError:
            raise  # the caller check's own answer; later checks never get here without credentials
        except (EndpointConnectionError, ConnectTimeoutError, ReadTimeoutError) as error:
            if unreachable is not None and isinstance(error, EndpointConnectionError):
                return unreachable
            return self._unreachable(check, action.partition(":")[0], error)
        except BotoCoreError as error:
            return self._unreachable(check, action.partition(":")[0], error)

    def _unexpected(self, check: str, action: str, error: ClientError) -> Finding:
        return Finding(
            check,
            Status.FAIL,
            f"{action} answered {_code(error)}: {_message(error)}",
            "read the message above; run `multitool doctor` again once it is resolved.",
        )

    def _unreachable(self, check: str, service: str, error: BotoCoreError) -> Finding:
        return Finding(
            check,
            Status.WARN,
            f"not checked: {service} in {self.target.region} could not be reached ({type(error).__name__}).",
            "check the network and the region name, then run `multitool doctor` again.",
        )


def runtime_of_outputs(outputs: Mapping[str, str]) -> Runtime:
    """The runtime a deployed stack runs, told by its outputs (HarnessArn, AgentId, neither)."""
    if outputs.get("HarnessArn"):
        return "agentcore"
    return "agent" if outputs.get("AgentId") else "converse"


def expected_outputs(runtime: Runtime, *, gateway: bool, jira_as_user: bool = False) -> list[str]:
    """The outputs a stack of this runtime (and executor) must have for a first turn; a stack that
    creates issues as each user (jiraAuth=user) has no Jira secret."""
    always = [key for key in ALWAYS_OUTPUTS if not (jira_as_user and key == "JiraSecretArn")]
    wanted = [*always, *RUNTIME_OUTPUTS[runtime]]
    if runtime == "agentcore" and gateway:
        wanted.append("GatewayArn")
    return wanted


def _code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", "Unknown"))


def _message(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Message", "")).rstrip(".") or "no message"


def _day(value: Any) -> str:
    return value.date().isoformat() if isinstance(value, datetime) else str(value)
