"""Interactions: the card buttons and choices (``block_actions``) and the Edit modal (``view_submission``).

Slack signs the whole payload; what is trusted from it is who clicked (``user.id``, ``team.id``) and
where (the channel and the message), never whose draft it is: each click reads the draft from the
drafts store and acts only when the draft's owner is the clicking user
(:func:`multitool.slack.identity.owner_id`). Anyone else gets an ephemeral "this card is X's"
(``chat.postEphemeral``), and the reviewer would refuse them anyway (it answers another user's
draft as not found).

- Confirm: the edits are the choices made on the message (a slot, the person meant by an ambiguous
  name: ``state.values``, which Slack sends with every click on a message that has inputs) and go
  through :meth:`multitool.review.reviewer.Reviewer.confirm`, the same code the ``POST
  /actions/{id}/confirm`` route runs: same validation, same exactly-once, same audit. The message is
  then updated in place with the outcome (``chat.update``); a refusal is said in an ephemeral note.
- Edit: ``views.open`` with the card's editable fields (:mod:`multitool.slack.modal`); its
  submission confirms with those edits, the reviewer's ``InvalidEdits`` shown on the field it names.
- Discard: :meth:`Reviewer.discard`, then the message updated.
- A choice (``static_select``) alone changes nothing until Confirm: answered 200.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from multitool.drafts import Draft
from multitool.errors import ServiceError
from multitool.observability import error_fields, logger
from multitool.slack.blocks import (
    ACTION_PREFIX,
    AFTER_CONFIRM,
    CONFIRM,
    DISCARD,
    EDIT,
    PICK,
    SLOT,
    card_message,
    connect_message,
    outcome_words,
)
from multitool.slack.identity import NO_ACCESS, SlackPerson, owner_id, slack_user_of
from multitool.slack.web import SlackCallFailed, SlackWeb
from multitool.toolkit.errors import InvalidEdits

if TYPE_CHECKING:  # a click loads them; an event (the usual cold start) never does
    from multitool.ports.drafts import DraftStore
    from multitool.review.reviewer import Reviewer
    from multitool.toolkit.confirm import Caller


class Click(dict[str, Any]):
    """A ``block_actions`` payload (a dict), with the parts the app reads."""

    @property
    def user(self) -> str:
        return str((self.get("user") or {}).get("id") or "")

    @property
    def team(self) -> str:
        team = self.get("team") or {}
        return str(team.get("id") or (self.get("user") or {}).get("team_id") or "")

    @property
    def channel(self) -> str:
        return str(
            (self.get("channel") or {}).get("id") or (self.get("container") or {}).get("channel_id") or ""
        )

    @property
    def message_ts(self) -> str:
        return str(
            (self.get("message") or {}).get("ts") or (self.get("container") or {}).get("message_ts") or ""
        )

    @property
    def thread_ts(self) -> str | None:
        thread = (self.get("message") or {}).get("thread_ts")
        return thread if isinstance(thread, str) else None


def chosen(state: Mapping[str, Any]) -> dict[str, str]:
    """``action_id -> value`` of every select on the message (``state.values``)."""
    found: dict[str, str] = {}
    values = state.get("values") if isinstance(state, Mapping) else None
    for block in (values or {}).values():
        for action, value in (block or {}).items():
            option = (value or {}).get("selected_option") if isinstance(value, Mapping) else None
            if isinstance(option, Mapping) and isinstance(option.get("value"), str):
                found[action] = option["value"]
    return found


def message_edits(card_payload: Mapping[str, Any], picks: Mapping[str, str], action: str) -> dict[str, Any]:
    """The confirm's edits from the choices made on the message: the slot, the people meant."""
    from multitool.tools import REGISTRY

    edits: dict[str, Any] = {}
    review = REGISTRY.by_action(action)
    edits_fields = review.action_review().edits_model.model_fields if review is not None else {}
    slot = picks.get(f"{ACTION_PREFIX}{SLOT}")
    slots = card_payload.get("slots")
    if slot is not None and slot.isdigit() and isinstance(slots, list) and int(slot) < len(slots):
        name = "slot" if "slot" in edits_fields else None
        if name:
            edits[name] = slots[int(slot)]
    for key, person_id in picks.items():
        parts = key.split(":")
        if len(parts) != 4 or f"{parts[0]}:{parts[1]}" != f"{ACTION_PREFIX}{PICK}" or not parts[3].isdigit():
            continue
        field, index = parts[2], int(parts[3])
        if field not in edits_fields:
            continue
        proposed = card_payload.get(field)
        if isinstance(proposed, list):
            people = edits.setdefault(field, [_raw(p) for p in proposed])
            if index < len(people):
                people[index] = person_id
        elif isinstance(proposed, dict) and index == 0:
            edits[field] = person_id
    return edits


def _raw(resolution: Mapping[str, Any]) -> str:
    """A proposed name as an edit: the resolved person's id, else the name as written."""
    person = resolution.get("person")
    if isinstance(person, Mapping) and isinstance(person.get("id"), str):
        return str(person["id"])
    return str(resolution.get("query") or "")


class InteractionHandler:
    """Confirm, Edit and Discard from Slack, through the review's own code."""

    def __init__(
        self,
        web: Callable[[], SlackWeb],
        reviewer: Callable[[], Reviewer],
        drafts: Callable[[], DraftStore],
        identify: Callable[[str, str], SlackPerson | None],
        page_url: str | None = None,
    ) -> None:
        """``identify(team, user)``: the directory person the clicking Slack user is now."""
        self.identify = identify
        self.web = web
        self.reviewer = reviewer
        self.drafts = drafts
        self.page_url = page_url

    # -- block_actions ------------------------------------------------------------------

    def on_click(self, payload: Mapping[str, Any]) -> None:
        click = Click(payload)
        for action in payload.get("actions") or ():
            if not isinstance(action, Mapping):
                continue
            kind = str(action.get("action_id") or "").removeprefix(ACTION_PREFIX).split(":", 1)[0]
            if kind not in (CONFIRM, EDIT, DISCARD):
                continue  # a choice: kept on the message until Confirm
            draft_id = str(action.get("value") or "")
            draft = self._own_draft(click, draft_id)
            if draft is None:
                continue
            if kind == EDIT:
                self._open_edit(click, draft)
            else:
                self._act(click, draft, kind)

    def _own_draft(self, click: Click, draft_id: str) -> Draft | None:
        """The clicked draft when it is the clicking user's; else say whose it is, ephemerally."""
        draft = self.drafts().get(draft_id) if 0 < len(draft_id) <= 128 else None
        if draft is not None and draft.owner == owner_id(click.team, click.user):
            return draft
        owner = slack_user_of(draft.owner) if draft is not None else None
        words = f"This card is <@{owner}>'s: only they can act on it." if owner else "This card is not yours."
        self._ephemeral(click, words)
        return None

    def _act(self, click: Click, draft: Draft, kind: str) -> None:
        caller = self._caller(click)
        if caller is None:
            self._ephemeral(click, NO_ACCESS)
            return
        reviewer = self.reviewer()
        try:
            if kind == CONFIRM:
                picks = chosen(click.get("state") or {})
                done = reviewer.confirm(caller, draft.id, message_edits(draft.payload, picks, draft.action))
            else:
                done = reviewer.discard(caller, draft.id)
        except ServiceError as refused:
            logger.info("Slack action refused", extra={"code": refused.code, "draft_id": draft.id})
            if not self._connect(click, refused):
                self._ephemeral(click, refused.public_message())
            return
        self._show_outcome(click.channel, click.message_ts, done)

    def _connect(self, click: Click, refused: ServiceError) -> bool:
        """A confirm that needs the clicking user's own account connected: the connect card, to them only
        (ephemeral); the draft stays confirmable. False when the refusal offers no link."""
        detail = refused.detail() if refused.code == "account_not_connected" else {}
        url, name = detail.get("authorizationUrl"), detail.get("providerName")
        if not isinstance(url, str) or not isinstance(name, str):
            return False
        message = connect_message(name, url, after=AFTER_CONFIRM, page_url=self.page_url)
        try:
            self.web().ephemeral(
                click.channel, click.user, message.text, thread_ts=click.thread_ts, blocks=message.blocks
            )
        except SlackCallFailed as failed:
            logger.warning("Slack connect card not posted", extra={"slack_error": failed.error})
        return True

    def _open_edit(self, click: Click, draft: Draft) -> None:
        from multitool.slack.modal import edit_view

        trigger = str(click.get("trigger_id") or "")
        meta = {"draft": draft.id, "channel": click.channel, "ts": click.message_ts}
        try:
            self.web().open_view(trigger, edit_view(draft, json.dumps(meta)))
        except SlackCallFailed as failed:
            self._ephemeral(click, failed.words())

    # -- view_submission ----------------------------------------------------------------

    def on_submit(self, payload: Mapping[str, Any]) -> dict[str, Any] | None:
        """The answer to a submitted Edit modal: None closes it; ``{"response_action": "errors"}``
        keeps it open with the reviewer's words on the field they name."""
        from multitool.slack.modal import modal_edits, modal_errors

        view = payload.get("view") or {}
        try:
            meta = json.loads(str(view.get("private_metadata") or "{}"))
        except ValueError:
            return None
        click = Click({**payload, "channel": {"id": meta.get("channel")}, "message": {"ts": meta.get("ts")}})
        draft = self.drafts().get(str(meta.get("draft") or ""))
        if draft is None or draft.owner != owner_id(click.team, click.user):
            return modal_errors(view, "This card is not yours.", None)
        caller = self._caller(click)
        if caller is None:
            return modal_errors(view, NO_ACCESS, None)
        try:
            edits = modal_edits(draft, view.get("state") or {})
            done = self.reviewer().confirm(caller, draft.id, edits)
        except InvalidEdits as invalid:
            return modal_errors(view, invalid.public_message(), invalid.detail().get("field"))
        except ServiceError as refused:
            return modal_errors(view, refused.public_message(), None)
        self._show_outcome(click.channel, click.message_ts, done)
        return None

    # -- both ---------------------------------------------------------------------------

    def _caller(self, click: Click) -> Caller | None:
        """The clicking user as the reviewer's caller: the owner id Slack signed, and the address and
        name of the directory person their Slack email is now (the mail's sender name and reply-to,
        the meeting's organizer); None when they are no longer anyone in the directory."""
        try:
            person = self.identify(click.team, click.user)
        except SlackCallFailed as failed:
            logger.warning("Slack user not read", extra={"slack_error": failed.error})
            return None
        if person is None:
            return None
        from multitool.toolkit.confirm import Caller  # the confirm contract: a click's, never an event's

        return Caller(user_id=person.owner, email=person.person.email, name=person.person.display_name)

    def _show_outcome(self, channel: str, ts: str, draft: Draft) -> None:
        """The message updated in place: the card as confirmed (its ``edits``: the subject sent, the
        slot booked), not as drafted, and what was done."""
        from multitool.cards import client_actions
        from multitool.slack.sent import sent_card

        if not channel or not ts:
            return
        try:
            card = sent_card(client_actions.card_from_payload(draft.payload), draft.edits)
        except ValueError:
            return
        spec = client_actions.CARD_SPECS.get(draft.action)
        held = spec.held if spec is not None else "done"
        words = outcome_words(held, str(draft.status), draft.result, draft.error)
        message = card_message(card, client_actions.caption(card), page_url=self.page_url, outcome=words)
        try:
            self.web().update(channel, ts, message.text, message.blocks)
        except SlackCallFailed as failed:
            logger.warning(
                "Slack card not updated", extra={"slack_error": failed.error, "draft_id": draft.id}
            )

    def _ephemeral(self, click: Click, text: str) -> None:
        try:
            self.web().ephemeral(click.channel, click.user, text, thread_ts=click.thread_ts)
        except SlackCallFailed as failed:
            logger.warning("Slack note not posted", extra={"slack_error": failed.error})
        except Exception as error:  # a note is never worth the click's answer
            logger.warning("Slack note not posted", extra=error_fields(error))
