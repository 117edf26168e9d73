"""jira_update's confirm: the issue's fields edited; an issue that already shows the change answers
done, a field changed by someone else since the card is ItemChanged.

Only a confirm imports it (the spec names it); what the confirms share is
:mod:`multitool.tools.jira.confirming`.
"""

from datetime import date
from typing import Any

from pydantic import Field

from multitool.ports.jira import IssueChange
from multitool.text import SingleLine
from multitool.toolkit.common import RawName
from multitool.toolkit.confirm import ActionReview, Address, Backends, ReviewContext, address_of, settled
from multitool.toolkit.context import MAX_SUMMARY_CHARS
from multitool.toolkit.errors import InvalidEdits, ItemChanged
from multitool.tools.jira.confirming import ItemId, chosen_on_card, current, jira_of
from multitool.tools.jira.jira_draft import AnyCasePriority, Priority
from multitool.tools.jira_update.jira_update import MAX_LABELS, JiraUpdatePayload, Label
from multitool.wire import WireModel


class UpdateEdits(WireModel):
    """``assignee``: an email address or the id of a person offered on the card."""

    issue: ItemId | None = None
    priority: AnyCasePriority | None = None
    assignee: RawName | None = None
    summary: SingleLine | None = Field(default=None, min_length=1, max_length=MAX_SUMMARY_CHARS)
    labels_add: list[Label] | None = Field(default=None, max_length=MAX_LABELS)
    labels_remove: list[Label] | None = Field(default=None, max_length=MAX_LABELS)
    due_date: date | None = None


class UpdateContent(WireModel):
    issue: str
    version: str
    shown: dict[str, Any] = Field(default_factory=dict)
    priority: Priority | None = None
    assignee: Address | None = None
    summary: str | None = None
    labels_add: tuple[str, ...] = ()
    labels_remove: tuple[str, ...] = ()
    due_date: date | None = None


def update_content(edits: UpdateEdits, confirmed: UpdateContent | None, ctx: ReviewContext) -> UpdateContent:
    payload = JiraUpdatePayload.model_validate(ctx.draft.payload)
    item = chosen_on_card(payload.issue, "issue", edits, confirmed)
    assignee: Address | None
    if "assignee" in edits.model_fields_set:
        assignee = address_of(edits.assignee, "assignee", ctx) if edits.assignee else None
    elif confirmed is not None:
        assignee = confirmed.assignee
    else:
        assignee = settled(payload.assignee, "assignee") if payload.assignee else None
    base = confirmed or payload

    def pick(name: str) -> Any:
        value = getattr(edits, name)
        return value if value is not None else getattr(base, name)

    content = UpdateContent(
        issue=item.id,
        version=item.version,
        shown=dict(item.fields),
        priority=pick("priority"),
        assignee=assignee,
        summary=pick("summary"),
        labels_add=tuple(pick("labels_add") or ()),
        labels_remove=tuple(pick("labels_remove") or ()),
        due_date=pick("due_date"),
    )
    if not (
        content.priority
        or content.assignee
        or content.summary
        or content.labels_add
        or content.labels_remove
        or content.due_date
    ):
        raise InvalidEdits("Nothing changes: set at least one field.", field="priority")
    return content


_SHOWN = {"priority": "priority", "summary": "summary", "due_date": "dueDate"}


def update_check(content: UpdateContent, ctx: ReviewContext, backends: Backends) -> None:
    issue = current(jira_of(backends), content.issue)
    if issue.updated == content.version:
        return
    now = {"priority": issue.priority, "summary": issue.summary, "due_date": issue.due_date}
    for name, shown_as in _SHOWN.items():
        target = getattr(content, name)
        if target is None:
            continue
        target = target.value if isinstance(target, Priority) else str(target)
        before = content.shown.get(shown_as)
        if now[name] not in (before, target):  # someone else changed what this change sets
            raise ItemChanged(
                f"{issue.key}'s {shown_as} changed since the card (now {now[name]}): nothing was changed. "
                "Ask again for a fresh card.",
                field=shown_as,
            )


def edit_issue(content: UpdateContent, ctx: ReviewContext, backends: Backends) -> dict[str, Any]:
    jira = jira_of(backends)
    account = jira.account_id(content.assignee.email) if content.assignee is not None else None
    change = IssueChange(
        summary=content.summary,
        priority=content.priority.value if content.priority else None,
        assignee_account_id=account,
        labels_add=content.labels_add,
        labels_remove=content.labels_remove,
        due_date=content.due_date.isoformat() if content.due_date else None,
    )
    if change.applied(current(jira, content.issue)):
        return {"issueKey": content.issue, "alreadyDone": True}
    jira.edit(content.issue, change)
    return {"issueKey": content.issue}


REVIEW = ActionReview(UpdateEdits, UpdateContent, update_content, edit_issue, update_check)
