"""jira_link: two existing Jira issues linked, for the user to review.

"link WEB-12 to OPS-3 as blocks": both issues found among the caller's (:mod:`multitool.tools.jira.find`),
the link as said matched against the site's link types, read from Jira (the outward words "blocks"
make the first issue the source; the inward words "is blocked by" the second). The confirm
(:mod:`.confirm`) links them; a link already there answers done.
"""

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from multitool.text import SingleLine
from multitool.toolkit.cards import CardSpec
from multitool.toolkit.common import BusyTimes, DraftRef, People, Prepared, replaced_field, revises_field
from multitool.toolkit.context import ToolConfig, ToolContext
from multitool.toolkit.references import ItemRef, ItemResolution, Lookup, reference_notes
from multitool.toolkit.spec import ToolSpec
from multitool.tools.jira.existing import ISSUE_NOUN, issue_field, link_type_for, shown, unsettled
from multitool.tools.jira.find import find_with_link_types
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.toolkit.references import Found


class JiraLinkArgs(WireModel):
    """What the model passes: both issues as the user named them, and the link as said."""

    issue: ItemRef = issue_field("The first issue (WEB-12 in 'link WEB-12 to OPS-3 as blocks')")
    other: ItemRef = issue_field("The second issue (OPS-3 in 'link WEB-12 to OPS-3 as blocks')")
    link: SingleLine = Field(
        min_length=1,
        max_length=60,
        description="How the first relates to the second, as said: 'blocks', 'is blocked by', 'relates to', "
        "'duplicates'",
    )
    revises: DraftRef | None = revises_field()


class JiraLinkPayload(WireModel):
    action: Literal["show_jira_link"] = "show_jira_link"
    draft_id: str
    issue: ItemResolution
    other: ItemResolution
    link: str
    link_type: str | None = Field(
        default=None, description="The site's link type the words name; None: choose"
    )
    outward: bool = Field(default=True, description="The first issue is the link's source ('blocks')")
    link_types: tuple[str, ...] = Field(default=(), description="The site's link types, to choose from")
    notes: tuple[str, ...] = ()
    revises: str | None = replaced_field()


def prepare(args: JiraLinkArgs, _ctx: ToolContext, _config: ToolConfig) -> Prepared:
    def finish(_people: People, _busy: BusyTimes, found: "Found") -> dict[str, Any]:
        first, second = found
        kinds: list[dict[str, str]] = next(
            (r.offered[0].fields.get("linkTypes", []) for r in found if r.offered), []
        )
        matched = link_type_for(args.link, kinds)
        notes = reference_notes(found, ISSUE_NOUN)
        if kinds and matched is None:
            names = ", ".join(f"{k['outward']} ({k['name']})" for k in kinds)
            notes.append(f"No link type of this site reads '{args.link}': choose one of {names}.")
        return {
            "issue": first.to_wire(),
            "other": second.to_wire(),
            "link": args.link,
            "linkType": matched[0] if matched else None,
            "outward": matched[1] if matched else True,
            "linkTypes": [k["name"] for k in kinds],
            "notes": notes,
        }

    return Prepared(
        names=[],
        finish=finish,
        lookups=[Lookup(args.issue, find_with_link_types), Lookup(args.other, find_with_link_types)],
    )


def link_caption(card: Any) -> str:
    return f"Link {shown(card.issue)} {card.link} {shown(card.other)}{unsettled(card.issue, card.other)}"


def link_said(card: Any) -> str:
    return f"prepared a link: {shown(card.issue)} {card.link} {shown(card.other)}"


SPEC = ToolSpec(
    name="link_jira_issues",
    action_group="jira_link",
    api_path="/jira-links",
    args_model=JiraLinkArgs,
    payload_model=JiraLinkPayload,
    prepare=prepare,
    card=CardSpec.of_payload(JiraLinkPayload, link_caption, said=link_said, held="linked"),
    review="multitool.tools.jira_link.confirm:REVIEW",
    group_description="Prepares a link between two existing Jira issues for the user to confirm.",
    nouns=("a Jira issue link", "Jira issue links"),
    description=(
        "Link two existing Jira issues after the user confirms: both as the user named them (keys such as "
        "WEB-12, or words of their summaries) and the link as said ('blocks', 'relates to', 'duplicates'), "
        "matched against the site's link types. Nothing changes until the user confirms."
    ),
)
