"""jira_transition: an existing Jira issue moved to another status, for the user to review.

The card shows the issue (key, summary, status, assignee) and the transitions it offers now, read
from Jira (:func:`multitool.tools.jira.find.find_with_transitions`): the one the user named is
chosen ("close WEB-12": the one to Done, Closed or Resolved), and when the name matches none (or
several) the card offers a choice. The confirm (:mod:`.confirm`) makes it once;
an issue already in that status answers done.
"""

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from multitool.text import SingleLine
from multitool.toolkit.cards import CardSpec
from multitool.toolkit.common import BusyTimes, DraftRef, People, Prepared, replaced_field, revises_field
from multitool.toolkit.context import ToolConfig, ToolContext
from multitool.toolkit.references import ItemRef, ItemResolution, Lookup, reference_notes
from multitool.toolkit.spec import ToolSpec
from multitool.tools.jira.existing import (
    ISSUE_NOUN,
    already_there,
    issue_field,
    shown,
    transition_for,
    unsettled,
)
from multitool.tools.jira.find import find_with_transitions
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.toolkit.references import Found


class JiraTransitionArgs(WireModel):
    """What the model passes: the issue as the user named it, and the status as said."""

    issue: ItemRef = issue_field()
    status: SingleLine = Field(
        min_length=1,
        max_length=60,
        description="The status or transition as the user said it: 'Done', 'In Review', 'close', "
        "'start progress'",
    )
    revises: DraftRef | None = revises_field()


class JiraTransitionPayload(WireModel):
    action: Literal["show_jira_transition"] = "show_jira_transition"
    draft_id: str
    issue: ItemResolution
    status: str
    transition: str | None = Field(
        default=None, description="The id of the issue's transition the status names; None: choose one"
    )
    already: bool = Field(default=False, description="The issue is already in that status")
    notes: tuple[str, ...] = ()
    revises: str | None = replaced_field()


def prepare(args: JiraTransitionArgs, _ctx: ToolContext, _config: ToolConfig) -> Prepared:
    def finish(_people: People, _busy: BusyTimes, found: "Found") -> dict[str, Any]:
        issue = found[0]
        notes = reference_notes(found, ISSUE_NOUN)
        transition = transition_for(args.status, issue.item)
        already = already_there(args.status, issue.item)
        if issue.item is not None and already:
            notes.append(f"{issue.item.id} is already {issue.item.fields.get('status')}: nothing to do.")
        elif issue.item is not None and transition is None:
            offered = [f"{t['name']} (to {t['toStatus']})" for t in issue.item.fields.get("transitions", [])]
            notes.append(
                f"{issue.item.id} cannot go to '{args.status}' from {issue.item.fields.get('status')}; "
                f"choose one it offers: {', '.join(offered) or 'none'}."
            )
        return {
            "issue": issue.to_wire(),
            "status": args.status,
            "transition": transition,
            "already": already,
            "notes": notes,
        }

    return Prepared(names=[], finish=finish, lookups=[Lookup(args.issue, find_with_transitions)])


def transition_caption(card: Any) -> str:
    return f"Move {shown(card.issue)} to {card.status}{unsettled(card.issue)}"


def transition_said(card: Any) -> str:
    return f"prepared moving {shown(card.issue)} to {card.status}"


SPEC = ToolSpec(
    name="transition_jira_issue",
    action_group="jira_transition",
    api_path="/jira-transitions",
    args_model=JiraTransitionArgs,
    payload_model=JiraTransitionPayload,
    prepare=prepare,
    card=CardSpec.of_payload(
        JiraTransitionPayload,
        transition_caption,
        fingerprint=lambda card: (card.issue.query.casefold(), card.status.casefold()),
        said=transition_said,
        held="changed",
    ),
    review="multitool.tools.jira_transition.confirm:REVIEW",
    group_description="Prepares moving an existing Jira issue to another status for the user to confirm.",
    nouns=("a Jira transition", "Jira transitions"),
    description=(
        "Move an existing Jira issue to another status (close, start, send to review...) after the user "
        "confirms: the issue as the user named it (a key such as WEB-12, or words of its summary) and the "
        "status or transition as said ('Done', 'In Review', 'close'). The card offers the transitions the "
        "issue's workflow allows. Nothing changes until the user confirms."
    ),
)
