"""jira_update: an existing Jira issue's fields changed, for the user to review.

Priority, assignee (the name as the user said it, resolved like a new ticket's assignee), summary,
labels added or removed, due date. The card shows the issue (key, summary, status, assignee) and
each change beside what the field holds now. The confirm (:mod:`.confirm`)
edits the issue; the same edit twice leaves the same issue.
"""

from datetime import date
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, StringConstraints, model_validator

from multitool.people import NameResolution, Resolution
from multitool.text import CLEAN_SINGLE_LINE, SingleLine
from multitool.toolkit.cards import CardSpec
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
from multitool.toolkit.context import MAX_SUMMARY_CHARS, ToolConfig, ToolContext
from multitool.toolkit.references import ItemRef, ItemResolution, Lookup, reference_notes
from multitool.toolkit.spec import ToolSpec
from multitool.tools.jira.existing import ISSUE_NOUN, issue_field, shown, unsettled
from multitool.tools.jira.find import find_issues
from multitool.tools.jira.jira_draft import AnyCasePriority, Priority
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.toolkit.references import Found

# Jira's labels are single words (no spaces); 255 characters at most.
Label = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=255, pattern=r"^\S+$"),
    CLEAN_SINGLE_LINE,
]
MAX_LABELS = 10


class JiraUpdateArgs(WireModel):
    """What the model passes: the issue as the user named it, and only the fields the user changes."""

    issue: ItemRef = issue_field()
    priority: AnyCasePriority | None = Field(default=None, description="Highest, High, Medium, Low or Lowest")
    assignee: RawName | None = Field(
        default=None, description="The new assignee as the user named them; resolved by the backend"
    )
    summary: SingleLine | None = Field(default=None, min_length=1, max_length=MAX_SUMMARY_CHARS)
    labels_add: list[Label] = Field(default_factory=list, max_length=MAX_LABELS, description="Labels to add")
    labels_remove: list[Label] = Field(
        default_factory=list, max_length=MAX_LABELS, description="Labels to remove"
    )
    due_date: date | None = Field(default=None, description="The new due date, YYYY-MM-DD")
    revises: DraftRef | None = revises_field()

    @model_validator(mode="after")
    def _something_changes(self) -> "JiraUpdateArgs":
        if not (
            self.priority
            or self.assignee
            or self.summary
            or self.labels_add
            or self.labels_remove
            or self.due_date
        ):
            raise ValueError(
                "Say what changes: priority, assignee, summary, labelsAdd, labelsRemove or dueDate"
            )
        return self


class JiraUpdatePayload(WireModel):
    action: Literal["show_jira_update"] = "show_jira_update"
    draft_id: str
    issue: ItemResolution
    priority: Priority | None = None
    assignee: NameResolution | None = None
    summary: str | None = Field(default=None, max_length=MAX_SUMMARY_CHARS)
    labels_add: tuple[str, ...] = ()
    labels_remove: tuple[str, ...] = ()
    due_date: date | None = None
    notes: tuple[str, ...] = ()
    revises: str | None = replaced_field()


def prepare(args: JiraUpdateArgs, _ctx: ToolContext, _config: ToolConfig) -> Prepared:
    def finish(people: People, _busy: BusyTimes, found: "Found") -> dict[str, Any]:
        assignee = None
        if args.assignee is not None:
            assignee = people.get(args.assignee) or NameResolution(
                query=args.assignee, status=Resolution.UNKNOWN
            )
        notes = reference_notes(found, ISSUE_NOUN) + unsettled_notes(
            [assignee] if assignee else [], "assignee"
        )
        return {
            "issue": found[0].to_wire(),
            "priority": args.priority.value if args.priority else None,
            "assignee": assignee.to_wire() if assignee else None,
            "summary": args.summary,
            "labelsAdd": list(args.labels_add),
            "labelsRemove": list(args.labels_remove),
            "dueDate": args.due_date.isoformat() if args.due_date else None,
            "notes": notes,
        }

    return Prepared(
        names=[args.assignee] if args.assignee else [],
        finish=finish,
        lookups=[Lookup(args.issue, find_issues)],
    )


def changes_of(card: Any) -> str:
    parts = []
    if card.priority:
        parts.append(f"priority {card.priority.value if hasattr(card.priority, 'value') else card.priority}")
    if card.assignee is not None:
        person = card.assignee.person
        parts.append(f"assignee {person.display_name if person is not None else card.assignee.query}")
    if card.summary:
        parts.append(f'summary "{card.summary}"')
    if card.labels_add:
        parts.append("add " + ", ".join(card.labels_add))
    if card.labels_remove:
        parts.append("remove " + ", ".join(card.labels_remove))
    if card.due_date:
        parts.append(f"due {card.due_date}")
    return "; ".join(parts)


def update_caption(card: Any) -> str:
    return f"Update {shown(card.issue)}: {changes_of(card)}{unsettled(card.issue)}"


def update_said(card: Any) -> str:
    return f"prepared an update of {shown(card.issue)} ({changes_of(card)})"


SPEC = ToolSpec(
    name="update_jira_issue",
    action_group="jira_update",
    api_path="/jira-updates",
    args_model=JiraUpdateArgs,
    payload_model=JiraUpdatePayload,
    prepare=prepare,
    card=CardSpec.of_payload(JiraUpdatePayload, update_caption, said=update_said, held="changed"),
    review="multitool.tools.jira_update.confirm:REVIEW",
    group_description="Prepares changes to an existing Jira issue's fields for the user to confirm.",
    nouns=("a Jira issue update", "Jira issue updates"),
    description=(
        "Change an existing Jira issue's priority, assignee, summary, labels or due date after the user "
        "confirms: the issue as the user named it (a key such as WEB-12, or words of its summary) and only "
        "the fields the user changes (the assignee exactly as named). Nothing changes until the user "
        "confirms."
    ),
)
