"""jira_comment's confirm: the comment posted once (its draft id in an entity property, read
back before a retried confirm posts anything).

Only a confirm imports it (the spec names it); what the confirms share is
:mod:`multitool.tools.jira.confirming`.
"""

from typing import Any

from pydantic import Field

from multitool.text import MultiLine
from multitool.toolkit.confirm import ActionReview, Backends, ReviewContext
from multitool.tools.jira.confirming import ItemId, chosen_on_card, current, jira_of
from multitool.tools.jira.existing import MAX_COMMENT_CHARS
from multitool.tools.jira_comment.jira_comment import JiraCommentPayload
from multitool.wire import WireModel


class CommentEdits(WireModel):
    """``issue``: the id of the issue the card offered that the user chose; ``comment``: the text."""

    issue: ItemId | None = None
    comment: MultiLine | None = Field(default=None, min_length=1, max_length=MAX_COMMENT_CHARS)


class CommentContent(WireModel):
    issue: str
    comment: MultiLine = Field(min_length=1, max_length=MAX_COMMENT_CHARS)


def comment_content(
    edits: CommentEdits, confirmed: CommentContent | None, ctx: ReviewContext
) -> CommentContent:
    payload = JiraCommentPayload.model_validate(ctx.draft.payload)
    item = chosen_on_card(payload.issue, "issue", edits, confirmed)
    base = confirmed.comment if confirmed else payload.comment
    return CommentContent(issue=item.id, comment=edits.comment or base)


def comment_check(content: CommentContent, ctx: ReviewContext, backends: Backends) -> None:
    current(jira_of(backends), content.issue)  # another comment meanwhile is no conflict


def post_comment(content: CommentContent, ctx: ReviewContext, backends: Backends) -> dict[str, Any]:
    jira = jira_of(backends)
    earlier = jira.comment_with(content.issue, ctx.draft.id)
    if earlier is not None:  # a retried confirm: the comment is there already
        return {"issueKey": content.issue, "commentId": earlier, "alreadyDone": True}
    return {
        "issueKey": content.issue,
        "commentId": jira.add_comment(content.issue, content.comment, ctx.draft.id),
    }


REVIEW = ActionReview(CommentEdits, CommentContent, comment_content, post_comment, comment_check)
