"""jira_comment: a comment on an existing Jira issue, for the user to review; its confirm posts it.

The issue is named as the user said it (a key, or words of its summary) and found among the issues
the caller may see (:mod:`multitool.tools.jira.find`); the card shows it (key, summary, status,
assignee) and the comment. The confirm (:mod:`.confirm`) posts the comment once.
"""

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from multitool.text import MultiLine
from multitool.toolkit.cards import CardSpec, quoted
from multitool.toolkit.common import BusyTimes, DraftRef, People, Prepared, replaced_field, revises_field
from multitool.toolkit.context import ToolConfig, ToolContext
from multitool.toolkit.references import ItemRef, ItemResolution, Lookup, reference_notes
from multitool.toolkit.spec import ToolSpec
from multitool.tools.jira.existing import ISSUE_NOUN, MAX_COMMENT_CHARS, issue_field, shown, unsettled
from multitool.tools.jira.find import find_issues
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.toolkit.references import Found


class JiraCommentArgs(WireModel):
    """What the model passes: the issue as the user named it, and the comment."""

    issue: ItemRef = issue_field()
    comment: MultiLine = Field(
        min_length=1, max_length=MAX_COMMENT_CHARS, description="The comment, plain text"
    )
    revises: DraftRef | None = revises_field()


class JiraCommentPayload(WireModel):
    action: Literal["show_jira_comment"] = "show_jira_comment"
    draft_id: str
    issue: ItemResolution
    comment: str = Field(max_length=MAX_COMMENT_CHARS)
    notes: tuple[str, ...] = ()
    revises: str | None = replaced_field()


def prepare(args: JiraCommentArgs, _ctx: ToolContext, _config: ToolConfig) -> Prepared:
    def finish(_people: People, _busy: BusyTimes, found: "Found") -> dict[str, Any]:
        return {
            "issue": found[0].to_wire(),
            "comment": args.comment,
            "notes": reference_notes(found, ISSUE_NOUN),
        }

    return Prepared(names=[], finish=finish, lookups=[Lookup(args.issue, find_issues)])


def comment_caption(card: Any) -> str:
    return f"Comment on {shown(card.issue)}: {card.comment}{unsettled(card.issue)}"


def comment_said(card: Any) -> str:
    return f"drafted a comment on {shown(card.issue)}: {quoted(card.comment)}"


SPEC = ToolSpec(
    name="comment_on_jira_issue",
    action_group="jira_comment",
    api_path="/jira-comments",
    args_model=JiraCommentArgs,
    payload_model=JiraCommentPayload,
    prepare=prepare,
    card=CardSpec.of_payload(
        JiraCommentPayload,
        comment_caption,
        fingerprint=lambda card: (card.issue.query.casefold(), " ".join(card.comment.casefold().split())),
        said=comment_said,
        held="posted",
    ),
    review="multitool.tools.jira_comment.confirm:REVIEW",
    group_description="Drafts a comment on an existing Jira issue for the user to review; never posts it.",
    nouns=("a Jira comment", "Jira comments"),
    description=(
        "Draft a comment on an existing Jira issue for the user to review and post: the issue as the "
        "user named it (a key such as WEB-12, or words of its summary) and the comment text. The backend "
        "finds the issue among those the user may see. Nothing is posted until the user confirms."
    ),
)
