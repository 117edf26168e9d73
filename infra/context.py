"""Deploy-time context (`cdk deploy -c key=value` or cdk.json), validated before anything is built.

A bad value stops synth with one line naming the key and what it accepts, e.g.
``Invalid context 'runtime': 'foo'. Allowed: agentcore (the default), agent or converse.``
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any, Literal, Self, get_args

from annotated_types import Ge, Le
from multitool.deployment import (
    AUDIT_RETENTION_DAYS,
    DEFAULT_EXECUTOR,
    OUTSIDE_RECIPIENTS_PER_DAY,
    PROFILE_PREFIXES,
    RECIPIENTS_PER_DAY,
    RUNNING_TURNS_PER_USER,
    RUNTIME_EXECUTORS,
    UNDO_SECONDS,
    CalendarName,
    Executor,
    Identity,
    JiraAuth,
    OutsideRecipients,
    Runtime,
)
from multitool.models import DEFAULT_MODEL_ID, foundation_model_id, marketplace_product_id
from multitool.settings.chat import DEFAULT_RUNNING_TURNS_PER_USER
from multitool.settings.review import (
    DEFAULT_AUDIT_RETENTION_DAYS,
    DEFAULT_OUTSIDE_RECIPIENTS_PER_DAY,
    DEFAULT_RECIPIENTS_PER_DAY,
    DEFAULT_UNDO_SECONDS,
)
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.fields import FieldInfo

from infra.geography import GEOGRAPHIES, profile_region_problem
from infra.memory import INTERACTIVE_MEMORY_MB, MAX_MEMORY_MB, MIN_MEMORY_MB

_MODEL = r"[a-z0-9-]+\.[a-zA-Z0-9][a-zA-Z0-9._-]*(:\d+(:[a-z0-9]+)?)?"
_MODEL_ID = re.compile(rf"^{_MODEL}$")
_PROFILE_ID = re.compile(
    rf"^(?P<geo>{'|'.join(re.escape(p) for p in PROFILE_PREFIXES)})\.(?P<model>{_MODEL})$"
)
# A service account's email: <name>@<project>.iam.gserviceaccount.com (the name 6-30 characters:
# https://cloud.google.com/iam/docs/service-accounts-create).
_SERVICE_ACCOUNT = re.compile(
    r"^[a-z][a-z0-9-]{4,28}[a-z0-9]@[a-z][a-z0-9-]{4,28}[a-z0-9]\.iam\.gserviceaccount\.com$"
)
_EMAIL = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")
_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.-]+(:\d{1,5})?$")
_POOL_ID = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d_[0-9A-Za-z]+$")
_POOL_CLIENT_ID = re.compile(r"^[\w+]{1,128}$")
# Cognito's rule for a prefix domain; it also refuses the words aws, amazon and cognito in it.
_DOMAIN_PREFIX = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")
_RESERVED_PREFIX_WORDS = ("aws", "amazon", "cognito")
_HTTPS_ORIGIN = re.compile(r"^https://[A-Za-z0-9.-]+(:\d{1,5})?$")
# Cognito accepts plain http callback URLs for localhost only.
_LOCAL_ORIGIN = re.compile(r"^http://(localhost|127\.0\.0\.1)(:\d{1,5})?$")
_GUARDRAIL_ID = re.compile(
    r"^(([a-z0-9]+)|(arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}:[0-9]{12}:guardrail/[a-z0-9]+))$"
)
_GUARDRAIL_VERSION = re.compile(r"^(DRAFT|[1-9][0-9]{0,7})$")
_CONFIGURATION_SET = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_PRODUCT_ID = re.compile(r"^prod-[a-z0-9]{1,64}$")
# CloudFormation's stack-name rule (a letter, then letters, digits and hyphens; at most 128).
_STACK_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9-]{0,127}$")
# A provider's OAuth client id: Entra's is a GUID, Google's ends in .apps.googleusercontent.com.
_CLIENT_ID = re.compile(r"^[A-Za-z0-9._-]{1,256}$")
_TENANT = re.compile(r"^[A-Za-z0-9.-]{1,253}$")
_DOMAIN = re.compile(r"^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")
# CloudWatch Logs' accepted retention periods, in days.
RETENTION_DAYS = (
    1,
    3,
    5,
    7,
    14,
    30,
    60,
    90,
    120,
    150,
    180,
    365,
    400,
    545,
    731,
    1096,
    1827,
    2192,
    2557,
    2922,
    3288,
    3653,
)

DEFAULT_STACK_NAME = "Multitool"
"""The stack's name when the context names none (``multitool doctor`` checks this one by default)."""

# What each key accepts, in words: the second half of every error line (ALLOWED, below the model, is these
# words with each field's own range filled in). Every field of DeployContext has its words here (a test
# holds the two equal), and the app reads exactly these keys. A range is stated once, on the field:
# {low}, {high} and {default} stand for its bounds and default; a field of fixed values (an enum or a
# Literal) has a word for each value instead (_CHOICES), and its list is made from the field's own values.
_WORDS: dict[str, str] = {
    "stackName": (
        "a CloudFormation stack name (a letter, then letters, digits and hyphens, at most 128), e.g. "
        f"MultitoolDev: one copy of the stack per name in an account and region; default {DEFAULT_STACK_NAME}"
    ),
    "modelId": (
        "a Bedrock model id (provider.model[:version], e.g. anthropic.claude-3-5-sonnet-20241022-v2:0) "
        f"or a cross-region inference profile id ({'/'.join(PROFILE_PREFIXES)} + '.' + model id)"
    ),
    "marketplaceProductId": (
        "the model's AWS Marketplace product id from its Bedrock model card, e.g. prod-e5xo6z26ie45g: "
        "the model's callers may then subscribe the account to exactly that product on first use"
    ),
    "senderEmail": "an email address SES can verify, e.g. -c senderEmail=you@example.com",
    "sesConfigurationSet": "the name of an existing SES configuration set (letters, digits, _ and -)",
    "createSenderIdentity": (
        "true (create the SES identity and mail its verification link), "
        "false (senderEmail is already an SES identity in this account and region)"
    ),
    "guardrailId": "a Bedrock guardrail id (lower-case letters and digits) or guardrail ARN",
    "guardrailVersion": "DRAFT or a version number",
    "webOrigin": "an origin without path, e.g. https://chat.example.com or http://localhost:8000",
    "userPoolId": "a Cognito user pool id such as us-east-1_AbCdEf123, given together with userPoolClientId",
    "userPoolClientId": "a Cognito app client id (letters and digits), given together with userPoolId",
    "userPoolDomain": (
        "the existing pool's managed sign-in domain as an https origin, e.g. "
        "https://auth.example.com or https://prefix.auth.us-east-1.amazoncognito.com, given with userPoolId"
    ),
    "authDomainPrefix": (
        "a Cognito domain prefix (lower-case letters, digits and hyphens, at most 63, "
        "without aws, amazon or cognito); default: multitool-<the stack's id>"
    ),
    "mcpCallbackUrls": (
        "comma-separated redirect URIs of the MCP clients (https://..., or http://localhost:PORT/...), "
        "with executor=gateway; default http://localhost:8976/callback"
    ),
    "selfSignUp": (
        "true (anyone may create an account on the sign-in page), false (administrators create users)"
    ),
    "localSignInOrigin": (
        "http://localhost:PORT or http://127.0.0.1:PORT: also allow sign-in from a page run locally"
    ),
    "idleSessionTtlSeconds": "a whole number of seconds from {low} to {high}",
    "logRetentionDays": ", ".join(str(d) for d in RETENTION_DAYS),
    "throttleRateLimit": "requests per second, a number from {low} to {high}",
    "throttleBurstLimit": "a whole number from {low} to {high}",
    "sandbox": "true, false",
    "customerManagedKey": (
        "true (the tables, log groups and secrets under a KMS key of the stack's own, $1 a month) or "
        "false (the AWS-managed DynamoDB and Secrets Manager keys and CloudWatch Logs' own encryption)"
    ),
    "defaultTimezone": "an IANA time zone name, e.g. Europe/Berlin",
    "jiraProjects": 'a JSON object of project key -> {"name": ..., "issueTypes": [...]}',
    "jiraClientId": (
        "the client id of the OAuth 2.0 (3LO) app registered in Atlassian's developer console (letters, "
        "digits, '.', '-' and '_'), given with jiraAuth=user"
    ),
    "jiraSiteUrl": "the Jira site's origin, e.g. https://your-site.atlassian.net, given with jiraAuth=user",
    "slack": (
        "true or false (default): the Slack app's function, its route POST /slack/events and its two "
        "secrets (docs/slack.md); not with identity=... or jiraAuth=user, which need each user's sign-in"
    ),
    # Whom a confirm may mail (multitool.review.limits).
    "recipientDomains": "comma-separated domains inside the organization, e.g. example.com,corp.example.com",
    "orchestratorConcurrency": (
        "executions reserved for the orchestrator (chat turns), a whole number from {low} (the default: "
        "none, the account's shared pool) to {high}; reserving needs the account's quota to keep 100 "
        "unreserved"
    ),
    "runningTurnsPerUser": (
        "Prefer: respond-async turns one user may have running at once, a whole number from {low} to {high}"
    ),
    "reviewConcurrency": (
        "executions reserved for the review function, a whole number from {low} (the default: none) to {high}"
    ),
    "orchestratorMemory": (
        "MB of memory for the orchestrator (Lambda gives CPU in proportion: 1769 is one vCPU), "
        "a whole number from {low} to {high}"
    ),
    "reviewMemory": "MB of memory for the review function, a whole number from {low} to {high}",
    "dailyTokenAlarm": (
        "model tokens (input + output) a day that raise the spend alarm, a whole number, at least {low}"
    ),
    "alarmEmail": (
        "an email address the alarm topic mails every alarm to (SNS mails it a confirmation link first); "
        "unset: the topic has no subscriber"
    ),
    "auditRetentionDays": "days each side effect's audit record is kept, a whole number from {low} to {high}",
    "undoSeconds": (
        "seconds a confirmed mail waits with Undo on its card, a whole number from {low} (sent at once, no "
        "undo queue) to {high} (SQS's longest message delay); default {default}"
    ),
    "recipientsPerDay": "addresses one user may mail per UTC day, a whole number from {low} to {high}",
    "outsideRecipientsPerDay": (
        "outside addresses one user may mail per UTC day, a whole number from {low} to {high}"
    ),
    "microsoft365AppCredential": (
        "true (an organization-wide Entra app credential in a Secrets Manager secret, with "
        "calendar=microsoft365; see docs/deploy.md for its risks), "
        "false (the default: no organization-wide credential)"
    ),
    "identityClientId": (
        "the client id of the app registered at the provider (letters, digits, '.', '-' and '_'), "
        "given with calendar=microsoft365 or calendar=google: each user then connects their own account"
    ),
    "identityTenantId": "the Microsoft Entra tenant id (a GUID) or domain the app is registered in",
    "googleDelegation": (
        "a Google service account's email, e.g. name@project.iam.gserviceaccount.com (Google domain-wide "
        "delegation signed with a KMS key this stack creates, with calendar=google; see docs/deploy.md for "
        "its risks); unset (the default): no organization-wide credential"
    ),
    "googleDelegationKeyId": (
        "the id Google shows for the uploaded certificate's key, 40 hex digits (sent as the JWT's kid, "
        "with googleDelegation); unset: no kid"
    ),
}


# The words of each value of a field of fixed values: the error lists them in the field's own order, and
# marks its default. A value without words here, or words for no value, stops the import.
_CHOICES: dict[str, dict[str, str]] = {
    "runtime": {Runtime.AGENTCORE: "", Runtime.AGENT: "", Runtime.CONVERSE: ""},
    "userPoolEmail": {
        "cognito": "Cognito's own sender, capped at 50 emails a day per account",
        "ses": (
            "invites and codes from senderEmail through SES, which must already be verified; a new pool only"
        ),
    },
    # Whose Jira account creates an issue (multitool.ports.atlassian.jira_cloud,
    # multitool.ports.atlassian.jira_user).
    "jiraAuth": {
        JiraAuth.ORGANIZATION: "one Jira account's API token in the Jira secret",
        JiraAuth.USER: (
            "each user's own Atlassian account with their consent, through AgentCore Identity; give "
            "jiraClientId and jiraSiteUrl"
        ),
    },
    # Whom a confirm may mail (multitool.review.limits).
    "outsideRecipients": {
        OutsideRecipients.ALLOWED: "counted like anyone",
        OutsideRecipients.CAPPED: "at most outsideRecipientsPerDay a day per user",
        OutsideRecipients.OFF: "only addresses in recipientDomains",
    },
    # Whose directory, calendar and mail the actions use (multitool.ports.provider_suites).
    "calendar": {
        "builtin": "this stack's own directory, bookings and SES",
        "microsoft365": "each user's Microsoft 365",
        "google": "each user's Google Workspace",
    },
    # Each user's own account through AgentCore Identity (infra.components.identity): the provider whose
    # accounts users connect, the calendar's own.
    "identity": {
        Identity.OFF: "no user connects an account",
        Identity.MICROSOFT365: "each user connects their Microsoft 365 account; calendar=microsoft365 with "
        "identityClientId implies it",
        Identity.GOOGLE: "each user connects their Google account; calendar=google with identityClientId "
        "implies it",
    },
}

DEFAULT_MCP_CALLBACK_URLS = ("http://localhost:8976/callback",)
"""The MCP app client's callback when the context names none: a loopback one, for a client set to it."""


class ContextError(ValueError):
    """One clear line: the key, the value given and what it accepts."""


# What each executor does under each runtime, for the error that refuses an executor the runtime does
# not run (multitool.deployment.RUNTIME_EXECUTORS says which it runs).
_EXECUTOR_WORDS: dict[Runtime, dict[Executor, str]] = {
    Runtime.AGENTCORE: {
        Executor.RETURN_CONTROL: (
            "the harness hands every call back to the orchestrator as an inline function, one batch per "
            "model response"
        ),
        Executor.GATEWAY: "the harness calls one action-group Lambda per call through an AgentCore Gateway",
    },
    Runtime.AGENT: {Executor.LAMBDA: "one action-group Lambda per tool", Executor.RETURN_CONTROL: ""},
}


class ModelRef(BaseModel):
    """A model id split into what IAM and Bedrock each need."""

    model_config = ConfigDict(frozen=True)

    model_id: str
    profile_geo: str | None = None

    @property
    def foundation_model_id(self) -> str:
        return foundation_model_id(self.model_id) if self.profile_geo else self.model_id

    @property
    def destination_region_pattern(self) -> str | None:
        """The IAM region segment of the foundation-model ARNs this profile may route to."""
        return GEOGRAPHIES[self.profile_geo].region_pattern if self.profile_geo else None

    @property
    def is_inference_profile(self) -> bool:
        return self.profile_geo is not None

    @property
    def is_global_profile(self) -> bool:
        return self.profile_geo == "global"


def parse_model_id(value: str) -> ModelRef:
    profile = _PROFILE_ID.match(value)
    if profile:
        return ModelRef(model_id=value, profile_geo=profile["geo"])
    if _MODEL_ID.match(value):
        return ModelRef(model_id=value)
    raise ValueError("malformed model id")


class DeployContext(BaseModel):
    """Every context key the app reads, with its default."""

    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="ignore")

    stack_name: str = Field(default=DEFAULT_STACK_NAME, alias="stackName")
    runtime: Runtime = Runtime.AGENTCORE
    executor: Executor | None = None
    # The layer's default (multitool.models), which cdk.json names too.
    model_id: str = Field(default=DEFAULT_MODEL_ID, alias="modelId")
    marketplace_product_id: str | None = Field(default=None, alias="marketplaceProductId")
    sender_email: str = Field(alias="senderEmail")
    ses_configuration_set: str | None = Field(default=None, alias="sesConfigurationSet")
    create_sender_identity: bool = Field(default=True, alias="createSenderIdentity")
    guardrail_id: str | None = Field(default=None, alias="guardrailId")
    guardrail_version: str = Field(default="DRAFT", alias="guardrailVersion")
    # No local origin by default: a deployed API answers CORS for a localhost page only when asked
    # (webOrigin or localSignInOrigin), since any page served on that port would otherwise be trusted.
    web_origin: str | None = Field(default=None, alias="webOrigin")
    user_pool_id: str | None = Field(default=None, alias="userPoolId")
    user_pool_client_id: str | None = Field(default=None, alias="userPoolClientId")
    user_pool_domain: str | None = Field(default=None, alias="userPoolDomain")
    auth_domain_prefix: str | None = Field(default=None, alias="authDomainPrefix")
    # Who mails the pool's invitations and codes: Cognito's own sender (50 a day per account) or SES.
    user_pool_email: Literal["cognito", "ses"] = Field(default="cognito", alias="userPoolEmail")
    self_sign_up: bool = Field(default=False, alias="selfSignUp")
    local_sign_in_origin: str | None = Field(default=None, alias="localSignInOrigin")
    idle_session_ttl_seconds: int = Field(default=600, ge=60, le=5400, alias="idleSessionTtlSeconds")
    log_retention_days: int = Field(default=30, alias="logRetentionDays")
    throttle_rate_limit: float = Field(default=10, ge=1, le=10000, alias="throttleRateLimit")
    throttle_burst_limit: int = Field(default=20, ge=1, le=5000, alias="throttleBurstLimit")
    sandbox: bool = False
    # Off: the AWS-managed keys cost nothing to hold; a key of the stack's own is for deployments whose
    # operators must hold the key policy or end PITR restorability by disabling the key (keys.py).
    customer_managed_key: bool = Field(default=False, alias="customerManagedKey")
    default_timezone: str = Field(default="UTC", alias="defaultTimezone")
    jira_projects: str | None = Field(default=None, alias="jiraProjects")
    # 0 (the default) leaves a function in the account's shared pool. Lambda keeps 100 executions of the
    # account's quota unreserved ("You can reserve up to the Unreserved account concurrency value ...
    # minus 100", https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html), and a new
    # account's quota may be 10: any reservation there fails the deploy. Reserving is the opt-in isolation
    # (a flood of turns cannot starve the confirms, and the reverse): docs/deploy.md, Concurrency.
    orchestrator_concurrency: int = Field(default=0, ge=0, le=1000, alias="orchestratorConcurrency")
    review_concurrency: int = Field(default=0, ge=0, le=1000, alias="reviewConcurrency")
    # The functions a person waits on (see infra.memory).
    orchestrator_memory: int = Field(
        default=INTERACTIVE_MEMORY_MB, ge=MIN_MEMORY_MB, le=MAX_MEMORY_MB, alias="orchestratorMemory"
    )
    review_memory: int = Field(
        default=INTERACTIVE_MEMORY_MB, ge=MIN_MEMORY_MB, le=MAX_MEMORY_MB, alias="reviewMemory"
    )
    # Of the orchestrator's executions, what one user's turns past the request may hold at once.
    running_turns_per_user: int = Field(
        default=DEFAULT_RUNNING_TURNS_PER_USER,
        ge=RUNNING_TURNS_PER_USER.low,
        le=RUNNING_TURNS_PER_USER.high,
        alias="runningTurnsPerUser",
    )
    daily_token_alarm: int = Field(default=5_000_000, ge=1000, alias="dailyTokenAlarm")
    # Who the alarm topic mails (infra.components.operations); the topic exists either way.
    alarm_email: str | None = Field(default=None, alias="alarmEmail")
    audit_retention_days: int = Field(
        default=DEFAULT_AUDIT_RETENTION_DAYS,
        ge=AUDIT_RETENTION_DAYS.low,
        le=AUDIT_RETENTION_DAYS.high,
        alias="auditRetentionDays",
    )
    # The undo window (infra.components.undo): one delayed SQS message per confirmed mail.
    undo_seconds: int = Field(
        default=DEFAULT_UNDO_SECONDS, ge=UNDO_SECONDS.low, le=UNDO_SECONDS.high, alias="undoSeconds"
    )
    recipient_domains: tuple[str, ...] = Field(default=(), alias="recipientDomains")
    # executor=gateway: where the user Gateway's MCP app client may send a signed-in user back (each
    # MCP client's own redirect URI, exactly: Cognito matches callbacks exactly, port included).
    mcp_callback_urls: tuple[str, ...] = Field(default=DEFAULT_MCP_CALLBACK_URLS, alias="mcpCallbackUrls")
    outside_recipients: OutsideRecipients = Field(default=OutsideRecipients.CAPPED, alias="outsideRecipients")
    recipients_per_day: int = Field(
        default=DEFAULT_RECIPIENTS_PER_DAY,
        ge=RECIPIENTS_PER_DAY.low,
        le=RECIPIENTS_PER_DAY.high,
        alias="recipientsPerDay",
    )
    calendar: CalendarName = "builtin"
    microsoft365_app_credential: bool = Field(default=False, alias="microsoft365AppCredential")
    google_delegation: str | None = Field(default=None, alias="googleDelegation")
    google_delegation_key_id: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{40}$", alias="googleDelegationKeyId"
    )
    outside_recipients_per_day: int = Field(
        default=DEFAULT_OUTSIDE_RECIPIENTS_PER_DAY,
        ge=OUTSIDE_RECIPIENTS_PER_DAY.low,
        le=OUTSIDE_RECIPIENTS_PER_DAY.high,
        alias="outsideRecipientsPerDay",
    )
    identity: Identity = Identity.OFF
    identity_client_id: str | None = Field(default=None, alias="identityClientId")
    identity_tenant_id: str | None = Field(default=None, alias="identityTenantId")
    jira_auth: JiraAuth = Field(default=JiraAuth.ORGANIZATION, alias="jiraAuth")
    jira_client_id: str | None = Field(default=None, alias="jiraClientId")
    jira_site_url: str | None = Field(default=None, alias="jiraSiteUrl")
    # The Slack app (docs/slack.md): a function of its own on POST /slack/events, no JWT on that route.
    slack: bool = False

    @field_validator("stack_name")
    @classmethod
    def _stack_name(cls, value: str) -> str:
        return _matching(_STACK_NAME, value)

    @model_validator(mode="after")
    def _pool_email_of_new_pool(self) -> Self:
        if self.user_pool_email == "ses" and self.user_pool_id is not None:
            raise ContextError(
                "Invalid context 'userPoolEmail': an existing pool (userPoolId) keeps its own email "
                "settings; set its sender in that pool, or leave userPoolEmail out."
            )
        return self

    @field_validator("jira_client_id")
    @classmethod
    def _jira_client(cls, value: str | None) -> str | None:
        return None if value is None else _matching(_CLIENT_ID, value)

    @field_validator("jira_site_url")
    @classmethod
    def _jira_site(cls, value: str | None) -> str | None:
        return None if value is None else _matching(_HTTPS_ORIGIN, value.rstrip("/"))

    @model_validator(mode="after")
    def _jira_app(self) -> Self:
        if self.jira_auth is JiraAuth.USER:
            for key, value in (("jiraClientId", self.jira_client_id), ("jiraSiteUrl", self.jira_site_url)):
                if value is None:
                    raise ContextError(f"Missing context '{key}'. Allowed: {ALLOWED[key]}.")
            return self
        for key, value in (("jiraClientId", self.jira_client_id), ("jiraSiteUrl", self.jira_site_url)):
            if value is not None:
                raise ContextError(
                    f"Invalid context '{key}': it belongs to Jira as each user; give it with "
                    "jiraAuth=user, or leave it out (the Jira secret names the site and the account)."
                )
        return self

    @field_validator("identity_client_id")
    @classmethod
    def _identity_client(cls, value: str | None) -> str | None:
        return None if value is None else _matching(_CLIENT_ID, value)

    @field_validator("identity_tenant_id")
    @classmethod
    def _identity_tenant(cls, value: str | None) -> str | None:
        return None if value is None else _matching(_TENANT, value)

    @model_validator(mode="before")
    @classmethod
    def _identity_of_calendar(cls, data: Any) -> Any:
        # One choice: a provider calendar given the app users consent to is that calendar's per-user
        # consent, so identity need not be said again (an explicit identity must agree with it).
        if not isinstance(data, Mapping) or "identity" in data:
            return data
        client = data.get("identityClientId", data.get("identity_client_id"))
        if client is not None and data.get("calendar") in (Identity.MICROSOFT365, Identity.GOOGLE):
            return {**data, "identity": data["calendar"]}
        return data

    @model_validator(mode="after")
    def _identity_app(self) -> Self:
        if self.identity is not Identity.OFF and self.identity_client_id is None:
            raise ContextError(f"Missing context 'identityClientId'. Allowed: {ALLOWED['identityClientId']}.")
        if self.identity is Identity.OFF and self.identity_client_id is not None:
            raise ContextError(
                "Invalid context 'identityClientId': it names the app users connect their accounts to; "
                "give it with calendar=microsoft365 or calendar=google, or leave it out."
            )
        if self.identity is not Identity.OFF and self.identity.value != self.calendar:
            raise ContextError(
                f"Invalid context 'identity': identity={self.identity.value} connects accounts only "
                f"calendar={self.identity.value} uses (calendar is {self.calendar}); give "
                f"calendar={self.identity.value} with identityClientId and leave identity out."
            )
        if self.identity_tenant_id is not None and self.identity is not Identity.MICROSOFT365:
            raise ContextError(
                "Invalid context 'identityTenantId': only a Microsoft 365 app (identity=microsoft365) "
                "has a tenant."
            )
        return self

    @field_validator("mcp_callback_urls", mode="before")
    @classmethod
    def _mcp_callbacks(cls, value: Any) -> Any:
        urls = [u.strip() for u in value.split(",") if u.strip()] if isinstance(value, str) else value
        for url in urls:
            # Cognito takes plain http for localhost only (multitool.local.deployed.login says where that is
            # written).
            if not (url.startswith("https://") or url.startswith(("http://localhost:", "http://localhost/"))):
                raise ValueError(f"mcpCallbackUrls: {url!r} must be https:// or http://localhost")
        if not urls:
            raise ValueError("mcpCallbackUrls: name at least one callback URL")
        return urls

    @field_validator("recipient_domains", mode="before")
    @classmethod
    def _domains(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [d.strip() for d in value.split(",") if d.strip()]
        if isinstance(value, list | tuple):
            return tuple(_matching(_DOMAIN, str(d)).casefold() for d in value)
        return value

    @field_validator("model_id")
    @classmethod
    def _model(cls, value: str) -> str:
        parse_model_id(value)
        return value

    @field_validator("marketplace_product_id")
    @classmethod
    def _product(cls, value: str | None) -> str | None:
        return None if value is None else _matching(_PRODUCT_ID, value)

    @field_validator("sender_email")
    @classmethod
    def _sender(cls, value: str) -> str:
        return _matching(_EMAIL, value)

    @field_validator("alarm_email")
    @classmethod
    def _alarm_email(cls, value: str | None) -> str | None:
        return None if value is None else _matching(_EMAIL, value)

    @field_validator("ses_configuration_set")
    @classmethod
    def _configuration_set(cls, value: str | None) -> str | None:
        return None if value is None else _matching(_CONFIGURATION_SET, value)

    @field_validator("guardrail_id")
    @classmethod
    def _guardrail(cls, value: str | None) -> str | None:
        return None if value is None else _matching(_GUARDRAIL_ID, value)

    @field_validator("guardrail_version")
    @classmethod
    def _guardrail_version(cls, value: str) -> str:
        return _matching(_GUARDRAIL_VERSION, value)

    @field_validator("web_origin")
    @classmethod
    def _origin(cls, value: str | None) -> str | None:
        return None if value is None else _matching(_ORIGIN, value)

    @field_validator("user_pool_id")
    @classmethod
    def _pool(cls, value: str | None) -> str | None:
        return None if value is None else _matching(_POOL_ID, value)

    @field_validator("user_pool_client_id")
    @classmethod
    def _pool_client(cls, value: str | None) -> str | None:
        return None if value is None else _matching(_POOL_CLIENT_ID, value)

    @field_validator("user_pool_domain")
    @classmethod
    def _pool_domain(cls, value: str | None) -> str | None:
        return None if value is None else _matching(_HTTPS_ORIGIN, value.rstrip("/"))

    @field_validator("auth_domain_prefix")
    @classmethod
    def _domain_prefix(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if any(word in value for word in _RESERVED_PREFIX_WORDS):
            raise ValueError("reserved word")
        return _matching(_DOMAIN_PREFIX, value)

    @field_validator("local_sign_in_origin")
    @classmethod
    def _local_origin(cls, value: str | None) -> str | None:
        return None if value is None else _matching(_LOCAL_ORIGIN, value)

    @field_validator("log_retention_days")
    @classmethod
    def _retention(cls, value: int) -> int:
        if value not in RETENTION_DAYS:
            raise ValueError("not a CloudWatch Logs retention period")
        return value

    @field_validator("default_timezone")
    @classmethod
    def _timezone(cls, value: str) -> str:
        from zoneinfo import available_timezones

        if value not in available_timezones():
            raise ValueError("unknown time zone")
        return value

    @field_validator("jira_projects", mode="before")
    @classmethod
    def _projects(cls, value: Any) -> Any:
        if isinstance(value, dict):  # cdk.json may hold the object itself
            value = json.dumps(value)
        if isinstance(value, str):
            parsed = json.loads(value)  # JSONDecodeError is a ValueError: reported on this key
            if not isinstance(parsed, dict) or not parsed:
                raise ValueError("not a JSON object")
        return value

    @model_validator(mode="after")
    def _executor_of_runtime(self) -> Self:
        accepted = RUNTIME_EXECUTORS.get(self.runtime)
        if self.executor is not None and accepted is not None and self.executor not in accepted:
            raise ContextError(
                f"Invalid context 'executor': {self.executor.value!r}. "
                f"Allowed with runtime={self.runtime.value}: {_executors_of(self.runtime)}."
            )
        return self

    @model_validator(mode="after")
    def _consent_reaches_the_tools(self) -> Self:
        # A tool Lambda is invoked with its caller's role and handed no user token: an AgentCore
        # Gateway's Lambda target (its OAuth is for MCP and OpenAPI targets: the target-type table of
        # https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/gateway-outbound-auth.html), as
        # a Bedrock agent's action group. Such a tool can never act in the user's own calendar. Jira
        # as the user is unaffected: only the review function, which receives the JWT, creates an issue.
        if self.identity is not Identity.OFF and self.lambda_executors:
            executor = self.resolved_executor
            assert executor is not None  # Lambda executors are an executor
            raise ContextError(
                f"Invalid context 'executor': executor={executor.value} cannot use each user's own "
                f"{self.identity.value} account (the tool Lambdas receive no user token); "
                "use executor=return_control."
            )
        return self

    @model_validator(mode="after")
    def _guardrail_runtime(self) -> Self:
        # A guardrail the runtime would not apply is refused, never silently dropped. botocore's
        # bedrock-agentcore-control CreateHarness and bedrock-agentcore InvokeHarness shapes have no
        # guardrail member, so the harness cannot take one. Agents Classic applies it
        # (guardrailConfiguration on the agent), the Converse loop on every call (guardrailConfig).
        if self.guardrail_id is not None and self.runtime is Runtime.AGENTCORE:
            raise ContextError(
                f"Invalid context 'guardrailId': runtime={self.runtime.value} does not apply a Bedrock "
                "guardrail (the AgentCore harness takes none), so it would be ignored. Use runtime=converse "
                "or runtime=agent with guardrailId, or leave it out."
            )
        return self

    @model_validator(mode="after")
    def _app_credential_of_calendar(self) -> Self:
        if self.microsoft365_app_credential and self.calendar != "microsoft365":
            raise ContextError(
                "Invalid context 'microsoft365AppCredential': it is the Microsoft 365 app's credential, "
                f"so it needs calendar=microsoft365 (calendar is {self.calendar})."
            )
        return self

    @field_validator("google_delegation")
    @classmethod
    def _service_account(cls, value: str | None) -> str | None:
        return None if value is None else _matching(_SERVICE_ACCOUNT, value)

    @model_validator(mode="after")
    def _delegation_of_calendar(self) -> Self:
        if self.google_delegation_key_id is not None and self.google_delegation is None:
            raise ContextError(
                "Invalid context 'googleDelegationKeyId': it is the key of the googleDelegation service "
                "account, so it needs googleDelegation=<the service account's email>."
            )
        if self.google_delegation is not None and self.calendar != "google":
            raise ContextError(
                "Invalid context 'googleDelegation': it is the Google Workspace credential, "
                f"so it needs calendar=google (calendar is {self.calendar})."
            )
        return self

    @model_validator(mode="after")
    def _pool_pair(self) -> Self:
        if (self.user_pool_id is None) != (self.user_pool_client_id is None):
            missing = "userPoolClientId" if self.user_pool_client_id is None else "userPoolId"
            raise ContextError(f"Missing context '{missing}'. Allowed: {ALLOWED[missing]}.")
        return self

    @model_validator(mode="after")
    def _pool_domain_needs_pool(self) -> Self:
        if self.user_pool_domain is not None and self.user_pool_id is None:
            raise ContextError(
                "Invalid context 'userPoolDomain': it names the sign-in domain of an existing pool; "
                "give userPoolId and userPoolClientId with it, or leave it out to get a new pool and domain."
            )
        if self.auth_domain_prefix is not None and self.user_pool_id is not None:
            raise ContextError(
                "Invalid context 'authDomainPrefix': an existing pool (userPoolId) keeps its own domain; "
                "pass it as userPoolDomain instead."
            )
        return self

    @property
    def model(self) -> ModelRef:
        return parse_model_id(self.model_id)

    @property
    def marketplace_product(self) -> str | None:
        """The product the model's first call may subscribe to: given, or from the model's card."""
        return self.marketplace_product_id or marketplace_product_id(self.model_id)

    def check_model_region(self, region: str | None) -> None:
        """Refuse an inference profile that does not exist in the stack's region (e.g. ``us.`` in
        eu-west-1), naming the prefix that does; ``None`` (an env-agnostic synth) cannot be checked."""
        model = self.model
        if region is None or model.profile_geo is None:
            return
        problem = profile_region_problem(model.profile_geo, model.foundation_model_id, region)
        if problem:
            raise ContextError(f"Invalid context 'modelId': {self.model_id!r}. {problem}")

    @property
    def uses_agent(self) -> bool:
        return self.runtime is Runtime.AGENT

    @property
    def uses_harness(self) -> bool:
        return self.runtime is Runtime.AGENTCORE

    @property
    def resolved_executor(self) -> Executor | None:
        """The executor given, else the runtime's default; None for Converse (no executor)."""
        return self.executor or DEFAULT_EXECUTOR.get(self.runtime)

    @property
    def uses_gateway(self) -> bool:
        """The harness calls the tools through an AgentCore Gateway (agentcore runtime, gateway executor)."""
        return self.uses_harness and self.resolved_executor is Executor.GATEWAY

    @property
    def lambda_executors(self) -> bool:
        """Action-group Lambdas exist only when something invokes them: a Bedrock agent (executor
        lambda) or the AgentCore Gateway (executor gateway)."""
        return (self.uses_agent and self.resolved_executor is Executor.LAMBDA) or self.uses_gateway

    @property
    def tools_in_orchestrator(self) -> bool:
        return not self.lambda_executors

    @classmethod
    def from_context(cls, values: Mapping[str, Any]) -> DeployContext:
        """Validate raw context; a problem raises ContextError with one line."""
        # An empty string given on the command line means "not set".
        present = {key: value for key, value in values.items() if value is not None and value != ""}
        try:
            return cls.model_validate(present)
        except ValidationError as error:
            raise _context_error(error, present) from None


def _matching(pattern: re.Pattern[str], value: str) -> str:
    if not pattern.match(value):
        raise ValueError("does not match")
    return value


def _context_error(error: ValidationError, given: Mapping[str, Any]) -> ContextError:
    first = error.errors()[0]
    if first["type"] == "value_error" and isinstance(first.get("ctx", {}).get("error"), ContextError):
        return first["ctx"]["error"]  # type: ignore[no-any-return]
    key = str(first["loc"][0]) if first["loc"] else "context"
    key = _alias(key)
    allowed = ALLOWED.get(key, "see the README's Configuration section")
    if first["type"] == "missing":
        return ContextError(f"Missing context '{key}'. Allowed: {allowed}.")
    return ContextError(f"Invalid context '{key}': {given.get(key)!r}. Allowed: {allowed}.")


def _alias(name: str) -> str:
    field = DeployContext.model_fields.get(name)
    return field.alias if field is not None and field.alias else name


def _listed(items: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def _worded(value: str, words: str) -> str:
    return f"{value} ({words})" if words else value


def _same_values(what: str, values: Iterable[str], words: Iterable[str]) -> None:
    """Refuse, at import, words for a value the field does not take or a value without its words."""
    if set(values) != set(words):
        raise ValueError(f"{what}: the values {sorted(values)} have words for {sorted(words)}")


def _executors_of(runtime: Runtime) -> str:
    """The executors ``runtime`` runs, each with what it does (the error refusing another)."""
    accepted, words = RUNTIME_EXECUTORS[runtime], _EXECUTOR_WORDS[runtime]
    _same_values(f"executor with runtime={runtime}", accepted, words)
    return _listed([_worded(executor, words[executor]) for executor in accepted])


def _every_executor() -> str:
    """Each runtime's executors, its default marked: runtime=converse has none."""
    return ", ".join(
        _listed([_worded(e, "the default" if e is DEFAULT_EXECUTOR[runtime] else "") for e in accepted])
        + f" (runtime={runtime})"
        for runtime, accepted in RUNTIME_EXECUTORS.items()
    )


def _values(annotation: Any) -> tuple[str, ...]:
    """The values a field of fixed values takes, in its own order: an enum's or a Literal's."""
    if isinstance(annotation, type) and issubclass(annotation, StrEnum):
        return tuple(member.value for member in annotation)
    return tuple(str(value) for value in get_args(annotation))


def _choices(key: str, field: FieldInfo) -> str:
    """``a (the default: ...), b (...) or c (...)``: every value of the field with its words."""
    values, words = _values(field.annotation), _CHOICES[key]
    _same_values(f"context {key!r}", values, words)
    default = getattr(field.default, "value", field.default)
    marked = {v: f"the default: {w}" if w else "the default" for v, w in words.items() if v == default}
    return _listed([_worded(value, marked.get(value, words[value])) for value in values])


def _ranged(key: str, field: FieldInfo) -> str:
    """The key's words with the field's own bounds and default filled in: a range is stated once."""
    words = _WORDS[key]
    bounds = {"{low}": Ge, "{high}": Le}
    for token, kind in bounds.items():
        bound = next((getattr(m, kind.__name__.lower()) for m in field.metadata if isinstance(m, kind)), None)
        if (bound is None) != (token not in words):
            raise ValueError(f"context {key!r}: its words and its field disagree on {token}")
        words = words.replace(token, str(bound))
    return words.replace("{default}", str(field.default))


def _allowed() -> dict[str, str]:
    allowed: dict[str, str] = {}
    for name, field in DeployContext.model_fields.items():
        key = field.alias or name
        if key == "executor":
            allowed[key] = _every_executor()
        else:
            allowed[key] = _choices(key, field) if key in _CHOICES else _ranged(key, field)
    stale = (set(_WORDS) | set(_CHOICES)) - set(allowed)
    if stale:
        raise ValueError(f"words for context keys no field reads: {sorted(stale)}")
    return allowed


ALLOWED: dict[str, str] = _allowed()
"""What each key accepts, in words: the second half of every error line."""

CONTEXT_KEYS: tuple[str, ...] = tuple(
    field.alias or name for name, field in DeployContext.model_fields.items()
)
"""Every key the app reads: the model's own fields, so a field is never left unread (a list kept by hand
once missed mcpCallbackUrls, and `-c mcpCallbackUrls=...` was silently ignored)."""
