"""What the confirms on existing Jira issues share: the issue chosen on the card, the Jira the
confirm writes with, the issue as it is now.

Only a confirm imports it (:mod:`multitool.tools.jira_comment.confirm`,
:mod:`multitool.tools.jira_transition.confirm`, :mod:`multitool.tools.jira_update.confirm`,
:mod:`multitool.tools.jira_link.confirm`). Every confirm acts only on an issue the card offered
(:func:`multitool.toolkit.references.chosen`) and re-reads it before writing (its ``check``): an
issue gone, or moved so that the change no longer fits, is
:class:`~multitool.toolkit.errors.ItemChanged` and nothing is written. Exactly once, as Jira
allows it: a comment carries the draft id in an entity property and every confirm first reads the
issue's newest comments for it (Jira takes no idempotency key); a transition to the status the
issue is already in answers done; an update the issue already shows answers done (and the edit is
idempotent); a link already there answers done.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from multitool.ports.jira import IssueView, JiraError
from multitool.text import SingleLine
from multitool.toolkit.confirm import Backends
from multitool.toolkit.errors import InvalidEdits, ItemChanged, NotConfigured, ToolError
from multitool.toolkit.references import Item, ItemResolution, chosen
from multitool.tools.jira.find import provider_error
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.ports.jira import JiraClient

ItemId = SingleLine
"""The id of an issue the card offered, as an edit names it."""


def chosen_issue(found: ItemResolution, item_id: str | None, field: str) -> Item:
    """The issue the confirm acts on (:func:`chosen`); a choice to make is an invalid edit."""
    try:
        return chosen(found, item_id, field)
    except ToolError as error:
        if error.code == "not_found":
            raise
        raise InvalidEdits(error.message, field=error.field or field) from None


def chosen_on_card(found: ItemResolution, field: str, edits: WireModel, confirmed: WireModel | None) -> Item:
    """The issue a confirm acts on for ``field`` (the edits', the content's and the card's name for
    it): the one the edits choose, else the one this confirm settled before (a confirm retried or
    edited again keeps it), else the card's own (:func:`chosen_issue`)."""
    earlier: str | None = getattr(confirmed, field) if confirmed is not None else None
    return chosen_issue(found, getattr(edits, field) or earlier, field)


def jira_of(backends: Backends) -> JiraClient:
    if backends.jira is None:
        raise NotConfigured("Jira is not configured in this deployment.")
    return backends.jira


def current(jira: JiraClient, key: str) -> IssueView:
    """The issue as it is now; gone (or no longer visible to the account) is ItemChanged."""
    try:
        issue = jira.issue(key)
    except JiraError as error:
        raise provider_error(error) from error
    if issue is None:
        raise ItemChanged(f"{key} is gone or you may no longer see it: nothing was changed.", field="issue")
    return issue
