"""Environment settings, validated by pydantic: one class per kind of function.

Handlers call ``XSettings.from_env()`` lazily (never at import time in domain
code); the stack sets exactly these variables. Field names map to upper-case
environment variables (``drafts_table_name`` <- ``DRAFTS_TABLE_NAME``).

Here: what the tools need (:class:`ToolSettings`, the action groups'), and the
identity and interceptor settings. The orchestrator's class is in
:mod:`multitool.settings.chat`, the review function's in
:mod:`multitool.settings.review`: a function imports its own and not the
others' (each class costs about 1.2 ms of a cold start to define, Python 3.13).
"""

import json
import os
from collections.abc import Mapping
from enum import StrEnum
from http import HTTPStatus
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from multitool.deployment import CalendarName, IdentityProvider, JiraAuth, Runtime
from multitool.errors import ServiceError


class SettingsError(ServiceError, ValueError):
    """A missing or invalid environment variable, named in the message (logged, never answered)."""

    code = "not_configured"
    status = HTTPStatus.INTERNAL_SERVER_ERROR
    answer = "The chat service is not configured."


class JiraProject(BaseModel):
    model_config = ConfigDict(frozen=True, populate_by_name=True, defer_build=True)

    name: str
    issue_types: tuple[str, ...] = Field(default=("Bug", "Task", "Story"), alias="issueTypes")


DEFAULT_JIRA_PROJECTS = '{"WEB": {"name": "Website"}, "OPS": {"name": "Operations"}}'


class _EnvSettings(BaseModel):
    # Each function validates one of these classes (the review its own, the orchestrator the chat's,
    # IdentitySettings only with consent on): deferred, a class none of its requests validates is
    # never built, and the one it does is built on its first validation.
    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Self:
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for name in cls.model_fields:
            raw = env.get(name.upper())
            if raw is not None and raw != "":
                values[name] = raw
        try:
            return cls.model_validate(values)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']).upper()}: {e['msg']}" for e in error.errors()
            )
            raise SettingsError(f"Invalid environment for {cls.__name__}: {problems}") from error


class ToolSettings(_EnvSettings):
    """What the tools need: action-group Lambdas, and the orchestrator when it runs tools itself."""

    drafts_table_name: str
    directory_table_name: str
    bookings_table_name: str
    mailbox_table_name: str | None = Field(
        default=None,
        description="The builtin mailbox (multitool.ports.aws.dynamo_mailbox); unset: builtin users have no "
        "mailbox to reply from",
    )
    jira_projects: dict[str, JiraProject] = Field(default_factory=lambda: _projects(DEFAULT_JIRA_PROJECTS))
    # How Jira is signed in to: the review creates and changes issues; a card names an existing one
    # (multitool.tools.jira.find), so the functions that make cards read issues the same way.
    jira_secret_arn: str | None = Field(
        default=None, description='Secrets Manager secret {"baseUrl", "email", "apiToken"}; unset: no Jira'
    )
    jira_reader_secret_arn: str | None = Field(
        default=None,
        description='The secret {"baseUrl", "email", "apiToken"} of the account that reads the issues a card '
        "names (organization Jira; least privilege: an account that may browse the projects and no more); "
        "unset: cards name no existing issue",
    )
    jira_base_url: str | None = Field(default=None, description="Overrides the secret's baseUrl (sandbox)")
    jira_auth: JiraAuth = Field(
        default=JiraAuth.ORGANIZATION,
        description="organization: issues are created with the secret's account; user: as the signed-in "
        "user, with their consent (AgentCore Identity, IDENTITY_JIRA_CREDENTIAL_PROVIDER)",
    )
    jira_site_url: str | None = Field(
        default=None, description="JIRA_AUTH=user: the Jira site, e.g. https://your-site.atlassian.net"
    )
    atlassian_api_url: str = Field(
        default="https://api.atlassian.com", description="Atlassian's API gateway (a local stand-in in tests)"
    )
    default_timezone: str = "UTC"
    working_hours_start: int = Field(default=9, ge=0, le=23)
    working_hours_end: int = Field(default=17, ge=1, le=24)
    draft_ttl_seconds: int = Field(default=7 * 24 * 3600, gt=0)
    calendar: CalendarName = Field(
        default="builtin",
        description="Whose directory, calendar and mail the tools use: this system's own (builtin), or "
        "each user's own Microsoft 365 or Google Workspace",
    )
    provider_base_url: str | None = Field(
        default=None,
        pattern=r"^https?://",
        description="CALENDAR's provider at another URL (a local stand-in)",
    )
    provider_token: str | None = Field(
        default=None, description="One bearer token for every user (the local stand-ins only)"
    )
    provider_tokens: dict[str, str] | None = Field(
        default=None,
        description='JSON {"<address>": "<token>"}: each user\'s own bearer token, for a local stand-in '
        "that knows the user by the token (Google's); an address not in it is not connected",
    )
    microsoft365_secret_arn: str | None = Field(
        default=None,
        description='Secrets Manager secret {"tenantId", "clientId", "clientSecret"}: the organization-wide '
        "Graph credential (application permissions); unset: none",
    )
    google_delegation_service_account: str | None = Field(
        default=None,
        description="CALENDAR=google: the service account with domain-wide delegation whose JWTs "
        "GOOGLE_DELEGATION_KEY_ARN signs; unset: none",
    )
    google_delegation_key_arn: str | None = Field(
        default=None,
        pattern=r"^arn:aws[a-z-]*:kms:",
        description="The KMS key (RSA_2048, SIGN_VERIFY) the delegation JWTs are signed with",
    )
    google_delegation_key_id: str | None = Field(
        default=None,
        pattern=r"^[0-9a-f]{40}$",
        description="Google's id of the uploaded key (the delegation JWT's kid); unset: no kid",
    )
    caller_context_key: str | None = Field(
        default=None,
        pattern=r"^([0-9a-f]{2}){32,}$",
        description="Hex HMAC key Gateway-path caller keys are signed with (multitool mcp); unset: ignored",
    )
    caller_key_secret_arn: str | None = Field(
        default=None,
        description="The secret that signs the user Gateway interceptor's caller argument; unset: ignored",
    )
    # Each user's own account through AgentCore Identity (the stack's identity component sets all five).
    identity_workload_name: str | None = Field(
        default=None,
        min_length=3,
        max_length=255,
        description="This stack's AgentCore workload identity: CALENDAR's tokens are each user's own "
        "consent; unset: no per-user consent",
    )
    identity_provider: IdentityProvider | None = None
    identity_credential_provider: str | None = Field(default=None, min_length=1, max_length=128)
    identity_return_url: str | None = Field(default=None, min_length=1, max_length=2048)
    connections_table_name: str | None = Field(default=None, min_length=3)
    identity_jira_credential_provider: str | None = Field(
        default=None,
        min_length=1,
        max_length=128,
        description="The Atlassian credential provider Jira creates run through as the user (jiraAuth=user)",
    )
    identity_slack_users: bool = Field(
        default=False,
        description="The Slack function's: a Slack user's tokens come from GetWorkloadAccessTokenForUserId "
        "for the directory person their verified Slack email matched (only its role may call it)",
    )

    @field_validator("jira_projects", mode="before")
    @classmethod
    def _parse_projects(cls, value: Any) -> Any:
        return _projects(value) if isinstance(value, str) else value

    @field_validator("provider_tokens", mode="before")
    @classmethod
    def _parse_tokens(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        try:
            return json.loads(value)
        except ValueError as error:
            raise ValueError('must be a JSON object {"<address>": "<token>"}') from error

    @model_validator(mode="after")
    def _delegation_pair(self) -> Self:
        if (self.google_delegation_service_account is None) != (self.google_delegation_key_arn is None):
            raise ValueError(
                "GOOGLE_DELEGATION_SERVICE_ACCOUNT and GOOGLE_DELEGATION_KEY_ARN go together: set both"
            )
        return self

    @model_validator(mode="after")
    def _one_kind_of_fixed_token(self) -> Self:
        if self.provider_token and self.provider_tokens:
            raise ValueError(
                "PROVIDER_TOKEN (one token for everyone) and PROVIDER_TOKENS (one per "
                "address) exclude each other: set one"
            )
        return self

    @model_validator(mode="after")
    def _identity_whole(self) -> Self:
        # The workload, its return URL and the consents go together, with at least one provider;
        # the calendar's provider and its credential provider go together.
        names = [*IDENTITY_WORKLOAD_FIELDS, *IDENTITY_CALENDAR_FIELDS, *IDENTITY_PROVIDER_FIELDS]
        if all(getattr(self, name) is None for name in names):
            return self
        missing = [name.upper() for name in IDENTITY_WORKLOAD_FIELDS if getattr(self, name) is None]
        if (self.identity_provider is None) != (self.identity_credential_provider is None):
            missing += [name.upper() for name in IDENTITY_CALENDAR_FIELDS if getattr(self, name) is None]
        if all(getattr(self, name) is None for name in IDENTITY_PROVIDER_FIELDS):
            missing.append("IDENTITY_CREDENTIAL_PROVIDER or IDENTITY_JIRA_CREDENTIAL_PROVIDER")
        if missing:
            raise ValueError(
                f"identity settings are incomplete: {', '.join(dict.fromkeys(missing))} must be set too"
            )
        if self.identity_provider is not None and self.identity_provider != self.calendar:
            raise ValueError(
                f"IDENTITY_PROVIDER is {self.identity_provider} but CALENDAR is {self.calendar}: users can "
                "only connect the accounts the tools use"
            )
        return self

    @model_validator(mode="after")
    def _jira_as_the_user(self) -> Self:
        if self.jira_auth is JiraAuth.USER and (
            self.jira_site_url is None or self.identity_jira_credential_provider is None
        ):
            raise ValueError(
                "JIRA_AUTH=user needs JIRA_SITE_URL and the identity settings with "
                "IDENTITY_JIRA_CREDENTIAL_PROVIDER (the stack's jiraAuth=user sets them)"
            )
        return self

    def identity(self) -> "IdentitySettings | None":
        """The AgentCore Identity settings, or None when this function connects no user's account."""
        if self.identity_workload_name is None:
            return None
        return IdentitySettings.model_validate({name: getattr(self, name) for name in IDENTITY_FIELDS})


ConnectedProvider = Literal[IdentityProvider, "atlassian"]
"""multitool.ports.tokens.Provider, spelled here: settings are a base layer that imports no port."""


class IdentitySettings(_EnvSettings):
    """What the stack sets on the functions that reach a user's own account (``identity``)."""

    identity_workload_name: str = Field(min_length=3, max_length=255)
    identity_provider: IdentityProvider | None = None
    identity_credential_provider: str | None = Field(default=None, min_length=1, max_length=128)
    identity_return_url: str = Field(min_length=1, max_length=2048)
    connections_table_name: str = Field(min_length=3)
    identity_jira_credential_provider: str | None = Field(default=None, min_length=1, max_length=128)
    identity_slack_users: bool = False
    """Only the Slack function's (``IDENTITY_SLACK_USERS=true``): tokens for a Slack user's directory
    person by a user id (:func:`multitool.ports.agentcore.tokens.slack_vault_user`)."""

    def credential_providers(self) -> dict[ConnectedProvider, str]:
        """Each provider users connect, with its credential provider's name."""
        named: dict[ConnectedProvider, str] = {}
        if self.identity_provider is not None and self.identity_credential_provider is not None:
            named[self.identity_provider] = self.identity_credential_provider
        if self.identity_jira_credential_provider is not None:
            named["atlassian"] = self.identity_jira_credential_provider
        return named


IDENTITY_FIELDS = tuple(IdentitySettings.model_fields)
IDENTITY_WORKLOAD_FIELDS = ("identity_workload_name", "identity_return_url", "connections_table_name")
IDENTITY_CALENDAR_FIELDS = ("identity_provider", "identity_credential_provider")
IDENTITY_PROVIDER_FIELDS = ("identity_credential_provider", "identity_jira_credential_provider")


class InterceptorSettings(_EnvSettings):
    """The user Gateway's request interceptor: the caller-signing secret and the pool users are read from."""

    caller_key_secret_arn: str
    user_pool_id: str


class ModelBackend(StrEnum):
    """Which model a turn reaches, and how (env var ``RUNTIME``, CDK context ``runtime``: public names).

    Each value selects one :class:`multitool.runtimes.base.Runtime` implementation: the deployed
    runtimes (:class:`multitool.deployment.Runtime`, by their value) and the offline ones.
    """

    AGENT = Runtime.AGENT.value
    AGENTCORE = Runtime.AGENTCORE.value
    CONVERSE = Runtime.CONVERSE.value
    OFFLINE = "offline"
    """The offline model behind the offline harness, run by the AgentCore runtime (no AWS)."""
    OFFLINE_CONVERSE = "offline-converse"
    """The offline model run by the Converse loop (no AWS)."""


def page_projects(raw: str | None) -> dict[str, dict[str, Any]]:
    """The Jira projects as the page's ``config.json`` carries them, ``{KEY: {name, issueTypes}}``, read
    as the tools read ``JIRA_PROJECTS`` (the defaults when it is unset): the page offers what they accept."""
    projects = _projects(raw or DEFAULT_JIRA_PROJECTS)
    return {key: projects[key].model_dump(by_alias=True, mode="json") for key in sorted(projects)}


def _projects(raw: str) -> dict[str, JiraProject]:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as error:
        raise ValueError(f"JIRA_PROJECTS is not valid JSON: {error.msg}") from error
    if not isinstance(data, dict):
        raise ValueError("JIRA_PROJECTS must be a JSON object of project key -> project")
    return {str(key).upper(): JiraProject.model_validate(value) for key, value in data.items()}
