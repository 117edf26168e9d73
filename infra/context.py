"""Deploy-time context (`cdk deploy -c key=value` or cdk.json), validated before anything is built.

A bad value stops synth with one line naming the key and what it accepts, e.g.
``Invalid context 'runtime': 'foo'. Allowed: agentcore (the default), agent or converse.``
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Literal, Self

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

# The stack's default name and CloudWatch Logs' retention periods are worded there and read here, and
# infra/stack.py reads them from this module.
from infra.context_words import DEFAULT_STACK_NAME as DEFAULT_STACK_NAME
from infra.context_words import RETENTION_DAYS as RETENTION_DAYS
from infra.context_words import allowed, executors_of
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

DEFAULT_MCP_CALLBACK_URLS = ("http://localhost:8976/callback",)
"""The MCP app client's callback when the context names none: a loopback one, for a client set to it."""


class ContextError(ValueError):
    """One clear line: the key, the value given and what it accepts."""


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
                f"Allowed with runtime={self.runtime.value}: {executors_of(self.runtime)}."
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


ALLOWED: dict[str, str] = allowed(DeployContext.model_fields)
"""What each key accepts, in words: the second half of every error line."""

CONTEXT_KEYS: tuple[str, ...] = tuple(
    field.alias or name for name, field in DeployContext.model_fields.items()
)
"""Every key the app reads: the model's own fields, so a field is never left unread (a list kept by hand
once missed mcpCallbackUrls, and `-c mcpCallbackUrls=...` was silently ignored)."""
