"""jira_transition's confirm: the transition chosen on the card made once; an issue already in
its status answers done, one that no longer offers it is ItemChanged.

Only a confirm imports it (the spec names it); what the confirms share is
:mod:`multitool.tools.jira.confirming`.
"""

from typing import Any

from pydantic import Field

from multitool.ports.jira import JiraError
from multitool.text import SingleLine
from multitool.toolkit.confirm import ActionReview, Backends, ReviewContext
from multitool.toolkit.errors import InvalidEdits, ItemChanged
from multitool.tools.jira.confirming import ItemId, chosen_on_card, current, jira_of
from multitool.tools.jira.find import provider_error
from multitool.tools.jira_transition.jira_transition import JiraTransitionPayload
from multitool.wire import WireModel


class TransitionEdits(WireModel):
    """``transition``: the id of one of the transitions the card offered for the issue."""

    issue: ItemId | None = None
    transition: SingleLine | None = Field(default=None, max_length=32)


class TransitionContent(WireModel):
    issue: str
    transition: str | None
    name: str
    to_status: str


def transition_content(
    edits: TransitionEdits, confirmed: TransitionContent | None, ctx: ReviewContext
) -> TransitionContent:
    payload = JiraTransitionPayload.model_validate(ctx.draft.payload)
    item = chosen_on_card(payload.issue, "issue", edits, confirmed)
    offered = {str(t["id"]): t for t in item.fields.get("transitions", [])}
    wanted = edits.transition or (confirmed.transition if confirmed else None)
    if wanted is None and payload.issue.item is not None and item.id == payload.issue.item.id:
        wanted = payload.transition
    if wanted is None:
        if payload.already and payload.issue.item is not None and item.id == payload.issue.item.id:
            status = str(item.fields.get("status", ""))
            return TransitionContent(issue=item.id, transition=None, name="", to_status=status)
        names = ", ".join(f"{t['name']} (to {t['toStatus']})" for t in offered.values()) or "none"
        raise InvalidEdits(f"Choose the transition of {item.id}: {names}.", field="transition")
    if wanted not in offered:
        raise InvalidEdits(
            f"{item.id} offers no transition '{wanted}': choose one the card offers.", field="transition"
        )
    chosen_one = offered[wanted]
    return TransitionContent(
        issue=item.id, transition=wanted, name=str(chosen_one["name"]), to_status=str(chosen_one["toStatus"])
    )


def transition_check(content: TransitionContent, ctx: ReviewContext, backends: Backends) -> None:
    jira = jira_of(backends)
    issue = current(jira, content.issue)
    if issue.status == content.to_status or content.transition is None:
        return  # already there: the confirm answers done
    try:
        offered = {t.id for t in jira.transitions(content.issue)}
    except JiraError as error:
        raise provider_error(error) from error
    if content.transition not in offered:
        raise ItemChanged(
            f"{issue.key} is {issue.status} now and no longer offers '{content.name}': nothing was changed. "
            "Ask again for a fresh card.",
            field="transition",
        )


def make_transition(content: TransitionContent, ctx: ReviewContext, backends: Backends) -> dict[str, Any]:
    jira = jira_of(backends)
    issue = current(jira, content.issue)
    if issue.status == content.to_status or content.transition is None:
        return {"issueKey": issue.key, "status": issue.status, "alreadyDone": True}
    jira.transition(content.issue, content.transition)
    return {"issueKey": issue.key, "status": content.to_status}


REVIEW = ActionReview(
    TransitionEdits, TransitionContent, transition_content, make_transition, transition_check
)
