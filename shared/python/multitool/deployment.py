"""The deployment's vocabulary: the words the deploy context, the functions' settings and the doctor share.

One definition of each value a deployment is described with: the runtimes and their executors, whose
calendar and whose accounts the tools use, how Jira is signed in to, the geography prefixes of Bedrock's
inference profiles, the stack outputs each runtime has, and the ranges the stack passes on to the
functions. ``infra/context.py`` validates ``cdk deploy -c ...`` against these (and words its errors from
them), :mod:`multitool.settings` validates the functions' environment against them, and
``multitool doctor`` checks a deployed stack with them; ``tests/unit/core/test_deployment.py`` holds every
other spelling of a value (the ports' suite names, the local backends) to this one.

Standard library only: the functions' settings import it at cold start, and infra/ imports it before
any AWS code.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, NamedTuple, get_args


class Runtime(StrEnum):
    """What runs a deployed turn's model loop (context ``runtime``, the functions' ``RUNTIME``)."""

    AGENTCORE = "agentcore"  # the AgentCore managed harness: any account with model access
    AGENT = "agent"  # Agents Classic: only accounts that already use Bedrock Agents
    CONVERSE = "converse"  # the orchestrator runs the loop itself on Converse


class Executor(StrEnum):
    """Who runs a tool call the model makes (context ``executor``)."""

    LAMBDA = "lambda"  # one action-group Lambda per tool, invoked by the Bedrock agent
    RETURN_CONTROL = "return_control"  # handed back to the orchestrator, which runs the tools itself
    GATEWAY = "gateway"  # runtime=agentcore: the harness calls the Lambdas through an AgentCore Gateway


RUNTIME_EXECUTORS: dict[Runtime, tuple[Executor, ...]] = {
    Runtime.AGENTCORE: (Executor.RETURN_CONTROL, Executor.GATEWAY),
    Runtime.AGENT: (Executor.LAMBDA, Executor.RETURN_CONTROL),
}
"""The executors each runtime accepts, its default first; Converse runs its tools itself (no executor)."""
DEFAULT_EXECUTOR: dict[Runtime, Executor] = {runtime: ex[0] for runtime, ex in RUNTIME_EXECUTORS.items()}


CalendarName = Literal["builtin", "microsoft365", "google"]
"""Whose directory, calendar and mail the tools use (context ``calendar``, the functions' ``CALENDAR``, the
ports' suites): this stack's own directory, bookings and SES, each user's Microsoft 365, or each user's
Google Workspace."""
CALENDARS: tuple[CalendarName, ...] = get_args(CalendarName)

IdentityProvider = Literal["microsoft365", "google"]
"""A provider whose accounts users connect through AgentCore Identity (the functions'
``IDENTITY_PROVIDER``): each a provider calendar's own, so a user connects the account the tools use."""
IDENTITY_PROVIDERS: tuple[IdentityProvider, ...] = get_args(IdentityProvider)


class Identity(StrEnum):
    """The context's ``identity``: off, or the provider (:data:`IdentityProvider`) whose accounts users
    connect."""

    OFF = "off"
    MICROSOFT365 = "microsoft365"
    GOOGLE = "google"


class JiraAuth(StrEnum):
    """Whose Jira account creates an issue (context ``jiraAuth``, the functions' ``JIRA_AUTH``)."""

    ORGANIZATION = "organization"  # one Jira account for everyone, its API token in a secret
    USER = "user"  # each user's own Atlassian account, through AgentCore Identity


class OutsideRecipients(StrEnum):
    """What a confirm does with an address outside the deployment's domains (context
    ``outsideRecipients``, the review function's ``OUTSIDE_RECIPIENTS``)."""

    ALLOWED = "allowed"
    CAPPED = "capped"
    OFF = "off"


PROFILE_PREFIXES = ("us", "us-gov", "eu", "apac", "jp", "au", "ca", "global")
"""The geography prefixes of Bedrock's system-defined cross-Region inference profiles
(https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html); where each is
callable from is infra.geography's."""

# The stack's outputs a first turn needs, by runtime (infra.stack writes them; `multitool doctor` reads
# them and tells the deployed runtime by them). A stack with jiraAuth=user has no Jira secret.
JIRA_SECRET_OUTPUT = "JiraSecretArn"  # noqa: S105 (an output's name: the secret's ARN, not a secret)
ALWAYS_OUTPUTS = ("ApiUrl", "UserPoolId", "UserPoolClientId", JIRA_SECRET_OUTPUT)
RUNTIME_OUTPUTS: dict[Runtime, tuple[str, ...]] = {
    Runtime.AGENTCORE: ("HarnessArn",),
    Runtime.AGENT: ("AgentId", "AgentAliasId"),
    Runtime.CONVERSE: (),
}
GATEWAY_OUTPUT = "GatewayArn"
"""executor=gateway's own output, besides the harness's."""


class Range(NamedTuple):
    """A whole number's accepted range, both ends included."""

    low: int
    high: int


# The ranges the deploy context accepts and passes on to a function's settings, which accept the same.
RUNNING_TURNS_PER_USER = Range(1, 100)
"""Prefer: respond-async turns one user may have running at once (multitool.ports.turn_slots)."""
MAX_UNDO_SECONDS = 900
"""SQS's longest per-message delay (multitool.ports.undo_queue): the undo window is one delayed message."""
UNDO_SECONDS = Range(0, MAX_UNDO_SECONDS)
AUDIT_RETENTION_DAYS = Range(1, 3653)
RECIPIENTS_PER_DAY = Range(1, 100_000)
OUTSIDE_RECIPIENTS_PER_DAY = Range(0, 100_000)
