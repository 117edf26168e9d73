"""What each deploy-context key accepts, in words: the second half of every error line of
``infra/context.py``.

Kept apart from the validators so the words of every key read as one list; ``allowed`` builds them into
``ALLOWED`` from DeployContext's own fields, so a range or a field's values are stated once, on the field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any, get_args

from annotated_types import Ge, Le
from multitool.deployment import (
    DEFAULT_EXECUTOR,
    PROFILE_PREFIXES,
    RUNTIME_EXECUTORS,
    Executor,
    Identity,
    JiraAuth,
    OutsideRecipients,
    Runtime,
)
from pydantic.fields import FieldInfo

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


def _listed(items: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def _worded(value: str, words: str) -> str:
    return f"{value} ({words})" if words else value


def _same_values(what: str, values: Iterable[str], words: Iterable[str]) -> None:
    """Refuse, at import, words for a value the field does not take or a value without its words."""
    if set(values) != set(words):
        raise ValueError(f"{what}: the values {sorted(values)} have words for {sorted(words)}")


def executors_of(runtime: Runtime) -> str:
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


def allowed(fields: Mapping[str, FieldInfo]) -> dict[str, str]:
    """What each of ``fields`` accepts, in words, keyed by its context key; words for no field, a value
    without its words or a range its field does not state stop the import."""
    allowed: dict[str, str] = {}
    for name, field in fields.items():
        key = field.alias or name
        if key == "executor":
            allowed[key] = _every_executor()
        else:
            allowed[key] = _choices(key, field) if key in _CHOICES else _ranged(key, field)
    stale = (set(_WORDS) | set(_CHOICES)) - set(allowed)
    if stale:
        raise ValueError(f"words for context keys no field reads: {sorted(stale)}")
    return allowed
