"""jira_draft's confirm: the fields as the user edited them, the issue created.

Only a confirm needs it, so it is apart from :mod:`multitool.tools.jira.jira_draft` (whose spec names
it): the action group and the orchestrator, which only propose, never import it or the Jira port.
"""

from typing import Annotated, Any

from pydantic import StringConstraints

from multitool.ports.jira import CreatedIssue, IssueRequest
from multitool.text import CLEAN_MULTI_LINE, CLEAN_SINGLE_LINE
from multitool.toolkit.common import RawName
from multitool.toolkit.confirm import (
    SENT_VIA,
    ActionReview,
    Address,
    Backends,
    Caller,
    ReviewContext,
    address_of,
    settled,
)
from multitool.toolkit.context import MAX_DESCRIPTION_CHARS, MAX_SUMMARY_CHARS, ToolConfig
from multitool.toolkit.errors import InvalidEdits, NotConfigured, ToolError
from multitool.tools.jira.jira_draft import AnyCasePriority, JiraTicketPayload, Priority, validate_project
from multitool.wire import WireModel

# Edited text follows the policy of multitool.text (constraints first: the cleaning after them runs first).
Summary = Annotated[str, StringConstraints(min_length=1, max_length=MAX_SUMMARY_CHARS), CLEAN_SINGLE_LINE]
Description = Annotated[str, StringConstraints(max_length=MAX_DESCRIPTION_CHARS), CLEAN_MULTI_LINE]
ProjectKey = Annotated[str, StringConstraints(min_length=1, max_length=32), CLEAN_SINGLE_LINE]
IssueType = Annotated[str, StringConstraints(min_length=1, max_length=50), CLEAN_SINGLE_LINE]


class JiraEdits(WireModel):
    """``assignee``: an email address, the id of a person offered on the card, or null for none."""

    project: ProjectKey | None = None
    issue_type: IssueType | None = None
    summary: Summary | None = None
    description: Description | None = None
    priority: AnyCasePriority | None = None
    assignee: RawName | None = None


class JiraContent(WireModel):
    project: str
    issue_type: str
    summary: Summary
    description: Description = ""
    priority: Priority
    assignee: Address | None = None


def jira_content(edits: JiraEdits, confirmed: JiraContent | None, ctx: ReviewContext) -> JiraContent:
    payload = JiraTicketPayload.model_validate(ctx.draft.payload)
    base = confirmed or JiraContent(
        project=payload.project,
        issue_type=payload.issue_type,
        summary=payload.summary,
        description=payload.description,
        priority=payload.priority,
    )
    try:
        project, issue_type = validate_project(
            edits.project or base.project,
            edits.issue_type or base.issue_type,
            ToolConfig(jira_projects=ctx.config.jira_projects),
        )
    except ToolError as error:
        raise InvalidEdits(error.message, field=error.field or "project") from error
    assignee: Address | None
    if "assignee" in edits.model_fields_set:
        assignee = address_of(edits.assignee, "assignee", ctx) if edits.assignee else None
    elif confirmed is not None:
        assignee = confirmed.assignee
    else:
        assignee = settled(payload.assignee, "assignee") if payload.assignee else None
    return JiraContent(
        project=project,
        issue_type=issue_type,
        summary=edits.summary or base.summary,
        description=base.description if edits.description is None else edits.description,
        priority=edits.priority or base.priority,
        assignee=assignee,
    )


def jira_configured(content: JiraContent, ctx: ReviewContext, backends: Backends) -> None:
    if backends.jira is None:
        raise NotConfigured("Jira is not configured in this deployment.")


def requester(caller: Caller) -> str:
    """'Jordan Lee <jordan@example.com> via multitool': the name and verified address when the token
    carries them, else the user's id, so a reader of the issue knows whom to ask."""
    if caller.name and caller.email:
        return f"{caller.name} <{caller.email}> {SENT_VIA}"
    if caller.name or caller.email:
        return f"{caller.name or caller.email} {SENT_VIA}"
    return f"the multitool user {caller.user_id}"


def create_issue(content: JiraContent, ctx: ReviewContext, backends: Backends) -> dict[str, Any]:
    assert backends.jira is not None  # checked before execution
    created: CreatedIssue = backends.jira.create_issue(
        IssueRequest(
            project=content.project,
            issue_type=content.issue_type,
            summary=content.summary,
            description=content.description,
            priority=content.priority.value,
            assignee_email=content.assignee.email if content.assignee else None,
            requested_by=requester(ctx.caller),
        )
    )
    return {"issueKey": created.key, "issueId": created.id, "issueUrl": created.url}


# Not undoable: cards of the same turn may wait on the issue (a mail that names its key and link), so
# the create runs at once; an issue made by mistake stays in the project's own history, where it can be
# closed or deleted (Jira's delete needs the Delete Issues permission, which many sites withhold, so the
# review never deletes on the user's behalf).
REVIEW = ActionReview(JiraEdits, JiraContent, jira_content, create_issue, jira_configured)
