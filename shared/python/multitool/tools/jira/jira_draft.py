"""jira_draft: a Jira ticket for the user to review; its confirm creates the issue.

The project must be one of the configured projects (``JIRA_PROJECTS``) and the
issue type one of that project's types; both match case-insensitively and come
back in their configured spelling. The confirm (the edits, the issue created) is in
:mod:`multitool.tools.jira.confirm`, which only a confirm imports.
"""

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from multitool.people import NameResolution, Resolution
from multitool.text import MultiLine, SingleLine
from multitool.toolkit.cards import (
    TYPE_ALIAS,
    Card,
    CardSpec,
    Fingerprint,
    names_of,
    quoted,
    unresolved_notes,
)
from multitool.toolkit.common import (
    BusyTimes,
    DraftRef,
    People,
    Prepared,
    RawName,
    replaced_field,
    revises_field,
    unsettled_notes,
)
from multitool.toolkit.context import MAX_DESCRIPTION_CHARS, MAX_SUMMARY_CHARS, ToolConfig, ToolContext
from multitool.toolkit.errors import UnknownIssueType, UnknownProject
from multitool.toolkit.links import CallLabel, Link, Produced, label_field, links_field
from multitool.toolkit.spec import ToolSpec
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.toolkit.references import Found


class Priority(StrEnum):
    HIGHEST = "Highest"
    HIGH = "High"
    MEDIUM = "Medium"
    LOW = "Low"
    LOWEST = "Lowest"


def _any_case(value: Any) -> Any:
    return value.strip().capitalize() if isinstance(value, str) else value


AnyCasePriority = Annotated[Priority, BeforeValidator(_any_case)]
"""A priority as the model or an edit writes it, in any case (" high " is High): one validator every
Jira model reuses (pydantic's annotated validators,
https://docs.pydantic.dev/latest/concepts/validators/#annotated-validators)."""


class JiraTicketArgs(WireModel):
    """What the model passes: project key, issue type, summary, description, priority, raw assignee name."""

    project: SingleLine = Field(min_length=1, max_length=32, description="Jira project key, e.g. 'WEB'")
    issue_type: SingleLine = Field(min_length=1, max_length=50, description="Issue type: Bug, Task, Story...")
    summary: SingleLine = Field(min_length=1, max_length=MAX_SUMMARY_CHARS, description="One-line summary")
    description: MultiLine = Field(
        default="", max_length=MAX_DESCRIPTION_CHARS, description="Details, plain text"
    )
    priority: AnyCasePriority = Field(
        default=Priority.MEDIUM, description="Highest, High, Medium, Low or Lowest"
    )
    assignee: RawName | None = Field(
        default=None,
        description="Assignee as the user named them; resolved by the backend",
    )
    revises: DraftRef | None = revises_field()
    label: CallLabel | None = label_field()


class JiraTicketPayload(WireModel):
    action: Literal["show_jira_ticket_draft"] = "show_jira_ticket_draft"
    draft_id: str
    project: str
    issue_type: str
    summary: str
    description: str
    priority: Priority
    assignee: NameResolution | None = None
    notes: tuple[str, ...] = ()
    revises: str | None = replaced_field()
    links: tuple[Link, ...] = links_field()


def project_key(project: str, config: ToolConfig) -> str:
    """The key ``project`` stands for: itself in any case ("web"), or the key of the one project so
    named ("Website", "the website project"); as given, upper-cased, when neither."""
    key = project.strip().upper()
    if key in config.jira_projects:
        return key
    name = " ".join(project.casefold().split()).removeprefix("the ").removesuffix(" project").strip()
    named = [k for k, p in config.jira_projects.items() if " ".join(p.name.casefold().split()) == name]
    return named[0] if len(named) == 1 else key


def validate_project(project: str, issue_type: str, config: ToolConfig) -> tuple[str, str]:
    """(project key, issue type) in their configured spelling, or a clear error."""
    key = project_key(project, config)
    known = config.jira_projects.get(key)
    if known is None:
        options = ", ".join(f"{k} ({p.name})" for k, p in sorted(config.jira_projects.items())) or "none"
        raise UnknownProject(f"There is no Jira project '{project}'. Use one of: {options}.", field="project")
    for candidate in known.issue_types:
        if candidate.casefold() == issue_type.strip().casefold():
            return key, candidate
    raise UnknownIssueType(
        f"Project {key} has no issue type '{issue_type}'. Use one of: {', '.join(known.issue_types)}.",
        field="issueType",
    )


def prepare(args: JiraTicketArgs, ctx: ToolContext, config: ToolConfig) -> Prepared:
    project, issue_type = validate_project(args.project, args.issue_type, config)

    def finish(people: People, _busy: BusyTimes, _found: "Found") -> dict[str, Any]:
        assignee = None
        if args.assignee is not None:
            # An address outside the directory is no Jira user: it stays unknown.
            assignee = people.get(args.assignee) or NameResolution(
                query=args.assignee, status=Resolution.UNKNOWN
            )
        notes = unsettled_notes([assignee] if assignee else [], "assignee")
        if args.project.strip().upper() != project:  # named, not keyed: say which key it is
            notes.insert(
                0, f"Project '{args.project}' read as {project} ({config.jira_projects[project].name})."
            )
        return {
            "project": project,
            "issueType": issue_type,
            "summary": args.summary,
            "description": args.description,
            "priority": args.priority.value,
            "assignee": assignee.to_wire() if assignee else None,
            "notes": notes,
        }

    return Prepared(names=[args.assignee] if args.assignee else [], finish=finish)


# -- the card ------------------------------------------------------------------


class JiraTicketDraftCard(Card):
    """Ticket card: project, issue type, summary, description, priority, assignee."""

    type: Literal["show_jira_ticket_draft"] = Field(validation_alias=TYPE_ALIAS)
    project: str
    issue_type: str = "Task"
    # The confirm's limits, in the card's JSON Schema for the page to read (the edit is checked again).
    summary: str = Field(max_length=MAX_SUMMARY_CHARS)
    description: str = Field(default="", max_length=MAX_DESCRIPTION_CHARS)
    # An enum in the schema: the page offers these priorities, and no list of its own.
    priority: Priority = Priority.MEDIUM
    assignee: NameResolution | None = None


def jira_fingerprint(card: JiraTicketDraftCard) -> Fingerprint:
    return (" ".join(card.project.casefold().split()), " ".join(card.summary.casefold().split()))


def jira_caption(card: JiraTicketDraftCard) -> str:
    return f"Jira {card.issue_type} in {card.project}: {card.summary}{unresolved_notes((card.assignee,))}"


def jira_said(card: JiraTicketDraftCard) -> str:
    """'drafted a WEB bug "Login crash"' (' for Priya Patel' with an assignee)."""
    kind = card.issue_type.casefold() if card.issue_type[1:].islower() else card.issue_type
    article = "an" if card.project[:1].casefold() in "aeiou" else "a"
    assignee = f" for {names_of((card.assignee,))}" if card.assignee is not None else ""
    return f"drafted {article} {card.project} {kind} {quoted(card.summary)}{assignee}"


PRODUCES = {
    "key": Produced(
        description="the ticket's key, e.g. WEB-12",
        fill=lambda result, _zone: str(result["issueKey"]),
        preview="{project}-?",
        pending="once the ticket is created",
    ),
    "url": Produced(
        description="the link to the ticket",
        fill=lambda result, _zone: str(result["issueUrl"]),
        preview="(link to {project}-?)",
        pending="once the ticket is created",
    ),
}
"""What a created ticket gives another call of its turn: its key and its link (the confirm's result)."""


SPEC = ToolSpec(
    name="create_jira_ticket_draft",
    action_group="jira_draft",
    api_path="/jira-ticket-drafts",
    args_model=JiraTicketArgs,
    payload_model=JiraTicketPayload,
    prepare=prepare,
    card=CardSpec(JiraTicketDraftCard, jira_fingerprint, jira_caption, said=jira_said, held="created"),
    review="multitool.tools.jira.confirm:REVIEW",
    group_description="Drafts a Jira ticket for the user to review; never creates it.",
    nouns=("a Jira ticket draft", "Jira ticket drafts"),
    produces=PRODUCES,
    takes_links=("summary", "description"),
    description=(
        "Draft a Jira ticket for the user to review and create: project key, issue type (Bug, Task, "
        "Story...), summary, description, priority and the assignee exactly as the user named them. "
        "Nothing is created until the user confirms."
    ),
)
