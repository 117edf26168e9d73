"""Environment settings, read and checked by msgspec: one class per kind of function.

Handlers call ``XSettings.from_env()`` lazily (never at import time in domain
code); the stack sets exactly these variables. Field names map to upper-case
environment variables (``drafts_table_name`` <- ``DRAFTS_TABLE_NAME``).

Here: what the tools need (:class:`ToolSettings`, the action groups'), and the
identity and interceptor settings. The orchestrator's class is in
:mod:`multitool.settings.chat`, the review function's in
:mod:`multitool.settings.review`: a function imports its own and not the
others'.

Settings never cross a wire, so they are ``msgspec.Struct``s like every other such value
(docs/architecture.md, "Wire casing"): the orchestrator's class of some sixty fields is defined and read
from the environment in about 1 ms of a cold start, where the same class as a pydantic model took about
4.5 ms (0.8-1 ms to define each class of the chain, 2.1 ms to build its validator on first use; Python
3.13, pydantic 2.14). ``msgspec.convert(..., strict=False)`` reads the environment's strings as the
fields' types (``"10"`` an int, ``"true"`` a bool: https://jcristharif.com/msgspec/usage.html#strict-vs-lax-mode),
each field's ``Meta`` bounds it, and ``__post_init__`` checks what spans fields.
"""

import json
import os
import re
from collections.abc import Callable, Mapping
from enum import StrEnum
from http import HTTPStatus
from typing import Annotated, Any, ClassVar, Literal, Self

import msgspec
from msgspec import Meta

from multitool.deployment import CalendarName, IdentityProvider, JiraAuth, Range, Runtime
from multitool.errors import ServiceError


class SettingsError(ServiceError, ValueError):
    """A missing or invalid environment variable, named in the message (logged, never answered)."""

    code = "not_configured"
    status = HTTPStatus.INTERNAL_SERVER_ERROR
    answer = "The chat service is not configured."


class JiraProject(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    issue_types: tuple[str, ...] = msgspec.field(default=("Bug", "Task", "Story"), name="issueTypes")


DEFAULT_JIRA_PROJECTS = '{"WEB": {"name": "Website"}, "OPS": {"name": "Operations"}}'


def within(allowed: Range, description: str | None = None) -> Meta:
    """A field's bounds: one of the deployment's ranges (:mod:`multitool.deployment`), which the deploy
    context and the doctor hold it to as well."""
    return Meta(ge=allowed.low, le=allowed.high, description=description)


_AT = re.compile(r"^(?P<message>.*) - at `\$(?:\.(?P<field>\w+))?[^`]*`$", re.DOTALL)
_MISSING = re.compile(r"^Object missing required field `(?P<field>\w+)`")


def _problem(error: msgspec.ValidationError) -> str:
    """msgspec's message, led by the environment variable it is about (``WORKING_HOURS_START: ...``)."""
    text = str(error)
    missing = _MISSING.match(text)
    if missing:
        return f"{missing['field'].upper()}: required"
    at = _AT.match(text)
    if at is None:
        return text
    return f"{at['field'].upper()}: {at['message']}" if at["field"] else at["message"]


class _EnvSettings(msgspec.Struct, frozen=True, kw_only=True):
    """One function's environment (``from_env``); a subclass names in ``_READ`` the fields whose
    variable is text to turn into the field's type first (JSON, a comma-separated list)."""

    _READ: ClassVar[Mapping[str, Callable[[str], Any]]] = {}

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Self:
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for name in cls.__struct_fields__:
            raw = env.get(name.upper())
            if raw is None or raw == "":
                continue
            read = cls._READ.get(name)
            try:
                values[name] = read(raw) if read is not None else raw
            except ValueError as error:
                raise SettingsError(
                    f"Invalid environment for {cls.__name__}: {name.upper()}: {error}"
                ) from error
        try:
            return msgspec.convert(values, cls, strict=False)
        except msgspec.ValidationError as error:
            raise SettingsError(f"Invalid environment for {cls.__name__}: {_problem(error)}") from error


class ToolSettings(_EnvSettings, frozen=True, kw_only=True):
    """What the tools need: action-group Lambdas, and the orchestrator when it runs tools itself."""

    drafts_table_name: str
    directory_table_name: str
    bookings_table_name: str
    mailbox_table_name: Annotated[
        str | None,
        Meta(
            description="The builtin mailbox (multitool.ports.aws.dynamo_mailbox); unset: builtin users "
            "have no mailbox to reply from"
        ),
    ] = None
    jira_projects: dict[str, JiraProject] = msgspec.field(
        default_factory=lambda: _projects(DEFAULT_JIRA_PROJECTS)
    )
    # How Jira is signed in to: the review creates and changes issues; a card names an existing one
    # (multitool.tools.jira.find), so the functions that make cards read issues the same way.
    jira_secret_arn: Annotated[
        str | None,
        Meta(description='Secrets Manager secret {"baseUrl", "email", "apiToken"}; unset: no Jira'),
    ] = None
    jira_reader_secret_arn: Annotated[
        str | None,
        Meta(
            description='The secret {"baseUrl", "email", "apiToken"} of the account that reads the issues '
            "a card names (organization Jira; least privilege: an account that may browse the projects and "
            "no more); unset: cards name no existing issue"
        ),
    ] = None
    jira_base_url: Annotated[str | None, Meta(description="Overrides the secret's baseUrl (sandbox)")] = None
    jira_auth: Annotated[
        JiraAuth,
        Meta(
            description="organization: issues are created with the secret's account; user: as the signed-in "
            "user, with their consent (AgentCore Identity, IDENTITY_JIRA_CREDENTIAL_PROVIDER)"
        ),
    ] = JiraAuth.ORGANIZATION
    jira_site_url: Annotated[
        str | None, Meta(description="JIRA_AUTH=user: the Jira site, e.g. https://your-site.atlassian.net")
    ] = None
    atlassian_api_url: Annotated[
        str, Meta(description="Atlassian's API gateway (a local stand-in in tests)")
    ] = "https://api.atlassian.com"
    default_timezone: str = "UTC"
    working_hours_start: Annotated[int, Meta(ge=0, le=23)] = 9
    working_hours_end: Annotated[int, Meta(ge=1, le=24)] = 17
    draft_ttl_seconds: Annotated[int, Meta(gt=0)] = 7 * 24 * 3600
    calendar: Annotated[
        CalendarName,
        Meta(
            description="Whose directory, calendar and mail the tools use: this system's own (builtin), or "
            "each user's own Microsoft 365 or Google Workspace"
        ),
    ] = "builtin"
    provider_base_url: (
        Annotated[
            str,
            Meta(pattern=r"^https?://", description="CALENDAR's provider at another URL (a local stand-in)"),
        ]
        | None
    ) = None
    provider_token: Annotated[
        str | None, Meta(description="One bearer token for every user (the local stand-ins only)")
    ] = None
    provider_tokens: Annotated[
        dict[str, str] | None,
        Meta(
            description='JSON {"<address>": "<token>"}: each user\'s own bearer token, for a local stand-in '
            "that knows the user by the token (Google's); an address not in it is not connected"
        ),
    ] = None
    microsoft365_secret_arn: Annotated[
        str | None,
        Meta(
            description='Secrets Manager secret {"tenantId", "clientId", "clientSecret"}: the '
            "organization-wide Graph credential (application permissions); unset: none"
        ),
    ] = None
    google_delegation_service_account: Annotated[
        str | None,
        Meta(
            description="CALENDAR=google: the service account with domain-wide delegation whose JWTs "
            "GOOGLE_DELEGATION_KEY_ARN signs; unset: none"
        ),
    ] = None
    google_delegation_key_arn: (
        Annotated[
            str,
            Meta(
                pattern=r"^arn:aws[a-z-]*:kms:",
                description="The KMS key (RSA_2048, SIGN_VERIFY) the delegation JWTs are signed with",
            ),
        ]
        | None
    ) = None
    google_delegation_key_id: (
        Annotated[
            str,
            Meta(
                pattern=r"^[0-9a-f]{40}$",
                description="Google's id of the uploaded key (the delegation JWT's kid); unset: no kid",
            ),
        ]
        | None
    ) = None
    caller_context_key: (
        Annotated[
            str,
            Meta(
                pattern=r"^([0-9a-f]{2}){32,}$",
                description="Hex HMAC key Gateway-path caller keys are signed with (multitool mcp); unset: "
                "ignored",
            ),
        ]
        | None
    ) = None
    caller_key_secret_arn: Annotated[
        str | None,
        Meta(
            description="The secret that signs the user Gateway interceptor's caller argument; unset: ignored"
        ),
    ] = None
    # Each user's own account through AgentCore Identity (the stack's identity component sets all five).
    identity_workload_name: (
        Annotated[
            str,
            Meta(
                min_length=3,
                max_length=255,
                description="This stack's AgentCore workload identity: CALENDAR's tokens are each user's own "
                "consent; unset: no per-user consent",
            ),
        ]
        | None
    ) = None
    identity_provider: IdentityProvider | None = None
    identity_credential_provider: Annotated[str, Meta(min_length=1, max_length=128)] | None = None
    identity_return_url: Annotated[str, Meta(min_length=1, max_length=2048)] | None = None
    connections_table_name: Annotated[str, Meta(min_length=3)] | None = None
    identity_jira_credential_provider: (
        Annotated[
            str,
            Meta(
                min_length=1,
                max_length=128,
                description="The Atlassian credential provider Jira creates run through as the user "
                "(jiraAuth=user)",
            ),
        ]
        | None
    ) = None
    identity_slack_users: Annotated[
        bool,
        Meta(
            description="The Slack function's: a Slack user's tokens come from "
            "GetWorkloadAccessTokenForUserId for the directory person their verified Slack email matched "
            "(only its role may call it)"
        ),
    ] = False

    _READ: ClassVar[Mapping[str, Callable[[str], Any]]] = {
        "jira_projects": lambda raw: _projects(raw),
        "provider_tokens": lambda raw: _json_object(raw, '{"<address>": "<token>"}'),
    }

    def __post_init__(self) -> None:
        if (self.google_delegation_service_account is None) != (self.google_delegation_key_arn is None):
            raise ValueError(
                "GOOGLE_DELEGATION_SERVICE_ACCOUNT and GOOGLE_DELEGATION_KEY_ARN go together: set both"
            )
        if self.provider_token and self.provider_tokens:
            raise ValueError(
                "PROVIDER_TOKEN (one token for everyone) and PROVIDER_TOKENS (one per "
                "address) exclude each other: set one"
            )
        self._identity_whole()
        if self.jira_auth is JiraAuth.USER and (
            self.jira_site_url is None or self.identity_jira_credential_provider is None
        ):
            raise ValueError(
                "JIRA_AUTH=user needs JIRA_SITE_URL and the identity settings with "
                "IDENTITY_JIRA_CREDENTIAL_PROVIDER (the stack's jiraAuth=user sets them)"
            )

    def _identity_whole(self) -> None:
        # The workload, its return URL and the consents go together, with at least one provider;
        # the calendar's provider and its credential provider go together.
        names = [*IDENTITY_WORKLOAD_FIELDS, *IDENTITY_CALENDAR_FIELDS, *IDENTITY_PROVIDER_FIELDS]
        if all(getattr(self, name) is None for name in names):
            return
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

    def identity(self) -> "IdentitySettings | None":
        """The AgentCore Identity settings, or None when this function connects no user's account."""
        if self.identity_workload_name is None:
            return None
        return msgspec.convert({name: getattr(self, name) for name in IDENTITY_FIELDS}, IdentitySettings)


ConnectedProvider = Literal[IdentityProvider, "atlassian"]
"""multitool.ports.tokens.Provider, spelled here: settings are a base layer that imports no port."""


class IdentitySettings(_EnvSettings, frozen=True, kw_only=True):
    """What the stack sets on the functions that reach a user's own account (``identity``)."""

    identity_workload_name: Annotated[str, Meta(min_length=3, max_length=255)]
    identity_provider: IdentityProvider | None = None
    identity_credential_provider: Annotated[str, Meta(min_length=1, max_length=128)] | None = None
    identity_return_url: Annotated[str, Meta(min_length=1, max_length=2048)]
    connections_table_name: Annotated[str, Meta(min_length=3)]
    identity_jira_credential_provider: Annotated[str, Meta(min_length=1, max_length=128)] | None = None
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


IDENTITY_FIELDS = IdentitySettings.__struct_fields__
IDENTITY_WORKLOAD_FIELDS = ("identity_workload_name", "identity_return_url", "connections_table_name")
IDENTITY_CALENDAR_FIELDS = ("identity_provider", "identity_credential_provider")
IDENTITY_PROVIDER_FIELDS = ("identity_credential_provider", "identity_jira_credential_provider")


class InterceptorSettings(_EnvSettings, frozen=True, kw_only=True):
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
    return {
        key: {"name": projects[key].name, "issueTypes": list(projects[key].issue_types)}
        for key in sorted(projects)
    }


def _projects(raw: str) -> dict[str, JiraProject]:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as error:
        raise ValueError(f"JIRA_PROJECTS is not valid JSON: {error.msg}") from error
    if not isinstance(data, dict):
        raise ValueError("JIRA_PROJECTS must be a JSON object of project key -> project")
    try:
        return {str(key).upper(): msgspec.convert(value, JiraProject) for key, value in data.items()}
    except msgspec.ValidationError as error:
        raise ValueError(f"JIRA_PROJECTS: {error}") from error


def _json_object(raw: str, shape: str) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except ValueError as error:
        raise ValueError(f"must be a JSON object {shape}") from error
    if not isinstance(data, dict):
        raise ValueError(f"must be a JSON object {shape}")
    return data
