"""jira_link's confirm: the two issues linked with the site's link type, in its direction; a link
already there answers done.

Only a confirm imports it (the spec names it); what the confirms share is
:mod:`multitool.tools.jira.confirming`.
"""

from typing import Any

from pydantic import Field

from multitool.text import SingleLine
from multitool.toolkit.confirm import ActionReview, Backends, ReviewContext
from multitool.toolkit.errors import InvalidEdits
from multitool.tools.jira.confirming import ItemId, chosen_on_card, current, jira_of
from multitool.tools.jira_link.jira_link import JiraLinkPayload
from multitool.wire import WireModel


class LinkEdits(WireModel):
    issue: ItemId | None = None
    other: ItemId | None = None
    link_type: SingleLine | None = Field(default=None, max_length=100)
    outward: bool | None = None


class LinkContent(WireModel):
    issue: str
    other: str
    link_type: str
    outward: bool


def link_content(edits: LinkEdits, confirmed: LinkContent | None, ctx: ReviewContext) -> LinkContent:
    payload = JiraLinkPayload.model_validate(ctx.draft.payload)
    first = chosen_on_card(payload.issue, "issue", edits, confirmed)
    second = chosen_on_card(payload.other, "other", edits, confirmed)
    if first.id == second.id:
        raise InvalidEdits("An issue cannot be linked to itself: choose two issues.", field="other")
    kind = edits.link_type or (confirmed.link_type if confirmed else payload.link_type)
    if kind is None or kind not in payload.link_types:
        raise InvalidEdits(
            f"Choose a link type of this site: {', '.join(payload.link_types) or 'none'}.", field="linkType"
        )
    outward = (
        edits.outward if edits.outward is not None else (confirmed.outward if confirmed else payload.outward)
    )
    return LinkContent(issue=first.id, other=second.id, link_type=kind, outward=outward)


def link_check(content: LinkContent, ctx: ReviewContext, backends: Backends) -> None:
    jira = jira_of(backends)
    current(jira, content.issue)
    current(jira, content.other)


def link_issues(content: LinkContent, ctx: ReviewContext, backends: Backends) -> dict[str, Any]:
    jira = jira_of(backends)
    source, target = (content.issue, content.other) if content.outward else (content.other, content.issue)
    present = any(
        link.type == content.link_type and link.other == target and link.outward
        for link in current(jira, source).links
    )
    result = {"issueKey": content.issue, "otherKey": content.other, "linkType": content.link_type}
    if present:
        return {**result, "alreadyDone": True}
    jira.link(content.link_type, source, target)
    return result


REVIEW = ActionReview(LinkEdits, LinkContent, link_content, link_issues, link_check)
